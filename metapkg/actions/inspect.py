"""``metapkg tree`` and ``metapkg why``: read the graph from metapkg.lock."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from metapkg.diagnostics import LockError, MetapkgError
from metapkg.lock import format as lockfmt
from metapkg.resolve import graph

Key = graph.Key


def load_graph(project: Path) -> tuple[lockfmt.Lockfile, dict[Key, list[Key]], list[Key]]:
    lock = lockfmt.read(project / lockfmt.FILENAME)
    if lock is None:
        raise LockError.single(
            "lock",
            lockfmt.FILENAME,
            "there is no metapkg.lock; run `metapkg lock` or `metapkg install`",
        )
    edges = {p.key: list(p.dependencies) for p in lock.packages}
    roots = list(dict.fromkeys((r.kind, r.fqn) for r in lock.requires))
    return lock, edges, roots


def tree(project: Path) -> list[str]:
    lock, edges, roots = load_graph(project)
    describe = {p.key: f"{p.label} {p.version}" if p.version else p.label for p in lock.packages}
    parts = {p.key: p.parts for p in lock.packages if p.parts}
    return graph.render_tree(edges, roots, describe, parts)


def tree_data(project: Path) -> dict[str, Any]:
    """The graph as data (`metapkg tree --json`)."""
    lock, _, roots = load_graph(project)
    return {
        "requires": [_ref(key) for key in roots],
        "packages": [
            {
                **_ref(package.key),
                "version": package.version,
                "dependencies": [_ref(d) for d in package.dependencies],
                **({"parts": list(package.parts)} if package.parts else {}),
            }
            for package in lock.packages
        ],
    }


def why(project: Path, fqn: str) -> list[list[Key]]:
    """Every chain from a direct dependency to the package(s) named ``fqn``."""
    lock, edges, roots = load_graph(project)
    targets = [p.key for p in lock.packages if p.fqn == fqn]
    if not targets:
        shorts = [p.key for p in lock.packages if p.fqn.rsplit("/", 1)[-1] == fqn]
        if len({key[1] for key in shorts}) == 1:
            targets = shorts
    if not targets:
        hint = suggestion(fqn, [p.fqn for p in lock.packages])
        raise MetapkgError.single(
            "missing", lockfmt.FILENAME, f"{fqn} is not in the resolved graph{hint}"
        )
    return [chain for target in targets for chain in graph.chains_to(edges, roots, target)]


def why_part(project: Path, name: str) -> list[tuple[list[Key], str]]:
    """When ``name`` is no package but a part of a plugin (``access``, or as provisioned,
    ``slack-access``): every chain to each plugin that has it, with the part."""
    lock, edges, roots = load_graph(project)
    if any(name in (p.fqn, p.fqn.rsplit("/", 1)[-1]) for p in lock.packages):
        return []
    found: list[tuple[list[Key], str]] = []
    for package in lock.packages:
        for part in package.parts:
            short = part.rpartition(" ")[2]
            if name in (part, short, f"{package.fqn}-{short}"):
                chains = graph.chains_to(edges, roots, package.key)
                found.extend((chain, part) for chain in chains)
    return found


def suggestion(name: str, fqns: list[str]) -> str:
    """`` (did you mean acme/x?)`` for a short or mistyped name, or ``""``."""
    import difflib

    known = sorted(set(fqns))
    by_short = [f for f in known if f.rsplit("/", 1)[-1] == name]
    close = by_short or difflib.get_close_matches(name, known, n=3, cutoff=0.6)
    if not close:
        shorts = {f.rsplit("/", 1)[-1]: f for f in known}
        close = [shorts[s] for s in difflib.get_close_matches(name, list(shorts), n=3)]
    return f" (did you mean {' or '.join(close)}?)" if close else ""


def _ref(key: Key) -> dict[str, str]:
    return {"kind": key[0], "fqn": key[1]}
