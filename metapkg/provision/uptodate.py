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

STATE_FILE = ".metapkg/state.json"
VERSION = 2


def _digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        return None


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
    paths: Mapping[str, str],
    servers: Iterable[str],
    file_roots: Iterable[str],
    values: Mapping[str, str],
    version: str,
) -> dict[str, object]:
    """The saved state: ownership (``paths``: path -> integrity, ``servers``) and stamps."""
    roots = sorted(set(file_roots))
    return {
        "version": VERSION,
        "metapkg": version,
        "values": dict(values),
        "manifest": _digest(project / "metapkg.yaml"),
        "lock": _digest(project / "metapkg.lock"),
        "mcp": _digest(project / ".mcp.json"),
        "owned": {"paths": dict(sorted(paths.items())), "servers": sorted(servers)},
        "stamps": {p: _stamp(project / p) for p in sorted(paths)},
        "file-roots": roots,
        "file-packages": _stamps(roots),
    }


def read_saved(project: Path) -> dict[str, object] | None:
    try:
        saved = json.loads((project / STATE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
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
    paths, servers = owned.get("paths"), owned.get("servers")
    if not isinstance(paths, dict) or not isinstance(servers, list):
        return False
    return snapshot(project, paths, servers, roots, values, version) == saved
