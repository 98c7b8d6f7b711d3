"""Is the project exactly as the last install left it? Decided from local state alone.

After a successful install metapkg saves, in ``.metapkg/state.json``, a snapshot: hashes
of the manifest, the lock and .mcp.json, the placeholder values, what it owns, and the
size and mtime of every owned path and of every file of every ``file:`` package (those
are re-read on each install). If a fresh snapshot equals the saved one, nothing can have
changed and install stops there: no YAML, no HTTP stack, no hashing of package trees.

This module is on the path of every up-to-date `metapkg install`, so it imports only
the standard library (no dataclasses either: importing it costs ~14 ms here).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from metapkg.safefile import read_regular

STATE_FILE = ".metapkg/state.json"
VERSION = 3


def _digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(read_regular(path)).hexdigest()
    except FileNotFoundError:
        return None
    except OSError:  # a folder, a FIFO, unreadable: certainly not what the last install saw
        return "unreadable"


def _stamp(path: Path | str) -> list[int] | None:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return [st.st_mtime_ns, st.st_size]


def _stamps(roots: Iterable[str]) -> dict[str, list[int] | None]:
    stamps: dict[str, list[int] | None] = {}
    for root in roots:
        stamps[root] = _stamp(root)
        if os.path.isdir(root):
            for folder, _, files in os.walk(root):
                for name in files:
                    child = os.path.join(folder, name)
                    stamps[child] = _stamp(child)
    return stamps


def snapshot(
    project: Path,
    owned: Mapping[str, object],
    file_roots: Iterable[str],
    values: Mapping[str, str],
    version: str,
) -> dict[str, object]:
    """The saved state: ownership (state.py's record, as JSON data) and stamps."""
    roots = sorted(set(file_roots))
    paths = owned.get("paths")
    servers = owned.get("servers")
    path_names = sorted(paths) if isinstance(paths, dict) else []
    configs = sorted(servers) if isinstance(servers, dict) else []
    return {
        "version": VERSION,
        "metapkg": version,
        "values": dict(values),
        "manifest": _digest(project / "metapkg.yaml"),
        "lock": _digest(project / "metapkg.lock"),
        "configs": {name: _digest(project / name) for name in configs},
        "owned": owned,
        "stamps": {p: _stamp(project / p) for p in path_names},
        "file-roots": roots,
        "file-packages": _stamps(roots),
    }


def read_saved(project: Path) -> dict[str, object] | None:
    try:
        saved = json.loads(read_regular(project / STATE_FILE, follow=False))
    except (OSError, ValueError, RecursionError):  # missing, special, damaged or hostile
        return None
    if not isinstance(saved, dict) or saved.get("version") != VERSION:
        return None
    return saved


def up_to_date(project: Path, values: Mapping[str, str], version: str) -> bool:
    """True when the last install's snapshot still describes the project exactly."""
    saved = read_saved(project)
    if saved is None:
        return False
    with contextlib.suppress(OSError):
        if any(name.startswith("tx-") for name in os.listdir(project / ".metapkg")):
            return False  # an interrupted install is waiting to be rolled back
    owned = saved.get("owned")
    roots = saved.get("file-roots")
    if not isinstance(owned, dict) or not isinstance(roots, list):
        return False
    return snapshot(project, owned, roots, values, version) == saved
