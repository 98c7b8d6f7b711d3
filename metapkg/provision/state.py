"""What metapkg wrote into this project: the ownership record in ``.metapkg/state.json``.

It lists every path metapkg wrote, with the integrity of the package copied there and a
hash of exactly what was written, and every MCP server entry it wrote, per config file,
with a hash of the entry. Only these are ever replaced or deleted, and only while they
still hold what metapkg wrote: the record is a claim, the content is the proof, so a
tampered (or committed, or copied) state file naming a user's own folder or server entry
cannot make metapkg delete it. The record must be local: the lock moves between branches
and machines, and `metapkg lock` rewrites it without provisioning anything, so the lock
cannot say what is on this disk. The same file carries the up-to-date snapshot
(uptodate.py).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from metapkg.hosts.config.ownership import entry_hash
from metapkg.provision import uptodate
from metapkg.provision.scope import Scope

__all__ = ["Owned", "OwnedPath", "entry_hash", "owned", "save"]


@dataclass(frozen=True)
class OwnedPath:
    integrity: str  # of the package copied there: unchanged packages are not copied again
    written: str  # tree hash of what was written there: the proof that it is still ours


@dataclass(frozen=True)
class Owned:
    paths: Mapping[str, OwnedPath] = field(default_factory=dict)
    # MCP config file -> {server name: hash of the entry as written}
    servers: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    def servers_in(self, config: str) -> Mapping[str, str]:
        return self.servers.get(config, {})


def owned(scope: Scope) -> Owned | None:
    """What the last install here wrote; None when there is no record (a fresh clone).

    Entries of any other shape than metapkg writes in this scope are dropped.
    """
    saved = uptodate.read_saved(scope.base)
    record = saved.get("owned") if saved else None
    if not isinstance(record, dict):
        return None
    paths, servers = record.get("paths"), record.get("servers")
    found: dict[str, OwnedPath] = {}
    for path, item in (paths or {}).items() if isinstance(paths, dict) else ():
        if scope.allow.is_provisioned(path) and isinstance(item, dict):
            integrity, written = item.get("integrity"), item.get("written")
            if isinstance(integrity, str) and isinstance(written, str):
                found[path] = OwnedPath(integrity, written)
    entries: dict[str, dict[str, str]] = {}
    for config, names in (servers or {}).items() if isinstance(servers, dict) else ():
        if config in scope.allow.config_files and isinstance(names, dict):
            entries[config] = {n: h for n, h in names.items() if isinstance(h, str)}
    return Owned(found, entries)


def as_record(owned: Owned) -> dict[str, object]:
    return {
        "paths": {
            path: {"integrity": item.integrity, "written": item.written}
            for path, item in sorted(owned.paths.items())
        },
        "servers": {
            config: dict(sorted(names.items())) for config, names in sorted(owned.servers.items())
        },
    }


def save(
    project: Path, owned: Owned, file_roots: Iterable[str], values: Mapping[str, str], version: str
) -> None:
    from metapkg.textio import write_atomic

    path = project / uptodate.STATE_FILE
    path.parent.mkdir(exist_ok=True)
    state = uptodate.snapshot(project, as_record(owned), file_roots, values, version)
    write_atomic(path, json.dumps(state, sort_keys=True))
