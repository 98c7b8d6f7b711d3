"""What metapkg wrote into this project: the ownership record in ``.metapkg/state.json``.

It lists every path metapkg wrote, with the integrity of the package copied there and a
hash of exactly what was written, and every MCP server entry it wrote, per config file,
with a hash of the entry. Only these are ever replaced or deleted, and only while they
still hold what metapkg wrote: the record is a claim, the content is the proof, so a
tampered (or committed, or copied) state file naming a user's own folder or server entry
cannot make metapkg delete it. The record must be local: the lock moves between branches
and machines, and `metapkg lock` rewrites it without provisioning anything, so the lock
cannot say what is on this disk. Beside it, ``.metapkg/uptodate`` describes the
project as the install left it (uptodate.py).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from metapkg.hosts.config.baseline import Baseline, from_record
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
    # MCP config files metapkg created (no file was there): removed once they hold nothing
    # of metapkg's; any other config file is the user's and stays, even empty.
    created: frozenset[str] = frozenset()
    # config file of the user's -> how to give its bytes back once metapkg's entries
    # leave it (hosts/config/baseline.py)
    baselines: Mapping[str, Baseline] = field(default_factory=dict)

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
    made = record.get("created-configs")
    created = frozenset(
        c for c in (made if isinstance(made, list) else []) if c in scope.allow.config_files
    )
    kept = record.get("config-baselines")
    baselines = {
        config: baseline
        for config, item in (kept.items() if isinstance(kept, dict) else ())
        if config in scope.allow.config_files and (baseline := from_record(item)) is not None
    }
    return Owned(found, entries, created, baselines)


def as_record(owned: Owned) -> dict[str, object]:
    return {
        "paths": {
            path: {"integrity": item.integrity, "written": item.written}
            for path, item in sorted(owned.paths.items())
        },
        "servers": {
            config: dict(sorted(names.items())) for config, names in sorted(owned.servers.items())
        },
        "created-configs": sorted(owned.created),
        "config-baselines": {
            config: baseline.as_record() for config, baseline in sorted(owned.baselines.items())
        },
    }


def save(
    project: Path, owned: Owned, file_roots: Iterable[str], values: Mapping[str, str], version: str
) -> None:
    """Write the ownership record, then the up-to-date record that describes the result."""
    from metapkg.textio import write_atomic

    path = project / uptodate.STATE_FILE
    path.parent.mkdir(exist_ok=True)
    state = {"version": uptodate.VERSION, "metapkg": version, "owned": as_record(owned)}
    write_atomic(path, json.dumps(state, sort_keys=True))
    configs = sorted(owned.servers)
    quick = uptodate.record(str(project), owned.paths, configs, file_roots, values, version)
    # Not durable: after a crash an old, empty or missing record only means a full install.
    write_atomic(project / uptodate.RECORD, quick, durable=False)
