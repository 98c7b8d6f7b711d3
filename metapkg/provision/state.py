"""What metapkg wrote into this project, and whether anything changed since.

``.metapkg/state.json`` (local, never committed) is written after every successful
install. It holds two things:

* **Ownership**: every path metapkg wrote, with the integrity of the package copied
  there, and every ``.mcp.json`` server it wrote. Only these are ever replaced or
  deleted. This must be local: the lock moves between branches and machines, and
  `metapkg lock` rewrites it without provisioning anything, so the lock cannot say what
  is on this disk.
* **A snapshot** for the up-to-date check: hashes of the manifest, the lock and
  .mcp.json, the placeholder values, and the size and mtime of every owned path and of
  every file of every ``file:`` package (those are re-read on each install). If all of it
  still matches, nothing can have changed and install stops there: no YAML parsing, no
  HTTP stack, no hashing of package trees.

This module must stay cheap to import: standard library (and hosts.py) only.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from metapkg.provision.hosts import HOST_PATH

STATE_FILE = ".metapkg/state.json"
_VERSION = 2


@dataclass(frozen=True)
class Owned:
    paths: Mapping[str, str] = field(default_factory=dict)  # path -> package integrity
    servers: frozenset[str] = frozenset()  # .mcp.json keys


def _digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        return None


def _stamp(path: Path) -> list[int] | None:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return [st.st_mtime_ns, st.st_size]


def _stamps(paths: Iterable[Path]) -> dict[str, list[int] | None]:
    stamps: dict[str, list[int] | None] = {}
    for path in paths:
        stamps[str(path)] = _stamp(path)
        if path.is_dir():
            for folder, _, files in os.walk(path):
                for name in files:
                    child = os.path.join(folder, name)
                    stamps[child] = _stamp(Path(child))
    return stamps


def _snapshot(
    project: Path, owned: Owned, file_roots: Iterable[str], values: Mapping[str, str], version: str
) -> dict[str, object]:
    roots = sorted(set(file_roots))
    return {
        "version": _VERSION,
        "metapkg": version,
        "values": dict(values),
        "manifest": _digest(project / "metapkg.yaml"),
        "lock": _digest(project / "metapkg.lock"),
        "mcp": _digest(project / ".mcp.json"),
        "owned": {"paths": dict(sorted(owned.paths.items())), "servers": sorted(owned.servers)},
        "stamps": {p: _stamp(project / p) for p in sorted(owned.paths)},
        "file-roots": roots,
        "file-packages": _stamps(Path(r) for r in roots),
    }


def _read(project: Path) -> dict[str, object] | None:
    try:
        saved = json.loads((project / STATE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(saved, dict) or saved.get("version") != _VERSION:
        return None
    return saved


def owned(project: Path) -> Owned | None:
    """What the last install here wrote; None when there is no record (a fresh clone)."""
    saved = _read(project)
    record = saved.get("owned") if saved else None
    if not isinstance(record, dict):
        return None
    paths = record.get("paths", {})
    servers = record.get("servers", [])
    return Owned(
        {p: i for p, i in paths.items() if HOST_PATH.match(p) and isinstance(i, str)}
        if isinstance(paths, dict)
        else {},
        frozenset(s for s in servers if isinstance(s, str))
        if isinstance(servers, list)
        else frozenset(),
    )


def save(
    project: Path, owned: Owned, file_roots: Iterable[str], values: Mapping[str, str], version: str
) -> None:
    path = project / STATE_FILE
    path.parent.mkdir(exist_ok=True)
    temporary = path.with_suffix(".tmp")
    snapshot = _snapshot(project, owned, file_roots, values, version)
    temporary.write_text(json.dumps(snapshot, sort_keys=True), encoding="utf-8")
    temporary.replace(path)


def up_to_date(project: Path, values: Mapping[str, str], version: str) -> bool:
    """True when the last install's snapshot still describes the project exactly."""
    saved = _read(project)
    if saved is None:
        return False
    with contextlib.suppress(OSError):
        if any(name.startswith("tx-") for name in os.listdir(project / ".metapkg")):
            return False  # an interrupted install is waiting to be rolled back
    roots = saved.get("file-roots", [])
    record = owned(project) or Owned()
    current = _snapshot(project, record, roots if isinstance(roots, list) else [], values, version)
    return current == saved
