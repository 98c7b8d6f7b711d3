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


def check(root: Path, display: str) -> Iterator[Diagnostic]:
    if root.is_symlink():
        yield _link(display)
        return
    if not root.is_dir():
        return
    for folder, folders, files in os.walk(root):
        for name in sorted(folders + files):
            path = Path(folder, name)
            mode = os.lstat(path).st_mode
            shown = f"{display}/{path.relative_to(root).as_posix()}"
            if stat.S_ISLNK(mode):
                yield _link(shown)
            elif not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):
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
