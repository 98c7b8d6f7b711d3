"""Which candidates a dependency has, in the order to try them.

A dependency without a version range has one candidate: what its origin holds (its ref
resolved once and pinned). A dependency with a range on a GitHub origin names a place (a
repository and a path); its candidates are that place's tagged versions in the range,
and its ref is only a hint, used when the package has no version tags at all.

The order is the resolver's preference, as PDM's ``ReusePinProvider`` and uv's
preferences do it: the version the lock already chose (while it is still in the range
and ``metapkg update`` did not ask to move it), then the newest in range. So no pin moves
unless the manifest or ``update`` asks, and a fresh resolution gets the newest versions.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

from metapkg.diagnostics import Diagnostic, ResolutionError, error
from metapkg.fetch.once import Once
from metapkg.fetch.source import Located, Place, RefPin, Tag
from metapkg.fetch.sources import Sources
from metapkg.origins import Origin, OriginSyntaxError, parse_origin
from metapkg.packages.models import Dependency, Key, Kind
from metapkg.packages.semver import Range, SemVer


class LockEntry(Protocol):
    """What Candidates needs of a locked package (lock/format.py's LockedPackage)."""

    @property
    def kind(self) -> Kind: ...

    @property
    def fqn(self) -> str: ...

    @property
    def origin(self) -> str: ...

    @property
    def version(self) -> str | None: ...


@dataclass(frozen=True)
class Locked:
    """What the lock chose for a package: its origin, and the version it had."""

    key: Key
    origin: Origin
    version: SemVer | None


def locked_choices(packages: Iterable[LockEntry]) -> list[Locked]:
    """A lock's choices for packages from versioned (non-local) origins."""
    found = []
    for package in packages:
        try:
            origin = parse_origin(package.origin)
        except OriginSyntaxError:
            continue
        if not origin.is_local:
            version = SemVer.parse(package.version) if package.version else None
            found.append(Locked((package.kind, package.fqn), origin, version))
    return found


class Unsatisfiable(ResolutionError):
    """Tags of the package exist, but none is in the range."""

    def __init__(self, dependency: Dependency, tags: Sequence[Tag]) -> None:
        self.dependency = dependency
        self.tags = tuple(tags)
        super().__init__([self.diagnostic("metapkg.yaml")])

    def diagnostic(self, asker: str) -> Diagnostic:
        newest = ", ".join(str(t.version) for t in self.tags[:5])
        return error(
            "constraint",
            str(self.dependency.origin),
            f"no version of {self.dependency.origin} satisfies {self.dependency.constraint} "
            f"required by {asker} (newest tags: {newest}); widen the range or ask for a "
            f"release",
        )


class Candidates:
    def __init__(
        self,
        sources: Sources,
        locked: Sequence[Locked] = (),
        fresh: frozenset[str] | None = None,
    ) -> None:
        """``locked``: the lock's choices; ``fresh``: fqns whose locked choice is not to
        be reused (``metapkg update FQN``; empty: none is), None: every one is reused."""
        self.sources = sources
        self.locked = tuple(locked)
        self.fresh = fresh
        self._versions: Once[Origin, list[Tag]] = Once()
        self._places: Once[Origin, Located] = Once()
        self._lock = threading.Lock()
        self._located: dict[Origin, RefPin] = {}  # pins that told where a path starts
        self._tag_names: dict[Origin, str] = {}  # each tag's origin: the tag

    # -- what a dependency most likely resolves to ---------------------------------------------

    def preferred(self, dependency: Dependency) -> Iterator[Origin]:
        """A dependency's likely candidates, best first: the locked choice if still in
        range, then the versions in range, newest first; the origin itself when there is
        no range, it is a file: origin, or the package has no version tags."""
        spec = dependency.range
        if spec is None or dependency.origin.is_local:
            yield dependency.origin
            return
        self.place(dependency.origin)  # where its path starts: the lock keeps that pin
        locked = self.locked_choice(dependency.origin, [spec])
        if locked is not None:
            yield locked
        tags = self.versions(dependency.origin)
        in_range = [tag for tag in tags if spec.contains(tag.version)]
        if not tags:
            yield dependency.origin
        elif not in_range:
            raise Unsatisfiable(dependency, tags)
        for tag in in_range:
            if tag.origin != locked:
                yield tag.origin

    def versions(self, origin: Origin) -> list[Tag]:
        """The tagged versions at ``origin``'s place, newest first (asked once per run)."""

        def listed() -> list[Tag]:
            tags = self.sources.versions(origin)
            with self._lock:
                self._tag_names.update((tag.origin, tag.name) for tag in tags)
            return tags

        return self._versions.get(origin, listed)

    def tag_name(self, origin: Origin) -> str:
        """The tag a candidate's origin is at (the origin itself when it is no tag's)."""
        with self._lock:
            return self._tag_names.get(origin) or str(origin)

    def located_pins(self, origins: Iterable[Origin]) -> list[RefPin]:
        """The pins that told where these origins' paths start (for the lock), for those
        already located."""
        with self._lock:
            known = dict(self._located)
        return [pin for origin in origins if (pin := known.get(origin)) is not None]

    def place(self, origin: Origin) -> Place:
        located = self._places.get(origin, lambda: self.sources.locate(origin))
        if located.pin is not None:
            with self._lock:
                self._located[origin] = located.pin
        return located.place

    def locked_choice(self, origin: Origin, ranges: Sequence[Range]) -> Origin | None:
        """The lock's origin for the package at ``origin``'s place, if reusable: same
        repository and path, its version in every range, not asked to move."""
        mine: Place | None = None
        for item in self.locked:
            if self.fresh is not None and (not self.fresh or item.key[1] in self.fresh):
                continue
            if item.version is None or not all(r.contains(item.version) for r in ranges):
                continue
            if item.origin.repository != origin.repository:
                continue
            mine = mine or self.place(origin)
            if self.place(item.origin).same(mine):
                return item.origin
        return None

    # -- everything to try, for the resolver ---------------------------------------------------

    def ordered(self, origins: Sequence[Origin], ranges: Sequence[Range]) -> Iterator[Origin]:
        """Candidates for one identity: the places ``origins`` name, their locked choice
        first, then their tags in every range, newest first (tags are compared by the
        version they name; loading checks the package says the same)."""
        seen: set[Origin] = set()
        for origin in origins:
            locked = self.locked_choice(origin, ranges)
            if locked is not None and locked not in seen:
                seen.add(locked)
                yield locked
        tagged: list[Tag] = []
        for origin in origins:
            if not origin.is_local:
                tagged.extend(self.versions(origin))
        tagged.sort(key=lambda tag: tag.version.sort_key(), reverse=True)
        for tag in tagged:
            if tag.origin not in seen and all(r.contains(tag.version) for r in ranges):
                seen.add(tag.origin)
                yield tag.origin
