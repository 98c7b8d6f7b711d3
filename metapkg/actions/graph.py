"""``metapkg graph``: draw the resolved graph from metapkg.lock, without the network."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from metapkg.actions.inspect import load_graph
from metapkg.diagnostics import MetapkgError
from metapkg.graph import model, registry, select
from metapkg.lock import format as lockfmt


@dataclass(frozen=True)
class Picture:
    text: str
    packages: int
    dependencies: int


def graph(
    project: Path,
    fmt: str,
    fqn: str | None = None,
    why: str | None = None,
    depth: int | None = None,
) -> Picture:
    """``fqn``: only what it pulls in; ``why``: only the chains to it (from ``fqn`` when
    given, else from the project's direct dependencies); ``depth``: edges from the focus."""
    lock, _, _ = load_graph(project)
    return draw(lock, project, fmt, fqn, why, depth)


def draw(
    lock: lockfmt.Lockfile,
    project: Path,
    fmt: str,
    fqn: str | None = None,
    why: str | None = None,
    depth: int | None = None,
) -> Picture:
    """The picture of a lock already read (``graph`` reads the project's)."""
    roots = list(dict.fromkeys((r.kind, r.fqn) for r in lock.requires))
    full = model.from_lock(lock)
    starts = _named(full, fqn) if fqn else roots
    if why:
        targets = _named(full, why)
        view = select.merge(full, [select.chains(full, starts, t, depth) for t in targets])
    elif fqn or depth is not None:
        view = select.reachable(full, starts, depth)
    else:
        view = full  # everything locked, even what a hand edit left unreachable
    renderer = registry.renderer(fmt)
    if renderer.wants_changelogs:
        from metapkg.graph.details import with_changelogs

        view = with_changelogs(view, lock, project)
    return Picture(renderer.render(view), len(view.nodes), len(view.edges))


def _named(view: model.View, fqn: str) -> list[model.Key]:
    keys = select.keys_named(view, fqn)
    if not keys:
        raise MetapkgError.single(
            "missing", lockfmt.FILENAME, f"{fqn} is not in the resolved graph; see `metapkg tree`"
        )
    return keys
