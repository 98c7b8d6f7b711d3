"""``--dry-run``: what an install would copy, remove and rewrite, computed without writing.

The same decisions provision/apply.py makes (an owned path holding the same package is
not copied again; an owned path no longer planned goes; each MCP config file is merged
by its host's writer and compared with what is there), read-only. A path the user
changed since metapkg wrote it is listed as removed here, where the real install would
keep it and say so.
"""

from __future__ import annotations

from metapkg.provision.apply import Applied, config_edits, merge_config, needs_copy, unwanted
from metapkg.provision.plan import Plan
from metapkg.provision.scope import Scope
from metapkg.provision.state import Owned


def preview(scope: Scope, plan: Plan, owned: Owned, reinstall: bool = False) -> Applied:
    copied = [p.path for p in plan.placements if needs_copy(scope, owned, p, reinstall)]
    gone = unwanted(scope, plan, owned)
    return Applied(tuple(copied), tuple(gone), tuple(_configs(scope, plan, owned)), False, owned)


def _configs(scope: Scope, plan: Plan, owned: Owned) -> list[str]:
    changed = []
    for edit in config_edits(scope, plan, owned):
        merged = merge_config(scope, owned, edit, False)
        if merged.after != merged.before:
            changed.append(edit.path)
    return changed
