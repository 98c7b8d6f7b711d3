"""One Source that sends each origin to the right implementation.

The GitHub source (and with it httpx) is created only when a GitHub origin is fetched,
so projects with only ``file:`` origins never import the HTTP stack.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from metapkg.fetch.file import FileSource
from metapkg.fetch.source import Fetched, RefPin
from metapkg.origins import FileOrigin, Origin

if TYPE_CHECKING:
    from metapkg.fetch.github import GitHubSource


@dataclass(frozen=True)
class FetchOptions:
    pins: tuple[RefPin, ...] = ()  # from the lock: reused instead of asking GitHub
    offline: bool = False  # never touch the network
    frozen: bool = False  # refs must come from pins; archives may still be downloaded
    workers: int = 16
    # `metapkg update`: (repo, ref) pins to ignore, so those refs are asked of GitHub again
    unpinned: frozenset[tuple[str, str]] = field(default_factory=frozenset)


class Sources:
    def __init__(self, options: FetchOptions | None = None) -> None:
        self.options = options or FetchOptions()
        self._file = FileSource()
        self._github: GitHubSource | None = None
        self._github_lock = threading.Lock()  # crawl threads ask for it concurrently

    def fetch(self, origin: Origin) -> Fetched:
        if isinstance(origin, FileOrigin):
            return self._file.fetch(origin)
        return self.github.fetch(origin)

    @property
    def github(self) -> GitHubSource:
        with self._github_lock:
            if self._github is None:
                from metapkg.fetch.github import GitHubSource

                self._github = GitHubSource(self.options)
            return self._github

    def warm_up(self) -> None:
        """Start creating the HTTP client (importing httpx, finding the token) in the
        background, when the caller knows requests are coming: it is otherwise done on the
        first request's critical path."""
        if not self.options.offline:
            threading.Thread(target=self._warm, daemon=True).start()

    def _warm(self) -> None:
        with contextlib.suppress(Exception):  # the first real request reports any problem
            self.github.http  # noqa: B018

    def used_pins(self) -> Iterable[RefPin]:
        return self._github.used_pins() if self._github is not None else ()

    def close(self) -> None:
        if self._github is not None:
            self._github.close()
