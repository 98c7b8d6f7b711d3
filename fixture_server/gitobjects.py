"""Real git objects (blobs, trees, commits, annotated tags) for fixture commit folders.

A fixture commit's SHA is the id of a real git commit object made from its folder, so the
same SHA names the commit in the REST answers, in the ref advertisement and in the bare
repository that `git` clients fetch from (`gitstore.py`). The commit is a root commit
with a fixed author and date whose message names the repository and the fixture label:
the same folder under two labels gives two commits, as before.

Standard library only: ids are computed here without the `git` binary, so the REST and
ref-advertisement endpoints never need it.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path

from fixture_server.tree import EntryKind, walk_tree

# Fixed so that the same folder always yields the same commit.
FIXTURE_TIME = 1_700_000_000
FIXTURE_PERSON = f"Fixture GitHub <fixture@example.invalid> {FIXTURE_TIME} +0000"

# Receives every object made (kind, id, content), e.g. to write it into a repository.
ObjectSink = Callable[[str, str, bytes], None]


def object_id(kind: str, content: bytes) -> str:
    """git's object id: SHA-1 over `<kind> <size>\\0<content>`."""
    return hashlib.sha1(f"{kind} {len(content)}\0".encode() + content).hexdigest()


def _emit(kind: str, content: bytes, sink: ObjectSink | None) -> str:
    oid = object_id(kind, content)
    if sink is not None:
        sink(kind, oid, content)
    return oid


def tree_id(folder: Path, sink: ObjectSink | None = None) -> str:
    """The id of the tree git would record for `folder` (files, exec bits, symlinks; empty
    folders left out), passing every blob and tree to `sink` on the way."""
    entries = walk_tree(folder)
    # Children of each folder, keyed by the folder's relative path ("" is the root).
    children: dict[str, list[tuple[str, str, str]]] = {"": []}
    for entry in reversed(entries):  # contents before their folder
        parent, _, name = entry.rel.rpartition("/")
        if entry.kind is EntryKind.DIR:
            content = _tree_content(children.pop(entry.rel, []))
            children.setdefault(parent, []).append(("40000", name, _emit("tree", content, sink)))
            continue
        if entry.kind is EntryKind.SYMLINK:
            mode, data = "120000", os.readlink(entry.path).encode()
        else:
            mode, data = ("100755" if entry.executable else "100644"), entry.path.read_bytes()
        children.setdefault(parent, []).append((mode, name, _emit("blob", data, sink)))
    return _emit("tree", _tree_content(children[""]), sink)


def _tree_content(items: list[tuple[str, str, str]]) -> bytes:
    """Entries in git's order: by name, a folder's name compared as if it ended in '/'."""

    def key(item: tuple[str, str, str]) -> bytes:
        mode, name, _ = item
        return name.encode() + (b"/" if mode == "40000" else b"")

    return b"".join(
        f"{mode} {name}".encode() + b"\0" + bytes.fromhex(oid)
        for mode, name, oid in sorted(items, key=key)
    )


def commit_content(tree: str, owner: str, repo: str, label: str) -> bytes:
    return (
        f"tree {tree}\nauthor {FIXTURE_PERSON}\ncommitter {FIXTURE_PERSON}\n\n"
        f"{label}\n\nfixture commit {label!r} of {owner}/{repo}\n"
    ).encode()


def commit_id(
    owner: str, repo: str, label: str, folder: Path, sink: ObjectSink | None = None
) -> str:
    """The id of the fixture commit `label` of `owner/repo` made from `folder`."""
    return _emit("commit", commit_content(tree_id(folder, sink), owner, repo, label), sink)


def tag_content(commit: str, name: str) -> bytes:
    return (
        f"object {commit}\ntype commit\ntag {name}\ntagger {FIXTURE_PERSON}\n\n{name}\n"
    ).encode()


def tag_id(commit: str, name: str, sink: ObjectSink | None = None) -> str:
    """The id of the annotated tag object `name` pointing at `commit`."""
    return _emit("tag", tag_content(commit, name), sink)
