"""The resolvelib provider: identities, candidates found lazily, what satisfies what.

Identity is (kind, fqn). A requirement is one declared dependency; its identity is that of
the package its preferred candidate holds. A candidate is one distinct content
(integrity) of an identity. A requirement without a range is satisfied only by the very
content its origin holds (diamonds of identical content are one node; different content
is a conflict); with a range, by any version of its place (repository and path) inside
the range. ``overrides`` name an origin for an fqn whose content then satisfies every
requirement of it.

``find_matches`` returns a factory of a generator: resolvelib pulls candidates one at a
time, and each is fetched only when pulled (its metadata is its content), so a range with
twenty tags costs one download when the newest fits.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from metapkg.diagnostics import MetapkgError
from metapkg.fetch.source import Place
from metapkg.origins import Origin
from metapkg.packages.models import Dependency, Key
from metapkg.resolve.candidates import Candidates
from metapkg.resolve.discovery import Discovery
from metapkg.resolve.node import Node
from metapkg.resolve.tagtries import TAG_TRIES, Mismatch, tag_disagrees


@dataclass(frozen=True)
class Requirement:
    key: Key
    dependency: Dependency
    integrity: str  # of the content the dependency's preferred candidate holds
    place: Place | None  # where that candidate lives (ranges choose among its versions)


@dataclass(frozen=True)
class Candidate:
    key: Key
    integrity: str
    node: Node = field(compare=False, hash=False)

    @property
    def version(self) -> str | None:
        return self.node.package.version


def in_range(requirement: Requirement, node: Node) -> bool:
    """Does a candidate's content satisfy a ranged requirement's range and place?"""
    spec = requirement.dependency.range
    if spec is None:
        return True
    version = node.package.version
    if version is None or not spec.contains(version):
        return False
    place = node.fetched.place
    return requirement.place is None or place is None or place.same(requirement.place)


class Provider:
    """A resolvelib provider by its methods: resolvelib calls them and never checks the
    class, so resolvelib itself is imported only when there is a choice to make (most
    graphs have none; see resolver.py)."""

    def __init__(
        self,
        discovery: Discovery,
        candidates: Candidates,
        overridden: Mapping[Key, Candidate],
        notes: Callable[[Mismatch], None],
    ) -> None:
        self.discovery = discovery
        self.candidates = candidates
        self.overridden = overridden
        self.notes = notes

    def identify(self, requirement_or_candidate: Requirement | Candidate) -> Key:
        return requirement_or_candidate.key

    def get_preference(
        self,
        identifier: Key,
        resolutions: Mapping[Key, Candidate],
        candidates: Mapping[Key, Iterator[Candidate]],
        information: Mapping[Key, Iterator[Any]],
        backtrack_causes: Any,
    ) -> tuple[bool, bool, Key]:
        """Exact requirements first (one candidate each), then ranges; by name for a
        stable, reproducible order."""
        causes = {cause.requirement.key for cause in backtrack_causes}
        ranged = any(info.requirement.dependency.range for info in information[identifier])
        return (identifier not in causes, ranged, identifier)

    def narrow_requirement_selection(
        self,
        identifiers: Iterable[Key],
        resolutions: Mapping[Key, Candidate],
        candidates: Mapping[Key, Iterator[Candidate]],
        information: Mapping[Key, Iterator[Any]],
        backtrack_causes: Any,
    ) -> Iterable[Key]:
        """Which identifiers resolvelib considers next: all of them (its own default)."""
        return identifiers

    def find_matches(
        self,
        identifier: Key,
        requirements: Mapping[Key, Iterator[Requirement]],
        incompatibilities: Mapping[Key, Iterator[Candidate]],
    ) -> Callable[[], Iterator[Candidate]]:
        wanted = list(requirements[identifier])
        excluded = set(incompatibilities[identifier])

        def matches() -> Iterator[Candidate]:
            for candidate in self._pool(identifier, wanted):
                if candidate not in excluded and all(
                    self.is_satisfied_by(r, candidate) for r in wanted
                ):
                    yield candidate

        return matches

    def _pool(self, identifier: Key, wanted: list[Requirement]) -> Iterator[Candidate]:
        if identifier in self.overridden:
            yield self.overridden[identifier]
            return
        seen: set[Candidate] = set()
        for requirement in wanted:  # what each requirement's preferred candidate holds
            dependency = requirement.dependency
            origin = self.discovery.preferred(dependency)
            from_tags = dependency.range is not None and origin != dependency.origin
            candidate = self._candidate(origin, identifier, from_tags)
            if candidate is not None and candidate not in seen:
                seen.add(candidate)
                yield candidate
        ranges = [r.dependency.range for r in wanted if r.dependency.range is not None]
        origins = [r.dependency.origin for r in wanted if r.dependency.range is not None]
        unusable = 0  # at most TAG_TRIES per pass (see tagtries.py); loads are kept, so a
        for origin in self.candidates.ordered(origins, ranges):  # pass again costs nothing
            candidate = self._candidate(origin, identifier, from_tags=True)
            if candidate is None:
                unusable += 1
                if unusable == TAG_TRIES:
                    return
            elif candidate not in seen:
                seen.add(candidate)
                yield candidate

    def _candidate(
        self, origin: Origin, identifier: Key | None, from_tags: bool
    ) -> Candidate | None:
        """The loaded candidate at ``origin``; None when it cannot be one (not found at
        that tag, another package there, or a version tag that disagrees with the
        package's version: ``tag-version``)."""
        try:
            node = self.discovery.node(origin)
        except MetapkgError:
            return None
        if identifier is not None and node.package_key != identifier:
            return None
        note = tag_disagrees(node) if from_tags else None
        if note is not None:
            self.notes(note)
            return None
        return Candidate(node.package_key, node.integrity, node)

    def is_satisfied_by(self, requirement: Requirement, candidate: Candidate) -> bool:
        if requirement.key in self.overridden:
            return candidate == self.overridden[requirement.key]
        if requirement.dependency.range is not None:
            return in_range(requirement, candidate.node)
        return requirement.integrity == candidate.integrity

    def get_dependencies(self, candidate: Candidate) -> list[Requirement]:
        return [self.requirement(d) for d in candidate.node.package.dependencies]

    def requirement(self, dependency: Dependency) -> Requirement:
        node = self.discovery.preferred_node(dependency)
        return Requirement(node.package_key, dependency, node.integrity, node.fetched.place)
