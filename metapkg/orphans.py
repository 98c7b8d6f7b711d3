"""Temporaries a killed metapkg left behind, and how ``write_atomic`` names them.

``write_atomic`` writes ``.<name>.<pid>.<thread>.tmp`` beside the file, then renames it
over the file. A SIGKILL between the two runs no cleanup, so the temporary stays in the
user's project (a kill during ``metapkg remove`` leaves ``.metapkg.yaml.<pid>...tmp``).
Every install removes those of processes that are gone (a live one may be about to
rename its own), before anything else, even when the project turns out up to date.

Standard library only: this runs on the path of every up-to-date ``metapkg install``.
"""

from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path

# What metapkg writes with write_atomic in a project, outside any transaction.
PROJECT_FILES = ("metapkg.yaml", "metapkg.lock", ".gitignore")
STATE_FILES = ("state.json",)  # in .metapkg/


def temporary(path: Path) -> Path:
    """Where ``write_atomic`` writes ``path``'s new content before renaming it."""
    return path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")


def sweep_project(project: Path) -> None:
    remove(project, PROJECT_FILES)
    remove(project / ".metapkg", STATE_FILES)


def remove(folder: Path, names: tuple[str, ...]) -> None:
    """Delete the temporaries of ``names`` in ``folder`` whose writer is gone."""
    if os.name == "nt":  # os.kill(pid, 0) would terminate the process there
        return
    prefixes = tuple(f".{name}." for name in names)
    try:
        entries = [e.name for e in os.scandir(folder) if e.name.startswith(prefixes)]
    except OSError:
        return
    for entry in entries:
        if not entry.endswith(".tmp"):
            continue
        pid = next(entry[len(p) :] for p in prefixes if entry.startswith(p)).split(".", 1)[0]
        if pid.isdigit() and not _alive(int(pid)):
            with contextlib.suppress(OSError):
                os.unlink(folder / entry)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process, or no way to tell: leave its file alone
        return True
    return True
