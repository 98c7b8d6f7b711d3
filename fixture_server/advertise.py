"""git's smart-HTTP ref advertisement (protocol v0/v1), as github.com sends it.

    GET /<owner>/<repo>.git/info/refs?service=git-upload-pack
    Content-Type: application/x-git-upload-pack-advertisement

    001e# service=git-upload-pack\\n
    0000
    <pkt><sha> HEAD\\0<capabilities, with symref=HEAD:refs/heads/main>\\n
    <pkt><sha> refs/heads/main\\n
    <pkt><tag object> refs/tags/v1.0.0\\n
    <pkt><commit> refs/tags/v1.0.0^{}\\n      (annotated tags only: the peeled commit)
    0000

Each pkt-line is four hex digits giving its length (the four included), then the payload;
`0000` is a flush. Refs after HEAD come in byte order of their names. A repository with no
refs advertises the capabilities on a zero-id `capabilities^{}` line, as git does. Built
here in Python (no `git` binary), from the same commit ids as the REST answers.
"""

from __future__ import annotations

from fixture_server.gitobjects import tag_id
from fixture_server.repos import Repo

CONTENT_TYPE = "application/x-git-upload-pack-advertisement"
FLUSH = b"0000"
ZERO_ID = "0" * 40
MAX_PKT_LEN = 65520
# What github.com's upload-pack advertises (minus its agent string); all of them are also
# honoured by the `git upload-pack` that serves the fixture's POST requests (gitstore.py).
CAPABILITIES = (
    "multi_ack thin-pack side-band side-band-64k ofs-delta shallow deepen-since deepen-not "
    "deepen-relative no-progress include-tag multi_ack_detailed allow-tip-sha1-in-want "
    "allow-reachable-sha1-in-want no-done filter object-format=sha1"
)
AGENT = "agent=git/fixture-github"


def pkt_line(payload: bytes) -> bytes:
    size = len(payload) + 4
    if size > MAX_PKT_LEN:
        raise ValueError(f"pkt-line payload of {len(payload)} bytes is too long")
    return f"{size:04x}".encode() + payload


def advertised_refs(repo: Repo) -> list[tuple[str, str]]:
    """(ref name, object id) in advertisement order: HEAD, then every branch and tag by
    name, each annotated tag followed by its peeled `^{}` line."""
    refs: dict[str, str] = {}
    for branch, label in repo.branches.items():
        refs[f"refs/heads/{branch}"] = repo.commits[label].sha
    for tag, label in repo.tags.items():
        refs[f"refs/tags/{tag}"] = repo.commits[label].sha
    ordered: list[tuple[str, str]] = []
    head = refs.get(f"refs/heads/{repo.default_branch}")
    if head is not None:
        ordered.append(("HEAD", head))
    for name in sorted(refs, key=lambda ref: ref.encode()):
        tag = name.removeprefix("refs/tags/")
        if name.startswith("refs/tags/") and tag in repo.annotated:
            ordered.append((name, tag_id(refs[name], tag)))
            ordered.append((name + "^{}", refs[name]))
        else:
            ordered.append((name, refs[name]))
    return ordered


def advertisement(repo: Repo) -> bytes:
    """The whole response body for `service=git-upload-pack`."""
    capabilities = CAPABILITIES
    if repo.default_branch in repo.branches:
        capabilities += f" symref=HEAD:refs/heads/{repo.default_branch}"
    capabilities += f" {AGENT}"
    refs = advertised_refs(repo) or [("capabilities^{}", ZERO_ID)]
    lines = [pkt_line(b"# service=git-upload-pack\n"), FLUSH]
    for index, (name, oid) in enumerate(refs):
        payload = f"{oid} {name}".encode()
        if index == 0:
            payload += b"\0" + capabilities.encode()
        lines.append(pkt_line(payload + b"\n"))
    lines.append(FLUSH)
    return b"".join(lines)
