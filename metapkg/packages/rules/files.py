"""The files of a package: regular files and folders only.

Install refuses links and special files (they cannot be hashed or copied safely, and a
link can point anywhere on the author's disk), so ``check`` reports them first.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

from metapkg.diagnostics import Diagnostic, error
from metapkg.integrity import MAX_DEPTH  # install refuses deeper packages too


def check(root: Path, display: str) -> Iterator[Diagnostic]:
    if root.is_symlink():
        yield _link(display)
        return
    if not root.is_dir():
        return
    pending = [(root, display, 0)]
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
            mode = entry.stat(follow_symlinks=False).st_mode
            shown = f"{shown_folder}/{entry.name}"
            if stat.S_ISLNK(mode):
                yield _link(shown)
            elif stat.S_ISDIR(mode):
                pending.append((Path(entry.path), shown, depth + 1))
            elif not stat.S_ISREG(mode):
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
