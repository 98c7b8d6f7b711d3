"""Showing long work as it goes (see metapkg/events.py for what is reported).

* On a terminal (stderr is one, not CI, TERM is not dumb): a live display drawn with rich
  (resolving, fetching and provisioning, each with its count, the bytes received and the
  repository or path at hand), cleared when the work ends. rich is imported at the first
  event, so a command that does no long work (an up-to-date install) never loads it.
* Anywhere else: plain lines, one per archive fetched, that read well in a CI log.
* ``-v`` adds a line per HTTP request, per cache hit and per step, with timings, and one
  per archive entry skipped outside the packages asked for (a link, a device).
* ``-q``: nothing.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, TextIO

from metapkg import events, settings
from metapkg.cli.output import use_colour
from metapkg.redact import redact
from metapkg.untrusted import printable

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID


def size(count: int) -> str:
    """1536 -> '1.5 KiB'."""
    value = float(count)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{int(value)} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")


def short(commit: str) -> str:
    return commit[:12]


def live_wanted(stream: TextIO) -> bool:
    try:
        terminal = stream.isatty()
    except (AttributeError, ValueError):
        terminal = False
    return terminal and not settings.ci() and os.environ.get("TERM") != "dumb"


class Lines:
    """Plain lines: what a log keeps. ``verbose`` adds requests, cache hits and timings."""

    def __init__(self, stream: TextIO, verbose: bool) -> None:
        self.stream = stream
        self.verbose = verbose
        self._lock = threading.Lock()
        self._received: dict[int, int] = {}  # thread -> bytes of the download under way
        self._hits: set[tuple[str, str]] = set()
        self._skipped: set[tuple[str, str, str]] = set()  # each skipped entry once

    def __call__(self, event: events.Event) -> None:
        line = self.line(event)
        if line is not None:
            self.write(line)

    def write(self, line: str) -> None:
        with self._lock:
            print(printable(redact(line)), file=self.stream, flush=True)

    def line(self, event: events.Event) -> str | None:
        thread = threading.get_ident()
        match event:
            case events.Downloading():
                self._received[thread] = 0
            case events.Received(size=got):
                self._received[thread] = self._received.get(thread, 0) + got
            case events.Extracting(repo=repo, commit=commit):
                got = self._received.pop(thread, 0)
                return f"Fetched {repo} at {short(commit)} ({size(got)})"
            case _ if not self.verbose:
                return None
            case events.Request(method=method, url=url, status=status, seconds=seconds):
                return f"  {method} {url} -> {status} ({seconds:.2f}s)"
            case events.CacheHit(repo=repo, commit=commit) if (repo, commit) not in self._hits:
                self._hits.add((repo, commit))
                return f"  cache hit: {repo} at {short(commit)}"
            case events.Skipped(repo=repo, commit=commit, entry=entry, why=why):
                if (repo, commit, entry) in self._skipped:
                    return None
                self._skipped.add((repo, commit, entry))
                return (
                    f"  skipped {entry} in {repo} at {short(commit)}: a {why}, outside the "
                    f"package, never extracted"
                )
            case events.Provisioning(path=path):
                return f"  provisioning {path}"
            case events.Phase(name=name, seconds=seconds):
                return f"  {name} took {seconds:.2f}s"
        return None


class Live:
    """rich's progress display on stderr; verbose lines are printed above it."""

    def __init__(self, stream: TextIO, verbose: bool) -> None:
        self.stream = stream
        self.lines = Lines(stream, verbose) if verbose else None
        self._lock = threading.Lock()
        self._progress: Progress | None = None
        self._tasks: dict[str, TaskID] = {}
        self._fetching = [0, 0, 0]  # archives started, archives done, bytes received

    def __call__(self, event: events.Event) -> None:
        with self._lock:
            progress = self._progress or self._start()
            self._show(progress, event)
            if self.lines is not None:
                line = self.lines.line(event)
                if line is not None:
                    progress.console.print(printable(redact(line)), markup=False, highlight=False)

    def _start(self) -> Progress:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        console = Console(
            file=self.stream,
            color_system="auto" if use_colour(self.stream) else None,
            force_terminal=True,
        )
        self._progress = Progress(
            TextColumn("{task.description:<12}"),
            BarColumn(bar_width=24),
            MofNCompleteColumn(),
            TextColumn("{task.fields[bytes]}"),
            TextColumn("{task.fields[current]}", markup=False),
            console=console,
            transient=True,
        )
        self._progress.start()
        return self._progress

    def _task(self, progress: Progress, name: str) -> TaskID:
        if name not in self._tasks:
            self._tasks[name] = progress.add_task(name, total=None, bytes="", current="")
        return self._tasks[name]

    def _show(self, progress: Progress, event: events.Event) -> None:
        fetching = self._fetching
        match event:
            case events.Resolving(done=done, total=total):
                progress.update(self._task(progress, "Resolving"), completed=done, total=total)
            case events.Downloading(repo=repo, commit=commit):
                fetching[0] += 1
                self._fetch(progress, f"{repo} at {short(commit)}")
            case events.Received(size=got):
                fetching[2] += got
                self._fetch(progress, None)
            case events.Extracting(repo=repo):
                fetching[1] += 1
                self._fetch(progress, f"extracting {repo}" if fetching[1] < fetching[0] else "")
            case events.Provisioning(path=path, done=done, total=total):
                task = self._task(progress, "Provisioning")
                progress.update(task, completed=done, total=total, current=path)

    def _fetch(self, progress: Progress, current: str | None) -> None:
        started, done, received = self._fetching
        changes: dict[str, Any] = {"bytes": size(received)}
        if current is not None:
            changes["current"] = current
        task = self._task(progress, "Fetching")
        progress.update(task, completed=done, total=started, **changes)

    def close(self) -> None:
        with self._lock:
            if self._progress is not None:
                self._progress.stop()
                self._progress = None


@contextlib.contextmanager
def reporting(quiet: bool, verbose: bool, stream: TextIO | None = None) -> Iterator[None]:
    """Show the events of the work inside this block, as the terminal allows."""
    if quiet:
        yield
        return
    stream = stream or sys.stderr
    if live_wanted(stream):
        live = Live(stream, verbose)
        try:
            with events.listening(live):
                yield
        finally:
            live.close()
        return
    with events.listening(Lines(stream, verbose)):
        yield
