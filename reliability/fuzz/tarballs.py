"""Generated GitHub-style tarballs with hostile member names, for ``archive.extract``.

An archive is a list of members under one top folder (as GitHub's tarballs have), each
with a generated name (``..``, absolute paths, backslashes, drive letters, empty and
over-long components, bytes that are not UTF-8, control characters, the same path twice,
a file where a folder is), a kind (file, folder, link, hard link, FIFO, device) and a
mode. Now and then a byte of the compressed stream is flipped, or the stream is cut.
"""

from __future__ import annotations

import io
import tarfile
from dataclasses import dataclass

from hypothesis import strategies as st

TOP = "acme-catalog-0c1f9e1"

_COMPONENTS = [
    "skills", "a", "SKILL.md", ".", "..", "", " ", "...", ".git", ".metapkg", "a" * 255,
    "b" * 256, "c" * 1100, "\udcff\udcfe", "caf\udce9", "con", "nul", "a:b", "C:", "é",
    "\n", "\x1b[2J", "a\\..\\b", "\\", "~", "$HOME", "*", "\u202e",
]  # fmt: skip
_KINDS = [tarfile.REGTYPE] * 6 + [
    tarfile.DIRTYPE, tarfile.DIRTYPE, tarfile.SYMTYPE, tarfile.LNKTYPE, tarfile.FIFOTYPE,
    tarfile.CHRTYPE, tarfile.BLKTYPE, tarfile.CONTTYPE, b"V", b"Z",
]  # fmt: skip


@dataclass(frozen=True)
class Member:
    name: str
    kind: bytes
    data: bytes
    mode: int
    link: str


@dataclass(frozen=True)
class Archive:
    members: tuple[Member, ...]
    tar_format: int
    flip: int | None  # index (modulo length) of a compressed byte to flip
    cut: int | None  # keep only this many compressed bytes (modulo length)


_component = st.one_of(
    st.sampled_from(_COMPONENTS),
    st.text(st.characters(blacklist_characters="/\x00"), min_size=1, max_size=8),
)


@st.composite
def _name(draw: st.DrawFn) -> str:
    parts = draw(st.lists(_component, min_size=1, max_size=4))
    top = draw(st.sampled_from([TOP, TOP, TOP, "", "/", "other", f"{TOP}/..", "./" + TOP]))
    name = "/".join([top, *parts] if top else parts)
    return name + draw(st.sampled_from(["", "", "/", "//"]))


_member = st.builds(
    Member,
    name=_name(),
    kind=st.sampled_from(_KINDS),
    data=st.binary(max_size=64),
    mode=st.integers(0, 0o7777),
    link=st.one_of(st.just(""), _name()),
)

archives = st.builds(
    Archive,
    members=st.lists(_member, max_size=8).map(tuple),
    tar_format=st.sampled_from([tarfile.GNU_FORMAT, tarfile.PAX_FORMAT, tarfile.USTAR_FORMAT]),
    flip=st.one_of(st.none(), st.none(), st.none(), st.integers(0, 1 << 16)),
    cut=st.one_of(st.none(), st.none(), st.none(), st.integers(0, 1 << 16)),
)


def build(archive: Archive) -> bytes:
    """The gzip bytes of ``archive``; members tarfile cannot encode are left out."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w:gz", format=archive.tar_format) as tar:
        top = tarfile.TarInfo(TOP)
        top.type, top.mode = tarfile.DIRTYPE, 0o755
        tar.addfile(top)
        for member in archive.members:
            info = tarfile.TarInfo(member.name)
            info.type, info.mode, info.linkname = member.kind, member.mode, member.link
            data = member.data if member.kind in (tarfile.REGTYPE, tarfile.CONTTYPE) else b""
            info.size = len(data)
            try:
                tar.addfile(info, io.BytesIO(data) if data else None)
            except (ValueError, UnicodeError):  # not representable in this tar format
                continue
    damaged = bytearray(raw.getvalue())
    if archive.flip is not None:
        damaged[archive.flip % len(damaged)] ^= 0x5A
    if archive.cut is not None:
        del damaged[archive.cut % len(damaged) :]
    return bytes(damaged)


def many_members(total: int = 1 << 20) -> bytes:
    """A well-formed tarball of about ``total`` bytes of tar: many small files."""
    raw = io.BytesIO()
    count = total // 1024
    with tarfile.open(fileobj=raw, mode="w:gz", format=tarfile.GNU_FORMAT) as tar:
        top = tarfile.TarInfo(TOP)
        top.type = tarfile.DIRTYPE
        tar.addfile(top)
        for index in range(count):
            info = tarfile.TarInfo(f"{TOP}/skills/s{index % 50}/file-{index}.md")
            info.size = 512
            tar.addfile(info, io.BytesIO(bytes([65 + index % 26]) * 512))
    return raw.getvalue()
