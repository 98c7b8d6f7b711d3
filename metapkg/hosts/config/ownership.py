"""Which server entries metapkg may touch, the same for every config format.

metapkg owns only the entries it wrote (the install state records a hash of each), and
only while they still hash the same: those are replaced or dropped freely. Every other
entry is the user's: kept as it is, and a ``name-collision`` if a package wants its key
with different content. ``repair`` (`install --reinstall`) also replaces entries metapkg
wrote that were changed since. The result is the map of entries the file should hold;
the format modules turn the difference into edits.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from metapkg.diagnostics import ProvisionError


def entry_hash(entry: Any) -> str:
    """The hash of an MCP server entry as written (key order does not matter)."""
    text = json.dumps(entry, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def decide(
    current: Mapping[str, Any],
    owned: Mapping[str, str],
    wanted: Mapping[str, Mapping[str, Any]],
    repair: bool,
    where: str,
    container: str,
) -> tuple[dict[str, Any], dict[str, str]]:
    """(the entries the file should hold, name -> hash of the entries metapkg now owns)."""
    final: dict[str, Any] = dict(current)
    for name, written in owned.items():
        if name in final and entry_hash(final[name]) == written:
            del final[name]
    now: dict[str, str] = {}
    for name in sorted(wanted):
        entry = dict(wanted[name])
        repairable = repair and name in owned
        if name in final and final[name] != entry and not repairable:
            raise ProvisionError.single(
                "name-collision",
                where,
                f'{container}["{name}"] in {where} exists and was not written by metapkg; '
                f"remove or rename that entry to let metapkg provision it (nothing was changed)",
            )
        final[name] = entry
        now[name] = entry_hash(entry)
    return final, now
