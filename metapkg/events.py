"""What long work reports as it goes: requests, downloads, extractions, provisioning.

The fetch and provision layers call :func:`emit`; the command line decides what to show
(a live display on a terminal, plain lines in CI, request detail with ``-v``) by
installing one listener for the length of a command. With no listener, and that is the
case for every library use and every test that does not ask, ``emit`` returns at once.

This module is on the path of every up-to-date install: standard library only, and no
dataclasses (importing that module costs ~14 ms), so events are plain named tuples.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import NamedTuple


class Resolving(NamedTuple):
    """Package loads finished and known so far (the total grows as the crawl goes)."""

    done: int
    total: int


class Request(NamedTuple):
    """One HTTP request answered (after its retries): for ``-v``."""

    method: str
    url: str
    status: int
    seconds: float


class Downloading(NamedTuple):
    """An archive of ``repo`` at ``commit`` is being downloaded."""

    repo: str
    commit: str


class Received(NamedTuple):
    """``size`` more bytes of the body at ``url`` arrived; ``total`` if the host said."""

    url: str
    size: int
    total: int


class Extracting(NamedTuple):
    repo: str
    commit: str


class CacheHit(NamedTuple):
    """The tree of ``repo`` at ``commit`` came from the download cache."""

    repo: str
    commit: str


class Skipped(NamedTuple):
    """An archive entry that was never extracted (a link, a device: ``why``), outside the
    package asked for, so that package installs: for ``-v``."""

    repo: str
    commit: str
    entry: str  # its path in the repository
    why: str


class Provisioning(NamedTuple):
    """``path`` is being written into the project (``done`` of ``total`` placements)."""

    path: str
    done: int
    total: int


class Phase(NamedTuple):
    """A step of a command finished, and how long it took: for ``-v``."""

    name: str
    seconds: float


Event = (
    Resolving
    | Request
    | Downloading
    | Received
    | Extracting
    | CacheHit
    | Skipped
    | Provisioning
    | Phase
)
Listener = Callable[[Event], None]

_listener: Listener | None = None


def emit(event: Event) -> None:
    """Tell the listener, if any. Listeners are called from worker threads too."""
    listener = _listener
    if listener is not None:
        listener(event)


def active() -> bool:
    """Is anyone listening? (Skip building an event that nobody will read.)"""
    return _listener is not None


@contextlib.contextmanager
def listening(listener: Listener | None) -> Iterator[None]:
    global _listener
    previous, _listener = _listener, listener
    try:
        yield
    finally:
        _listener = previous
