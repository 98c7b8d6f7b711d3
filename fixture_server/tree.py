"""Walking a commit folder the way git sees it.

The commit SHA (`gitobjects.py`), the tarball (`archive.py`) and the bare repository
(`gitstore.py`) are all derived from the same walk, so they can never disagree about what
a commit contains.
"""

from __future__ import annotations

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
