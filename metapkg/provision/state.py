"""What metapkg wrote into this project: the ownership record in ``.metapkg/state.json``.

It lists every path metapkg wrote, with the integrity of the package copied there, and
every ``.mcp.json`` server it wrote. Only these are ever replaced or deleted. The record
must be local: the lock moves between branches and machines, and `metapkg lock` rewrites
it without provisioning anything, so the lock cannot say what is on this disk. The same
file carries the up-to-date snapshot (uptodate.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from metapkg.provision import uptodate
from metapkg.provision.hosts import HOST_PATH


@dataclass(frozen=True)
class Owned:
    paths: Mapping[str, str] = field(default_factory=dict)  # path -> package integrity
    servers: frozenset[str] = frozenset()  # .mcp.json keys


def owned(project: Path) -> Owned | None:
    """What the last install here wrote; None when there is no record (a fresh clone).

    Paths of any other shape than metapkg writes are dropped, so a tampered state file
    cannot make metapkg delete other files.
    """
    saved = uptodate.read_saved(project)
    record = saved.get("owned") if saved else None
    if not isinstance(record, dict):
        return None
    paths, servers = record.get("paths"), record.get("servers")
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
    import json

    from metapkg.textio import write_atomic

    path = project / uptodate.STATE_FILE
    path.parent.mkdir(exist_ok=True)
    state = uptodate.snapshot(project, owned.paths, owned.servers, file_roots, values, version)
    write_atomic(path, json.dumps(state, sort_keys=True))
