"""Temporaries a killed metapkg left behind, and how ``write_atomic`` names them.

``write_atomic`` writes ``.<name>.<pid>.<thread>.tmp`` beside the file, then renames it
over the file. A SIGKILL between the two runs no cleanup, so the temporary stays in the
user's project (a kill during ``metapkg remove`` leaves ``.metapkg.yaml.<pid>...tmp``).
Every install removes those of processes that are gone (a live one may be about to
rename its own), before anything else, even when the project turns out up to date.

``os`` only (no pathlib): this runs on the path of every up-to-date ``metapkg install``,
which cli/quick.py answers before importing anything else.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy knows the name)
if TYPE_CHECKING:
    from pathlib import Path

# What metapkg writes with write_atomic in a project, outside any transaction.
PROJECT_FILES = ("metapkg.yaml", "metapkg.lock", ".gitignore")
STATE_FILES = ("state.json",)  # in .metapkg/


def temporary(path: Path) -> Path:
    """Where ``write_atomic`` writes ``path``'s new content before renaming it."""
    import threading

    return path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")


def sweep_project(project: str | Path) -> None:
    remove(os.fspath(project), PROJECT_FILES)
    remove(os.path.join(project, ".metapkg"), STATE_FILES)


def remove(folder: str, names: tuple[str, ...]) -> None:
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
            try:  # noqa: SIM105 (contextlib is not imported on the quick path)
                os.unlink(os.path.join(folder, entry))
            except OSError:
                pass


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process, or no way to tell: leave its file alone
        return True
    return True
