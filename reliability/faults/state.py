"""What a project looks like on disk, in a form two states can be compared in.

``snapshot`` covers everything a user or a host sees: every file (content and execute
bit), link and folder, except metapkg's private ``.metapkg/`` folder (its state file
carries timestamps). ``leftovers`` lists the transactions a run left unfinished there.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

STATE_DIR = ".metapkg"

Snapshot = dict[str, str]


def snapshot(project: Path) -> Snapshot:
    found: Snapshot = {}
    for folder, dirs, files in os.walk(project):
        here = Path(folder)
        relative_folder = here.relative_to(project).as_posix()
        if relative_folder == STATE_DIR or relative_folder.startswith(STATE_DIR + "/"):
            dirs[:] = []
            continue
        for name in sorted(dirs + files):
            path = here / name
            relative = path.relative_to(project).as_posix()
            if relative == STATE_DIR:
                continue
            found[relative] = _describe(path)
    return found


def _describe(path: Path) -> str:
    if path.is_symlink():
        return "link:" + os.readlink(path)
    if path.is_dir():
        return "dir"
    try:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    except OSError as exc:
        return f"unreadable:{exc.errno}"
    executable = "x" if os.stat(path).st_mode & 0o111 else "-"
    return f"file:{executable}:{digest}"


def leftovers(project: Path) -> list[str]:
    """Transaction folders (``.metapkg/tx-*``) still there."""
    state = project / STATE_DIR
    if not state.is_dir() or state.is_symlink():
        return []
    return sorted(p.name for p in state.glob("tx-*"))


def difference(actual: Snapshot, expected: Snapshot, limit: int = 4) -> str:
    """A short description of how two snapshots differ."""
    added = sorted(set(actual) - set(expected))
    removed = sorted(set(expected) - set(actual))
    changed = sorted(k for k in set(actual) & set(expected) if actual[k] != expected[k])
    parts = []
    for label, items in (("extra", added), ("missing", removed), ("changed", changed)):
        if items:
            more = f" (+{len(items) - limit})" if len(items) > limit else ""
            parts.append(f"{label}: {', '.join(items[:limit])}{more}")
    return "; ".join(parts) or "identical"
