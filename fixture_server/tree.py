"""Walking a commit folder the way git sees it, and fingerprinting it.

Both the commit SHA and the tarball are derived from the same walk, so they can never
disagree about what a commit contains.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from enum import Enum
from pathlib import Path


class EntryKind(Enum):
    DIR = "dir"
    FILE = "file"
    SYMLINK = "symlink"


@dataclass(frozen=True)
class TreeEntry:
    """One entry of a commit tree; `rel` uses '/' separators and has no trailing slash."""

    rel: str
    kind: EntryKind
    path: Path
    executable: bool = False


def walk_tree(root: Path) -> list[TreeEntry]:
    """Entries under `root` in a deterministic pre-order (each folder before its contents).

    Like git, folders that contain no files are left out; symlinks are reported as
    links (never followed); sockets, FIFOs and devices are ignored.
    """
    if not root.is_dir():
        raise NotADirectoryError(f"commit folder does not exist: {root}")
    entries: list[TreeEntry] = []
    _walk(root, "", entries)
    return entries


def _walk(folder: Path, prefix: str, out: list[TreeEntry]) -> bool:
    added = False
    with os.scandir(folder) as scan:
        items = sorted(scan, key=lambda item: item.name)
    for item in items:
        rel = prefix + item.name
        path = Path(item.path)
        if item.is_symlink():
            out.append(TreeEntry(rel, EntryKind.SYMLINK, path))
        elif item.is_dir(follow_symlinks=False):
            slot = len(out)
            if _walk(path, rel + "/", out):
                out.insert(slot, TreeEntry(rel, EntryKind.DIR, path))
            else:
                continue
        elif item.is_file(follow_symlinks=False):
            mode = item.stat(follow_symlinks=False).st_mode
            out.append(TreeEntry(rel, EntryKind.FILE, path, bool(mode & 0o111)))
        else:
            continue
        added = True
    return added


def tree_digest(root: Path) -> bytes:
    """SHA-256 over every file's relative path, exec bit and content (links: their target)."""
    digest = hashlib.sha256()
    for entry in walk_tree(root):
        if entry.kind is EntryKind.DIR:
            continue
        if entry.kind is EntryKind.SYMLINK:
            tag, data = b"L", os.readlink(entry.path).encode()
        else:
            tag, data = (b"X" if entry.executable else b"F"), entry.path.read_bytes()
        digest.update(entry.rel.encode() + b"\0" + tag + str(len(data)).encode() + b"\0")
        digest.update(data)
    return digest.digest()


def commit_sha(owner: str, repo: str, label: str, folder: Path) -> str:
    """The fake but deterministic 40-hex commit SHA of `label`: changes with the content."""
    seed = f"{owner}/{repo}\0{label}\0".encode()
    return hashlib.sha1(seed + tree_digest(folder)).hexdigest()
