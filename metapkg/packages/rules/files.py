"""The files of a package: regular files and folders only.

Install refuses links and special files (they cannot be hashed or copied safely, and a
link can point anywhere on the author's disk), so ``check`` reports them first.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from metapkg.diagnostics import Diagnostic, error
from metapkg.integrity import MAX_DEPTH  # install refuses deeper packages too


def check(root: Path, display: str) -> Iterator[Diagnostic]:
    """Entries are judged by the type their directory listing gives (d_type), which costs
    no system call; the file system may not say, and then os.DirEntry asks lstat."""
    if root.is_symlink():
        yield _link(display)
        return
    if not root.is_dir():
        return
    pending: list[tuple[str | Path, str, int]] = [(root, display, 0)]
    while pending:  # iterative and bounded: a hostile package can nest folders very deep
        folder, shown_folder, depth = pending.pop()
        if depth > MAX_DEPTH:
            yield error("link", shown_folder, f"nested more than {MAX_DEPTH} folders deep")
            continue
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            why = exc.strerror or type(exc).__name__
            yield error(
                "layout", shown_folder, f"cannot read this folder ({why}); check its permissions"
            )
            continue
        for entry in entries:
            shown = f"{shown_folder}/{entry.name}"
            if entry.is_symlink():
                yield _link(shown)
            elif entry.is_dir(follow_symlinks=False):
                pending.append((entry.path, shown, depth + 1))
            elif not entry.is_file(follow_symlinks=False):
                yield error(
                    "link", shown, "not a regular file; packages hold files and folders only"
                )


def _link(shown: str) -> Diagnostic:
    return error(
        "link",
        shown,
        "a symbolic link; packages may not contain links (metapkg refuses them at install): "
        "replace it with the file itself",
    )
