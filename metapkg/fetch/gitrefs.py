"""Refs and tags of a GitHub repository from git's smart-HTTP ref advertisement.

``GET <web>/<owner>/<repo>.git/info/refs?service=git-upload-pack`` (``webhost.py`` builds
the URL) lists every branch and tag with its commit in one request that does not count
against the REST API's quota. Sent without a ``Git-Protocol`` header, the answer is the
protocol v0 advertisement, a sequence of pkt-lines (four hex digits giving the line's
length, the four included; ``0000`` is a flush)::

    001e# service=git-upload-pack\\n
    0000
    <sha> HEAD\\0<capabilities, e.g. symref=HEAD:refs/heads/main>\\n
    <sha> refs/heads/main\\n
    <tag object sha> refs/tags/v1.0.0\\n
    <commit sha> refs/tags/v1.0.0^{}\\n        annotated tags: the peeled commit
    0000

The body comes from the network, so it is parsed strictly and within bounds: anything
malformed (a bad length, a line cut short, a ref twice, a peeled line with no tag before
it, bytes after the end) raises :class:`AdvertisementError`, never another exception, and
the parse is one pass over at most ``MAX_ADVERTISEMENT_BYTES``. Standard library only.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from metapkg.diagnostics import FetchError, error

CONTENT_TYPE = "application/x-git-upload-pack-advertisement"
# github.com also advertises refs/pull/*: a repository with a hundred thousand pull
# requests sends some 15 MB. Larger bodies are refused (use the REST fallback).
MAX_ADVERTISEMENT_BYTES = 64 * 1024 * 1024
MAX_PKT_LEN = 65520  # git's LARGE_PACKET_MAX
ZERO_ID = "0" * 40

_OID = re.compile(r"[0-9a-f]{40}")
_FULL_SHA = re.compile(r"[0-9a-fA-F]{40}")
_ABBREVIATED_SHA = re.compile(r"[0-9a-fA-F]{7,39}")
_HEX4 = re.compile(rb"[0-9a-fA-F]{4}")
_SERVICE_LINE = b"# service=git-upload-pack"
_PEELED = "^{}"


class AdvertisementError(FetchError):
    """The body is not a well-formed ref advertisement (the caller may fall back to REST)."""


@dataclass(frozen=True)
class Advertisement:
    """What a repository advertises.

    ``refs``: full ref name (``refs/heads/main``, ``refs/tags/v1.0.0``, ...) -> commit,
    annotated tags already peeled to the commit they tag. ``head``: the commit of HEAD;
    ``head_target``: the ref HEAD points to (from the ``symref`` capability), if told.
    """

    refs: Mapping[str, str]
    head: str | None = None
    head_target: str | None = None
    capabilities: frozenset[str] = field(default_factory=frozenset)

    def branches(self) -> dict[str, str]:
        """Branch name -> commit."""
        return _under(self.refs, "refs/heads/")

    def tags(self) -> dict[str, str]:
        """Tag name -> commit (annotated tags peeled)."""
        return _under(self.refs, "refs/tags/")

    def resolve(self, ref: str) -> str | None:
        """The commit ``ref`` names, as GitHub's ``GET /repos/{repo}/commits/{ref}`` would
        resolve it: a full SHA (returned lowercased, *not* checked: a SHA the repository
        lacks is found out when its archive is asked for), ``HEAD``, a branch (which wins
        over a tag of the same name, as on GitHub), a tag, or a qualified name
        (``refs/heads/x``, ``heads/x``, ``refs/tags/x``, ``tags/x``, ``refs/pull/1/head``).
        None when no ref matches; an abbreviated SHA (see :func:`might_be_abbreviated_sha`)
        can only be resolved by the REST API."""
        if _FULL_SHA.fullmatch(ref):
            return ref.lower()
        if ref == "HEAD":
            return self.head
        for name in (f"refs/heads/{ref}", f"refs/tags/{ref}"):
            if name in self.refs:
                return self.refs[name]
        if ref.startswith("refs/"):
            return self.refs.get(ref)
        if ref.startswith(("heads/", "tags/")):
            return self.refs.get(f"refs/{ref}")
        return None


def might_be_abbreviated_sha(ref: str) -> bool:
    """7 to 39 hex digits: a ref the advertisement cannot resolve but REST might."""
    return bool(_ABBREVIATED_SHA.fullmatch(ref))


def _under(refs: Mapping[str, str], prefix: str) -> dict[str, str]:
    return {name[len(prefix) :]: sha for name, sha in refs.items() if name.startswith(prefix)}


def parse_advertisement(
    data: bytes, source: str, max_bytes: int = MAX_ADVERTISEMENT_BYTES
) -> Advertisement:
    """Parse the body of a ``service=git-upload-pack`` info/refs answer.

    ``source`` (the URL, without credentials) names the answer in errors."""
    if len(data) > max_bytes:
        raise _bad(source, f"the ref advertisement is larger than {max_bytes} bytes")
    packets = _Packets(data, source)
    if packets.next() != _SERVICE_LINE or packets.next() is not None:
        raise _bad(source, "the answer does not start with git's smart-HTTP service line")
    builder = _Builder(source)
    line = packets.next()
    if line is not None and line.startswith(b"version "):
        if line != b"version 1":
            raise _bad(source, f"unexpected protocol {_show(line)} (v0 or v1 was asked for)")
        line = packets.next()
    while line is not None:
        builder.add(line)
        line = packets.next()
    if not packets.at_end():
        raise _bad(source, "data after the ref advertisement's closing flush")
    return builder.result()


class _Packets:
    """pkt-lines of a body: ``next()`` returns a payload without its trailing newline, or
    None for a flush; anything else (delimiters, bad lengths, a cut) is an error."""

    def __init__(self, data: bytes, source: str) -> None:
        self._data = data
        self._at = 0
        self._source = source

    def at_end(self) -> bool:
        return self._at == len(self._data)

    def next(self) -> bytes | None:
        head = self._data[self._at : self._at + 4]
        if len(head) < 4:
            raise _bad(self._source, "the ref advertisement is cut short")
        if not _HEX4.fullmatch(head):
            raise _bad(self._source, f"bad pkt-line length {_show(head)}")
        size = int(head, 16)
        if size == 0:
            self._at += 4
            return None
        if size < 4 or size > MAX_PKT_LEN:
            raise _bad(self._source, f"pkt-line length {size} is not valid here")
        payload = self._data[self._at + 4 : self._at + size]
        if len(payload) < size - 4:
            raise _bad(self._source, "the ref advertisement is cut short")
        self._at += size
        return payload.removesuffix(b"\n")


class _Builder:
    """Collects ref lines in order, with the rules that tie them together."""

    def __init__(self, source: str) -> None:
        self._source = source
        self._refs: dict[str, str] = {}
        self._head: str | None = None
        self._capabilities: frozenset[str] | None = None
        self._last: str | None = None  # the ref a peeled line may follow
        self._empty = False  # the `capabilities^{}` line of a repository with no refs
        self._shallow = False

    def add(self, line: bytes) -> None:
        if self._capabilities is None:
            line, _, capabilities = line.partition(b"\0")
            self._capabilities = _capabilities(capabilities, self._source)
        elif b"\0" in line:
            raise _bad(self._source, "a NUL byte after the first ref line")
        text = _decode(line, self._source)
        if text.startswith("shallow "):
            _oid(text[len("shallow ") :], self._source)
            self._shallow = True
            return
        oid, sep, name = text.partition(" ")
        if not sep or self._shallow or self._empty:
            raise _bad(self._source, f"unexpected line {_show(line)}")
        oid = _oid(oid, self._source)
        if name == "capabilities" + _PEELED and oid == ZERO_ID and not self._refs:
            self._empty = True
        elif name.endswith(_PEELED):
            self._peel(name.removesuffix(_PEELED), oid)
        else:
            self._ref(name, oid)

    def _peel(self, name: str, oid: str) -> None:
        if name != self._last:
            raise _bad(self._source, f"peeled line for {name!r} does not follow that ref")
        self._refs[name] = oid
        self._last = None

    def _ref(self, name: str, oid: str) -> None:
        _check_ref_name(name, self._source)
        if name == "HEAD":
            if self._head is not None or self._refs:
                raise _bad(self._source, "HEAD is not the first ref")
            self._head = oid
            return
        if name in self._refs:
            raise _bad(self._source, f"ref {name!r} is advertised twice")
        self._refs[name] = oid
        self._last = name

    def result(self) -> Advertisement:
        capabilities = self._capabilities or frozenset()
        target = next(
            (c.removeprefix("symref=HEAD:") for c in capabilities if c.startswith("symref=HEAD:")),
            None,
        )
        return Advertisement(dict(self._refs), self._head, target, capabilities)


def _capabilities(raw: bytes, source: str) -> frozenset[str]:
    capabilities = frozenset(_decode(raw, source).split())
    for capability in capabilities:
        if capability.startswith("object-format=") and capability != "object-format=sha1":
            raise _bad(source, f"the repository uses {capability}; only SHA-1 is supported")
    return capabilities


def _oid(text: str, source: str) -> str:
    if not _OID.fullmatch(text):
        raise _bad(source, f"{_show(text.encode())} is not a 40-hex object id")
    return text


def _check_ref_name(name: str, source: str) -> None:
    """The shape git allows (see git-check-ref-format), loosely: enough that a name can be
    used in a URL path and a message safely."""
    bad = (
        not name
        or name.startswith(("/", "-"))
        or name.endswith(("/", ".", ".lock"))
        or ".." in name
        or "//" in name
        or any(c.isspace() or ord(c) < 0x20 or c == "\x7f" or c in "~^:?*[\\" for c in name)
    )
    if bad or (name != "HEAD" and not name.startswith("refs/")):
        raise _bad(source, f"{name!r} is not a valid ref name")


def _decode(raw: bytes, source: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise _bad(source, f"{_show(raw)} is not UTF-8") from None


def _show(raw: bytes) -> str:
    """A short, printable rendering of untrusted bytes for a message."""
    return repr(raw[:60])[1:] + ("..." if len(raw) > 60 else "")


def _bad(source: str, why: str) -> AdvertisementError:
    return AdvertisementError([error("fetch", source, f"malformed git ref advertisement: {why}")])
