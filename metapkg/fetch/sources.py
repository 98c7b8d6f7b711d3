"""The source for each origin, found by its scheme in one registry.

A source is created only when an origin of its scheme is first seen, so a project with
only ``file:`` origins never imports the GitHub source or the HTTP stack. Tests pass
their own registry (an in-memory source for the ``github`` scheme, say).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from metapkg.diagnostics import Diagnostic
from metapkg.fetch.source import Fetched, Located, RefPin, Renamed, Source, Tag
from metapkg.origins import Origin


@dataclass(frozen=True)
class Mirrored:
    """A locked package a mirror may stand in for (fetch/oci/mirror.py): its lock entry,
    and the paths inside its repository at ``commit`` its origin may be read as."""

    kind: str
    fqn: str
    integrity: str
    commit: str
    paths: tuple[str, ...]


@dataclass(frozen=True)
class FetchOptions:
    pins: tuple[RefPin, ...] = ()  # from the lock: reused instead of asking the host
    offline: bool = False  # never touch the network
    frozen: bool = False  # refs must come from pins; archives may still be downloaded
    workers: int = 16
    # `metapkg update`: (repo, ref) pins to ignore, so those refs are asked again
    unpinned: frozenset[tuple[str, str]] = field(default_factory=frozenset)
    renamed: tuple[Renamed, ...] = ()  # from the lock: repositories known to have moved
    mirrors: tuple[str, ...] = ()  # oci://REGISTRY/NAMESPACE, tried first for `mirrored`
    mirrored: tuple[Mirrored, ...] = ()  # from the lock: packages a mirror may hold


SourceFactory = Callable[[FetchOptions], Source]


def _file(options: FetchOptions) -> Source:
    from metapkg.fetch.file import FileSource

    return FileSource()


def _github(options: FetchOptions) -> Source:
    from metapkg.fetch.github import GitHubSource

    return GitHubSource(options)


def _mcp_registry(options: FetchOptions) -> Source:
    from metapkg.fetch.mcpregistry import McpRegistrySource

    return McpRegistrySource(options)


def _oci(options: FetchOptions) -> Source:
    from metapkg.fetch.oci.source import OciSource

    return OciSource(options)


def _git(options: FetchOptions) -> Source:
    from metapkg.fetch.git import GitSource

    return GitSource(options)


# scheme -> how to make its source (the origin scheme of the same name, metapkg/origins.py,
# parses its origins). Adding a forge is one entry here and one module.
REGISTRY: Mapping[str, SourceFactory] = {
    "file": _file,
    "github": _github,
    "git": _git,
    "mcp": _mcp_registry,
    "oci": _oci,
}


class Sources:
    """Every source a run uses, created on first use, closed together."""

    def __init__(
        self, options: FetchOptions | None = None, registry: Mapping[str, SourceFactory] = REGISTRY
    ) -> None:
        self.options = options or FetchOptions()
        self._registry = registry
        self._made: dict[str, Source] = {}
        self._lock = threading.Lock()  # crawl threads ask for sources concurrently

    def source(self, origin: Origin) -> Source:
        with self._lock:
            made = self._made.get(origin.scheme)
            if made is None:
                made = self._made[origin.scheme] = self._registry[origin.scheme](self.options)
            return made

    def fetch(self, origin: Origin) -> Fetched:
        return self.source(origin).fetch(origin)

    def locate(self, origin: Origin) -> Located:
        return self.source(origin).locate(origin)

    def versions(self, origin: Origin) -> list[Tag]:
        return self.source(origin).versions(origin)

    def at_hand(self, origin: Origin) -> bool:
        return self.source(origin).at_hand(origin)

    def warm_up(self, origin: Origin) -> None:
        """Create the source for ``origin`` in the background, when the caller knows it will
        be needed: for GitHub that imports httpx and finds the token, which is otherwise
        done on the first request's critical path."""
        if self.options.offline:
            return

        def make() -> None:
            with contextlib.suppress(Exception):  # the first real use reports any problem
                warm = getattr(self.source(origin), "warm", None)
                if warm is not None:
                    warm()

        threading.Thread(target=make, daemon=True).start()

    def used_pins(self) -> Iterable[RefPin]:
        with self._lock:
            made = list(self._made.values())
        return [pin for source in made for pin in source.used_pins()]

    def renamed(self) -> list[Renamed]:
        """The renamed repositories this run's pins went through (for the lock)."""
        with self._lock:
            made = list(self._made.values())
        return [r for source in made for r in getattr(source, "renamed", tuple)()]

    def warnings(self) -> list[Diagnostic]:
        with self._lock:
            made = list(self._made.values())
        return [found for source in made for found in source.warnings()]

    def close(self) -> None:
        with self._lock:
            made = list(self._made.values())
        for source in made:
            source.close()
