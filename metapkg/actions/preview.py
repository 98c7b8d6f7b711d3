"""``--dry-run``: what an install would copy, remove and rewrite, computed without writing.

The same decisions provision/apply.py makes (an owned path holding the same package is
not copied again; an owned path no longer planned goes; each MCP config file is merged
by its host's writer and compared with what is there), read-only. A path the user
changed since metapkg wrote it is listed as removed here, where the real install would
keep it and say so.
"""

from __future__ import annotations

import os

from metapkg.provision.apply import Applied
from metapkg.provision.plan import Plan, writer_for
from metapkg.provision.scope import Scope
from metapkg.provision.state import Owned
from metapkg.textio import read_utf8


def preview(scope: Scope, plan: Plan, owned: Owned, reinstall: bool = False) -> Applied:
    copied = []
    for placement in plan.placements:
        before = owned.paths.get(placement.path)
        same = (
            before is not None
            and before.integrity == placement.integrity
            and before.written == placement.written
            and os.path.lexists(scope.locate(placement.path))
        )
        if reinstall or not same:
            copied.append(placement.path)
    wanted = set(plan.paths)
    gone = sorted(p for p in owned.paths if p not in wanted and os.path.lexists(scope.locate(p)))
    return Applied(tuple(copied), tuple(gone), tuple(_configs(scope, plan, owned)), False, owned)


def _configs(scope: Scope, plan: Plan, owned: Owned) -> list[str]:
    edits = [(edit.path, edit.writer, edit.entries) for edit in plan.configs]
    planned = {edit.path for edit in plan.configs}
    for path in sorted(owned.servers):
        writer = writer_for(path, scope.hosts)
        if path not in planned and writer is not None:
            edits.append((path, writer, {}))
    changed = []
    for path, writer, entries in edits:
        file = scope.locate(path)
        existing = read_utf8(file, "mcp-json", path) if os.path.lexists(file) else None
        text, _ = writer.merge(existing, owned.servers_in(path), entries, False)
        if text != existing:
            changed.append(path)
    return changed
