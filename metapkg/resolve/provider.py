"""The resolvelib provider: identities, candidates and what satisfies what.

Identity is (kind, fqn). A requirement is "the package this origin holds", optionally
with a version constraint; a candidate is one distinct content (integrity) seen for an
identity during the crawl. A requirement is satisfied only by the very content its origin
holds, unless ``overrides`` names an origin for that fqn, whose content then satisfies
every requirement of it. Today each origin pins exactly one content, so resolvelib's job
is to prove the graph consistent; tag ranges will add real choices through the same
``find_matches``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version
from resolvelib import AbstractProvider

from metapkg.fetch.crawl import Node
from metapkg.origins import Origin
from metapkg.packages.models import Dependency, Kind

Key = tuple[Kind, str]


@dataclass(frozen=True)
class Requirement:
    key: Key
    origin: Origin
    constraint: str | None = None
    integrity: str = ""  # of the content the origin holds


@dataclass(frozen=True)
class Candidate:
    key: Key
    integrity: str
    node: Node = field(compare=False, hash=False)

    @property
    def version(self) -> str | None:
        return self.node.package.version


def satisfies_constraint(version: str | None, constraint: str | None) -> bool:
    if not constraint:
        return True
    if version is None:
        return False
    try:
        return SpecifierSet(constraint).contains(Version(version), prereleases=True)
    except InvalidVersion:
        return False


class Provider(AbstractProvider[Requirement, Candidate, Key]):
    def __init__(
        self,
        nodes: Mapping[Origin, Node],
        candidates: Mapping[Key, Sequence[Candidate]],
        overridden: Mapping[Key, Candidate],
    ) -> None:
        self.nodes = nodes
        self.candidates = candidates
        self.overridden = overridden

    def identify(self, requirement_or_candidate: Requirement | Candidate) -> Key:
        return requirement_or_candidate.key

    def get_preference(self, identifier: Key, *args: Any, **kwargs: Any) -> Key:
        return identifier  # no real choices yet: a stable order keeps runs reproducible

    def narrow_requirement_selection(
        self, identifiers: Iterable[Key], *args: Any, **kwargs: Any
    ) -> Iterable[Key]:
        return (min(identifiers),)

    def find_matches(
        self,
        identifier: Key,
        requirements: Mapping[Key, Iterator[Requirement]],
        incompatibilities: Mapping[Key, Iterator[Candidate]],
    ) -> list[Candidate]:
        wanted = list(requirements[identifier])
        excluded = set(incompatibilities[identifier])
        pool = self.pool(identifier)
        return [
            candidate
            for candidate in pool
            if candidate not in excluded and all(self.is_satisfied_by(r, candidate) for r in wanted)
        ]

    def is_satisfied_by(self, requirement: Requirement, candidate: Candidate) -> bool:
        if requirement.constraint and not satisfies_constraint(
            candidate.version, requirement.constraint
        ):
            return False
        if requirement.key in self.overridden:
            return candidate == self.overridden[requirement.key]
        return requirement.integrity == candidate.integrity

    def get_dependencies(self, candidate: Candidate) -> list[Requirement]:
        return [self.requirement(d) for d in candidate.node.package.dependencies]

    # -- helpers shared with the linear path in resolve/__init__.py ------------------------

    def requirement(self, dependency: Dependency) -> Requirement:
        node = self.nodes[dependency.origin]
        origin, constraint = dependency.origin, dependency.constraint
        return Requirement(node.package_key, origin, constraint, node.integrity)

    def pool(self, identifier: Key) -> Sequence[Candidate]:
        """Every candidate for an identity (only the override's, when there is one)."""
        if identifier in self.overridden:
            return (self.overridden[identifier],)
        return self.candidates.get(identifier, ())
