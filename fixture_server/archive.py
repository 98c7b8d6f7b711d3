"""GitHub-style archives, built once per (commit, top folder) and kept in memory.

Two shapes, as codeload.github.com serves them: `legacy.tar.gz/<ref>` (where the REST
tarball endpoint redirects) has the top folder `{owner}-{repo}-{sha[:7]}`; `tar.gz/<ref>`
(where `github.com/<owner>/<repo>/archive/<ref>.tar.gz` redirects) has `{repo}-{name}`,
with the full SHA as the name when the ref is one.
"""

from __future__ import annotations

import gzip
import io
import os
import tarfile
import threading
from pathlib import Path

from fixture_server.tree import EntryKind, walk_tree

# Fixed so that the same commit always yields byte-identical archives.
ARCHIVE_MTIME = 1_700_000_000


def archive_prefix(owner: str, repo: str, sha: str) -> str:
    """The single top folder GitHub puts in a tarball: `{owner}-{repo}-{sha[:7]}`."""
    return f"{owner}-{repo}-{sha[:7]}"


def codeload_prefix(repo: str, ref: str, is_tag: bool) -> str:
    """The top folder of a `tar.gz/<ref>` archive: `{repo}-{name}`, where name is the ref
    without `refs/heads/` or `refs/tags/`, `/` made `-`, and a tag's leading `v` before a
    digit dropped (`v1.2.0` -> `1.2.0`); a full SHA stays whole."""
    name = ref.removeprefix("refs/heads/").removeprefix("refs/tags/")
    if is_tag and len(name) > 1 and name[0] == "v" and name[1].isdigit():
        name = name[1:]
    return f"{repo}-{name.replace('/', '-')}"


def build_tarball(folder: Path, prefix: str, sha: str) -> bytes:
    """A gzip tar of `folder` under `prefix/`, with a PAX global header whose comment is the
    commit SHA (as GitHub's archives carry). Files keep only the exec bit: 0o755 or 0o644."""
    raw = io.BytesIO()
    with tarfile.open(
        fileobj=raw, mode="w", format=tarfile.PAX_FORMAT, pax_headers={"comment": sha}
    ) as tar:
        tar.addfile(_info(prefix, tarfile.DIRTYPE, 0o755))
        for entry in walk_tree(folder):
            name = f"{prefix}/{entry.rel}"
            if entry.kind is EntryKind.DIR:
                tar.addfile(_info(name, tarfile.DIRTYPE, 0o755))
            elif entry.kind is EntryKind.SYMLINK:
                info = _info(name, tarfile.SYMTYPE, 0o777)
                info.linkname = os.readlink(entry.path)
                tar.addfile(info)
            else:
                data = entry.path.read_bytes()
                info = _info(name, tarfile.REGTYPE, 0o755 if entry.executable else 0o644)
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    return gzip.compress(raw.getvalue(), mtime=0)


def _info(name: str, kind: bytes, mode: int) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.mode = mode
    info.mtime = ARCHIVE_MTIME
    info.uid = info.gid = 0
    info.uname = info.gname = "root"
    return info


class ArchiveCache:
    """Archive bytes per (repository key, sha, top folder): built lazily, or overridden by
    a test (per sha: the override is served whatever the shape asked for)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._built: dict[tuple[str, str, str], bytes] = {}
        self._overrides: dict[tuple[str, str], bytes] = {}

    def set_override(self, repo_key: str, sha: str, data: bytes) -> None:
        with self._lock:
            self._overrides[(repo_key, sha.lower())] = data

    def has_override(self, repo_key: str, sha: str) -> bool:
        with self._lock:
            return (repo_key, sha.lower()) in self._overrides

    def get(self, repo_key: str, sha: str, folder: Path | None, prefix: str) -> bytes | None:
        """The archive for `sha`; `folder` is the commit's tree (None if only overridden).

        Two concurrent first requests may both build; the result is identical either way.
        """
        key = (repo_key, sha.lower())
        built_key = (*key, prefix)
        with self._lock:
            cached = self._overrides[key] if key in self._overrides else self._built.get(built_key)
        if cached is not None:
            return cached
        if folder is None:
            return None
        data = build_tarball(folder, prefix, sha)
        with self._lock:
            return self._built.setdefault(built_key, data)
