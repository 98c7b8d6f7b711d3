"""``metapkg list``: the locked packages, one row each, from metapkg.lock alone."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from metapkg.actions.inspect import load_graph


@dataclass(frozen=True)
class Listed:
    kind: str
    fqn: str
    version: str | None
    origin: str
    commit: str | None
    direct: bool  # named in metapkg.yaml (else pulled in by another package)

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


def listing(project: Path) -> list[Listed]:
    lock, _, roots = load_graph(project)
    direct = set(roots)
    return [
        Listed(p.kind, p.fqn, p.version, p.origin, p.commit, p.key in direct) for p in lock.packages
    ]
