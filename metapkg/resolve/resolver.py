"""Resolution: from declared dependencies to one package per (kind, fqn).

resolvelib is the engine (see provider.py), with backtracking when the newest versions
conflict. Around it, this module turns failures into the diagnostics the brief names:
``constraint`` (every range involved, who asked for it, the newest tags), ``conflict``
(naming both chains), and, on the result, ``cycle`` with the full path.

Most graphs have nothing to choose: every requirement's preferred candidate (the lock's,
the newest in range, or simply what the origin holds) satisfies every other requirement
of its identity. That assignment is then the resolution, built in linear time; resolvelib
rescans every criterion each round (quadratic: ~2 s at 300 packages, minutes at 3,000),
so it runs only when there is a real choice to make.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from metapkg.diagnostics import Diagnostic, ResolutionError, error
from metapkg.origins import Origin
from metapkg.packages.models import Dependency, Key, label
from metapkg.resolve import graph
from metapkg.resolve.candidates import Candidates
from metapkg.resolve.discovery import Crawl, Discovery
from metapkg.resolve.node import Node
from metapkg.resolve.provider import Candidate, Provider, Requirement

if TYPE_CHECKING:
    from resolvelib import AbstractProvider


@dataclass(frozen=True)
class Resolved:
    packages: Mapping[Key, Node]  # the chosen node for each identity
    dependencies: Mapping[Key, tuple[Key, ...]]  # in declaration order
    roots: tuple[tuple[Dependency, Key], ...]  # manifest dependencies and what they hold
    order: tuple[Key, ...]  # dependencies first
    notes: tuple[Diagnostic, ...] = ()  # warnings met while choosing (tag-version)

    @property
    def root_keys(self) -> list[Key]:
        return list(dict.fromkeys(key for _, key in self.roots))


def resolve(
    roots: Sequence[Dependency],
    discovery: Discovery,
    crawl: Crawl,
    overrides: Mapping[str, Origin],
    candidates: Candidates,
) -> Resolved:
    overridden = _overridden(crawl, overrides)
    provider = Provider(discovery, candidates, overridden, discovery.note)
    requirements = [provider.requirement(d) for d in roots]
    chosen = _without_choices(provider, requirements)
    if chosen is None:
        from resolvelib import BaseReporter, ResolutionImpossible, Resolver

        engine: Resolver[Requirement, Candidate, Key] = Resolver(
            cast("AbstractProvider[Requirement, Candidate, Key]", provider), BaseReporter()
        )
        try:
            result = engine.resolve(requirements, max_rounds=4 * len(crawl.nodes) + 200)
        except ResolutionImpossible as exc:
            raise ResolutionError(_explain(exc.causes, provider, crawl)) from None
        chosen = {key: candidate.node for key, candidate in result.mapping.items()}
    chosen = _best_known(chosen, crawl, roots)
    dependencies = {
        key: tuple(dict.fromkeys(provider.requirement(d).key for d in node.package.dependencies))
        for key, node in chosen.items()
    }
    root_pairs = tuple((r.dependency, r.key) for r in requirements)
    root_keys = list(dict.fromkeys(key for _, key in root_pairs))
    cycle = graph.find_cycle(dependencies, root_keys)
    if cycle:
        path = " -> ".join(label(k) for k in cycle)
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
    return Resolved(chosen, dependencies, root_pairs, tuple(order), tuple(discovery.notes))


def _without_choices(provider: Provider, roots: list[Requirement]) -> dict[Key, Node] | None:
    """The resolution when every preferred candidate fits, else None (resolvelib decides)."""
    chosen: dict[Key, Candidate] = {}
    pending = list(reversed(roots))
    while pending:
        requirement = pending.pop()
        candidate = chosen.get(requirement.key) or _preferred(provider, requirement)
        if not provider.is_satisfied_by(requirement, candidate):
            return None
        if requirement.key not in chosen:
            chosen[requirement.key] = candidate
            pending.extend(reversed(provider.get_dependencies(candidate)))
    return {key: candidate.node for key, candidate in chosen.items()}


def _best_known(
    chosen: Mapping[Key, Node], crawl: Crawl, roots: Sequence[Dependency]
) -> dict[Key, Node]:
    """Where several origins hold the chosen content, the lock names the one a person
    would look for: a direct dependency's, else the one nearest the top of the graph."""
    direct = {d.origin for d in roots}
    depth = crawl.depths()

    def rank(origin: Origin) -> tuple[bool, int, str]:
        return (origin not in direct, depth.get(origin, 0), str(origin))

    best = dict(chosen)
    for node in crawl.nodes.values():
        current = best.get(node.package_key)
        same = current is not None and current.integrity == node.integrity
        if same and current is not None and rank(node.origin) < rank(current.origin):
            best[node.package_key] = node
    return best


def _preferred(provider: Provider, requirement: Requirement) -> Candidate:
    if requirement.key in provider.overridden:
        return provider.overridden[requirement.key]
    node = provider.discovery.preferred_node(requirement.dependency)
    return Candidate(node.package_key, node.integrity, node)


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


# -- explaining a failure ---------------------------------------------------------------------


def _explain(causes: Collection[Any], provider: Provider, crawl: Crawl) -> list[Diagnostic]:
    by_key: dict[Key, list[tuple[Requirement, Candidate | None]]] = {}
    for cause in causes:
        by_key.setdefault(cause.requirement.key, []).append((cause.requirement, cause.parent))
    diagnostics = []
    for key, items in sorted(by_key.items()):
        if any(r.dependency.range is not None for r, _ in items):
            diagnostics.append(_unsatisfiable(key, items, provider))
        else:
            diagnostics.append(_conflict(key, items, crawl))
    return diagnostics


def _asker(parent: Candidate | None) -> str:
    if parent is None:
        return "metapkg.yaml"
    version = f" {parent.version}" if parent.version else ""
    return f"{label(parent.key)}{version}"


def _wants(requirement: Requirement, provider: Provider) -> str:
    dependency = requirement.dependency
    if dependency.range is None:
        node = provider.discovery.preferred_node(dependency)
        held = f" {node.package.version}" if node.package.version else ""
        return f"exactly {dependency.origin}{held}"
    tags = [] if dependency.origin.is_local else provider.candidates.versions(dependency.origin)
    if tags:
        return f"{dependency.range} (from {dependency.origin})"
    held = provider.discovery.preferred_node(dependency).package.version or "no version"
    return f"{dependency.range} (its origin {dependency.origin} holds {held} and has no tags)"


def _unsatisfiable(
    key: Key, items: list[tuple[Requirement, Candidate | None]], provider: Provider
) -> Diagnostic:
    wants = dict.fromkeys(f"{_asker(p)} wants {_wants(r, provider)}" for r, p in items)
    tagged = {
        str(tag.version): None
        for r, _ in items
        if r.dependency.range is not None and not r.dependency.origin.is_local
        for tag in provider.candidates.versions(r.dependency.origin)
    }
    newest = f"; newest tags: {', '.join(list(tagged)[:6])}" if tagged else ""
    first = items[0][0].dependency.origin
    return error(
        "constraint",
        str(first),
        f"no version of {label(key)} satisfies every requirement: {'; '.join(wants)}{newest}. "
        f"Widen a range, or settle it in metapkg.yaml with overrides: {{{key[1]}: <origin>}}",
    )


def _conflict(
    key: Key, items: list[tuple[Requirement, Candidate | None]], crawl: Crawl
) -> Diagnostic:
    wants: dict[str, str] = {}
    for requirement, parent in items:
        asker = "metapkg.yaml" if parent is None else " -> ".join(crawl.chain(parent.node.origin))
        origin = requirement.dependency.origin
        node = crawl.chosen(requirement.dependency)
        version = f" ({node.package.version})" if node and node.package.version else ""
        wants.setdefault(requirement.integrity, f"`{asker}` wants {origin}{version}")
    return error(
        "conflict",
        "metapkg.yaml",
        f"{label(key)} is required with different content: {'; '.join(wants.values())}. "
        f"Align the origins, or settle it in metapkg.yaml with overrides: {{{key[1]}: <origin>}}",
    )
