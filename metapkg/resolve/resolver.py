"""Resolution: from a crawled set of origins to one package per (kind, fqn).

resolvelib is the engine (see provider.py). Around it, this module turns its failures
into the diagnostics the brief names: ``conflict`` (naming both chains), ``constraint``,
and, on the result, ``cycle`` with the full path.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from metapkg.diagnostics import Diagnostic, ResolutionError, error
from metapkg.fetch.crawl import Crawl, Node
from metapkg.origins import Origin
from metapkg.packages.models import Dependency
from metapkg.resolve import graph
from metapkg.resolve.provider import Candidate, Key, Provider, Requirement, satisfies_constraint


@dataclass(frozen=True)
class Resolved:
    packages: Mapping[Key, Node]  # the chosen node for each identity
    dependencies: Mapping[Key, tuple[Key, ...]]  # in declaration order
    roots: tuple[tuple[Dependency, Key], ...]  # manifest dependencies and what they hold
    order: tuple[Key, ...]  # dependencies first

    @property
    def root_keys(self) -> list[Key]:
        return list(dict.fromkeys(key for _, key in self.roots))


def resolve(roots: Sequence[Dependency], crawl: Crawl, overrides: Mapping[str, Origin]) -> Resolved:
    from resolvelib import BaseReporter, ResolutionImpossible, Resolver

    candidates = _candidates(roots, crawl)
    overridden = _overridden(crawl, overrides)
    provider = Provider(crawl.nodes, candidates, overridden)
    requirements = [provider.requirement(d) for d in roots]
    chosen = _without_choices(provider, requirements)
    if chosen is None:
        try:
            result = Resolver(provider, BaseReporter()).resolve(
                requirements, max_rounds=2 * len(crawl.nodes) + 100
            )
        except ResolutionImpossible as exc:
            raise ResolutionError(_explain(exc.causes, crawl)) from None
        chosen = {key: c.node for key, c in result.mapping.items()}
    dependencies = {
        key: tuple(
            dict.fromkeys(crawl.nodes[d.origin].package_key for d in node.package.dependencies)
        )
        for key, node in chosen.items()
    }
    root_pairs = tuple((d, crawl.nodes[d.origin].package_key) for d in roots)
    root_keys = list(dict.fromkeys(key for _, key in root_pairs))
    cycle = graph.find_cycle(dependencies, root_keys)
    if cycle:
        path = " -> ".join(graph.label(k) for k in cycle)
        raise ResolutionError(
            [
                error(
                    "cycle",
                    str(chosen[cycle[0]].origin),
                    f"dependency cycle: {path}; remove one of these dependencies",
                )
            ]
        )
    order = graph.dependencies_first(dependencies, root_keys)
    return Resolved(chosen, dependencies, root_pairs, tuple(order))


def _without_choices(provider: Provider, roots: list[Requirement]) -> dict[Key, Node] | None:
    """The resolution when there is nothing to decide, else None (resolvelib decides).

    If every identity reachable from the roots has exactly one candidate and every
    requirement accepts it, that assignment is the only resolution there is; building it
    is linear. resolvelib rescans every criterion on each of its rounds (quadratic: about
    2 s at 300 packages, minutes at 3,000), so it is kept for graphs with real choices:
    two contents for one identity, a failing constraint, and later tag ranges.
    """
    chosen: dict[Key, Node] = {}
    pending = list(roots)
    while pending:
        requirement = pending.pop()
        pool = provider.pool(requirement.key)
        if len(pool) != 1 or not provider.is_satisfied_by(requirement, pool[0]):
            return None
        if requirement.key not in chosen:
            chosen[requirement.key] = pool[0].node
            pending.extend(provider.get_dependencies(pool[0]))
    return chosen


def _candidates(roots: Sequence[Dependency], crawl: Crawl) -> dict[Key, list[Candidate]]:
    """One candidate per distinct content of each identity, its best-known origin first.

    When several origins hold the same content, the lock names the one a person would
    look for: a direct dependency's, else the one nearest the top of the graph.
    """
    direct = {d.origin for d in roots}
    depth = crawl.depths()
    by_key: dict[Key, dict[str, Node]] = {}
    for origin in sorted(crawl.nodes, key=lambda o: (o not in direct, depth.get(o, 0), str(o))):
        node = crawl.nodes[origin]
        by_key.setdefault(node.package_key, {}).setdefault(node.integrity, node)
    return {
        key: [Candidate(key, integrity, node) for integrity, node in nodes.items()]
        for key, nodes in by_key.items()
    }


def _overridden(crawl: Crawl, overrides: Mapping[str, Origin]) -> dict[Key, Candidate]:
    found = {}
    for fqn, origin in overrides.items():
        node = crawl.nodes.get(origin)
        if node is None:
            continue  # reported by the crawl as missing
        if node.package.fqn != fqn:
            raise ResolutionError(
                [
                    error(
                        "conflict",
                        "metapkg.yaml",
                        f"overrides.{fqn} points at {node.package.label}, not {fqn}; "
                        f"the override must hold the package it replaces",
                    )
                ]
            )
        found[node.package_key] = Candidate(node.package_key, node.integrity, node)
    return found


def _explain(causes: Collection[Any], crawl: Crawl) -> list[Diagnostic]:
    requirements: dict[Key, list[tuple[Requirement, Candidate | None]]] = {}
    for cause in causes:
        requirement, parent = cause.requirement, cause.parent
        requirements.setdefault(requirement.key, []).append((requirement, parent))
    diagnostics = []
    for key, items in sorted(requirements.items()):
        diagnostics.extend(
            _constraint_failures(key, items, crawl) or [_conflict(key, items, crawl)]
        )
    return diagnostics


def _asker(parent: Candidate | None, crawl: Crawl) -> str:
    if parent is None:
        return "metapkg.yaml"
    return " -> ".join(crawl.chain(parent.node.origin))


def _constraint_failures(
    key: Key, items: list[tuple[Requirement, Candidate | None]], crawl: Crawl
) -> list[Diagnostic]:
    failures = []
    for requirement, parent in items:
        held = crawl.nodes[requirement.origin].package
        if not satisfies_constraint(held.version, requirement.constraint):
            failures.append(
                error(
                    "constraint",
                    str(requirement.origin),
                    f"{graph.label(key)} {held.version} does not satisfy "
                    f"{requirement.constraint} required by {_asker(parent, crawl)}; change the "
                    f"constraint or point the origin at a matching version",
                )
            )
    return failures


def _conflict(
    key: Key, items: list[tuple[Requirement, Candidate | None]], crawl: Crawl
) -> Diagnostic:
    wants: dict[str, str] = {}
    for requirement, parent in items:
        node = crawl.nodes[requirement.origin]
        version = f" ({node.package.version})" if node.package.version else ""
        wants.setdefault(
            node.integrity, f"`{_asker(parent, crawl)}` wants {requirement.origin}{version}"
        )
    return error(
        "conflict",
        "metapkg.yaml",
        f"{graph.label(key)} is required with different content: {'; '.join(wants.values())}. "
        f"Align the origins, or settle it in metapkg.yaml with overrides: {{{key[1]}: <origin>}}",
    )
