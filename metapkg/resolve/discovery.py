"""Loading candidates, once each, and prefetching the likely graph concurrently.

:class:`Discovery` turns an origin into a :class:`Node` (fetched, parsed, hashed), once per
origin however many threads ask, on a pool of worker threads: the resolver asks for nodes
lazily, one candidate at a time, and waits for each.

Waiting level by level would cost one round trip per package, so ``crawl`` prefetches:
it walks the graph of *preferred* candidates (the lock's pins, else the newest version in
range, else what the origin names) the way the resolver is likely to, scheduling each
package's dependencies the moment that package is loaded. A graph with no choices costs
about one fetch per level on its critical path, and the resolver then finds every node it
asks for already loaded. A graph with choices costs more only for the candidates the
resolver actually tries. The crawl gathers; judging is the resolver's job.
"""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial

from metapkg.diagnostics import Diagnostic, MetapkgError, error
from metapkg.fetch.once import Once, Result
from metapkg.fetch.source import NotFound
from metapkg.fetch.sources import Sources
from metapkg.origins import Origin
from metapkg.packages.models import Dependency
from metapkg.resolve.candidates import Candidates, Unsatisfiable
from metapkg.resolve.downloads import SharedDownloads, Why, download_group
from metapkg.resolve.node import Node, load_node
from metapkg.resolve.tagtries import (
    TAG_TRIES,
    Mismatch,
    Unusable,
    gave_up,
    grouped,
    tag_disagrees,
)

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy knows the name)
if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

    from metapkg.resolve.downloads import Pending

DEFAULT_WORKERS = 16
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Edge:
    parent: Origin | None  # None: the project manifest (or an override)
    dependency: Dependency
    chosen: Origin | None = None  # the candidate the dependency led to, once loaded


@dataclass
class Crawl:
    nodes: dict[Origin, Node] = field(default_factory=dict)
    edges: list[Edge] = field(default_factory=list)
    problems: list[Diagnostic] = field(default_factory=list)

    def chosen(self, dependency: Dependency) -> Node | None:
        for edge in self.edges:
            if edge.dependency == dependency and edge.chosen is not None:
                return self.nodes.get(edge.chosen)
        return None

    def chain(self, origin: Origin | None) -> list[str]:
        """Labels from a direct dependency down to ``origin`` (first path found)."""
        parents: dict[Origin, Origin | None] = {}
        for edge in self.edges:
            for reached in {edge.chosen, edge.dependency.origin} - {None}:
                assert reached is not None
                parents.setdefault(reached, edge.parent)
        labels: list[str] = []
        seen: set[Origin] = set()
        while origin is not None and origin not in seen:
            seen.add(origin)
            node = self.nodes.get(origin)
            labels.append(node.package.label if node else str(origin))
            origin = parents.get(origin)
        return labels[::-1]

    def depths(self) -> dict[Origin, int]:
        """How far below metapkg.yaml each origin was first found (direct dependencies: 1)."""
        children: dict[Origin | None, list[Origin]] = {}
        for edge in self.edges:
            if edge.chosen is not None:
                children.setdefault(edge.parent, []).append(edge.chosen)
        depth: dict[Origin, int] = {}
        level, frontier = 1, children.get(None, [])
        while frontier:
            following = []
            for origin in frontier:
                if origin not in depth:
                    depth[origin] = level
                    following.extend(children.get(origin, []))
            level, frontier = level + 1, following
        return depth


class Discovery:
    """Loads nodes on a thread pool, once per origin; lives as long as one resolution."""

    def __init__(
        self, sources: Sources, candidates: Candidates, workers: int = DEFAULT_WORKERS
    ) -> None:
        self.sources = sources
        self.candidates = candidates
        # Threads mostly wait (for another thread's download of the same archive, or for
        # one of the HTTP client's `workers` slots): too few, and waiting threads hold up
        # fetches from other repositories.
        self._workers = max(1, workers) * 4
        self._pool: ThreadPoolExecutor | None = None  # started by the first remote load
        self._nodes: Once[Origin, Node] = Once()
        self._preferred: Once[tuple[Origin, str | None], Origin] = Once()
        self._lock = threading.Lock()
        self._closing = threading.Event()  # stop loading ahead of need (warm)
        # warm's loader reads each download's other packages here; None: the discovery closes
        self._ready: queue.SimpleQueue[list[Origin] | None] = queue.SimpleQueue()
        self.mismatches: dict[Mismatch, None] = {}  # tags met while choosing (tag-version)

    def close(self) -> None:
        self._closing.set()
        self._ready.put(None)  # even if warm, cut short, never hands on what its loader awaits
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)

    def _executor(self) -> ThreadPoolExecutor:
        """The pool, started when first needed: a project of local folders loads everything
        inline and never imports concurrent.futures (with logging: 12 ms)."""
        if self._pool is None:
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(self._workers, thread_name_prefix="load")
        return self._pool

    # -- nodes --------------------------------------------------------------------------------

    def node(self, origin: Origin) -> Node:
        """The loaded package at ``origin`` (blocking; loaded once per run)."""
        return self._nodes.get(origin, lambda: load_node(self.sources.fetch(origin), origin))

    def preferred(self, dependency: Dependency) -> Origin:
        """The candidate a dependency most likely resolves to (see candidates.py): the
        first of its likely candidates that loads and, if it came from a version tag,
        holds the version the tag names."""
        key = (dependency.origin, dependency.constraint)
        return self._preferred.get(key, lambda: self._first_usable(dependency))

    def _first_usable(self, dependency: Dependency) -> Origin:
        """At most TAG_TRIES unusable tags are tried (see tagtries.py)."""
        tried: list[Unusable] = []
        for origin in self.candidates.preferred(dependency):
            if origin == dependency.origin:
                return origin  # what the dependency names: its own errors are reported
            if len(tried) == TAG_TRIES:
                raise gave_up(dependency, tried)
            ref = self.candidates.tag_name(origin)
            try:
                node = self.node(origin)
            except MetapkgError as exc:
                tried.append(Unusable(ref, None, exc))
                continue
            mismatch = tag_disagrees(node)
            if mismatch is None:
                return origin
            self.note(mismatch)
            tried.append(Unusable(ref, mismatch))
        if any(item.mismatch is not None for item in tried):
            raise gave_up(dependency, tried)
        failure = next((item.failure for item in tried if item.failure is not None), None)
        if failure is not None:
            raise failure
        raise NotFound(dependency.origin, f"no tagged version in {dependency.constraint} loads")

    def note(self, mismatch: Mismatch) -> None:
        with self._lock:
            self.mismatches.setdefault(mismatch)

    @property
    def notes(self) -> list[Diagnostic]:
        """Warnings met while choosing: one ``tag-version`` per package."""
        with self._lock:
            return grouped(self.mismatches)

    def preferred_node(self, dependency: Dependency) -> Node:
        return self.node(self.preferred(dependency))

    def submit(self, work: Callable[[], Node], inline: bool = False) -> Pending:
        """``work`` on the pool, or with ``inline`` here and now: a local folder is read
        faster than a thread starts, and threads would only trade the GIL back and forth
        (20 local skills: 55 ms on the pool, 25 ms inline)."""
        if not inline:
            return self._executor().submit(work)
        return Result.of(work)

    def warm(self, origins: Iterable[Origin]) -> None:
        """Load origins expected to be needed (the lock's packages): the first package of
        each download (a repository at a ref) on the pool, so every download starts at
        once; the others by one thread, a download's packages as soon as its first is
        loaded; those at hand (cached, or local) here and now.

        A task per package, in the lock's order, filled the pool with packages waiting
        for the few downloads their repositories' first packages had started: a cold
        install of 300 packages from a lock started 10 of its 30 downloads at once, the
        rest in fives over a second. A task per download that loaded all of its packages
        made 64 threads load at once at 3,000 packages, trading the interpreter lock back
        and forth (28 s of loading in 7 s): loads are CPU work, done best by one thread.
        That thread starts first: queued behind the first packages, it began 2,700 loads
        only once every download had landed (2.5 s more at 3,000 packages). Those at hand
        load here for the same reason: a warm 300-package install took 0.92 s so and 1.25 s
        on the pool."""
        at_hand = []
        downloads: dict[str, list[Origin]] = {}
        for origin in origins:
            if self.sources.at_hand(origin):
                at_hand.append(origin)
            else:
                downloads.setdefault(download_group(origin), []).append(origin)
        followers = sum(1 for _, *others in downloads.values() if others)
        if followers:
            self._executor().submit(self._load_as_ready, followers)
        for first, *others in downloads.values():
            loading = self._executor().submit(_quietly, self.node, first)
            if others:
                loading.add_done_callback(partial(_hand_on, self._ready, others))
        for origin in at_hand:
            _quietly(self.node, origin)

    def _load_as_ready(self, count: int) -> None:
        """Load ``count`` lists of origins handed on by ``warm``, each as it arrives, until
        the discovery closes."""
        for _ in range(count):
            origins = self._ready.get()
            if origins is None:
                return
            for origin in origins:
                if self._closing.is_set():
                    return
                _quietly(self.node, origin)

    # -- the crawl ----------------------------------------------------------------------------

    def crawl(
        self,
        roots: Sequence[Dependency],
        overrides: Mapping[str, Origin],
        progress: Progress | None = None,
    ) -> Crawl:
        """Load the preferred candidate of every dependency reachable from ``roots``."""
        result = Crawl()
        futures: dict[Pending, Why] = {}
        scheduled: set[tuple[Origin, str | None]] = set()
        # Completed futures arrive here: concurrent.futures.wait() installs a waiter on
        # every pending future per call, which at 3,000 packages cost seconds.
        finished: queue.SimpleQueue[Pending] = queue.SimpleQueue()

        def track(future: Pending, why: Why) -> None:
            futures[future] = why
            future.add_done_callback(finished.put)

        shared = SharedDownloads(self.submit, track)

        def schedule(parent: Origin | None, dependency: Dependency) -> None:
            key = (dependency.origin, dependency.constraint)
            if key in scheduled:
                return
            scheduled.add(key)
            shared.start(partial(self.preferred_node, dependency), (parent, dependency, None))

        for replacement in sorted(set(overrides.values()), key=str):
            work = partial(self.node, replacement)
            track(self.submit(work, replacement.is_local), (None, None, replacement))
        for root in roots:
            schedule(None, root)
        done_count = 0
        while futures:
            done = _batch(finished)
            for future in sorted(done, key=lambda f: _sort_key(futures[f])):
                parent, dependency, origin = futures.pop(future)
                shared.finished(future)
                done_count += 1
                node = self._collect(future, parent, dependency, origin, result)
                if node is None:
                    continue
                replaced = overrides.get(node.package.fqn)
                if replaced is not None and replaced != node.origin:
                    continue  # an override stands in for this package and its dependencies
                for child in node.package.dependencies:
                    if node.origin.is_local is False and child.origin.is_local:
                        result.problems.append(_local_from_remote(node, child.origin))
                        continue
                    schedule(node.origin, child)
            if progress is not None:
                progress(done_count, done_count + len(futures))
        result.problems.extend(_kind_problems(result))
        return result

    def _collect(
        self,
        future: Pending,
        parent: Origin | None,
        dependency: Dependency | None,
        origin: Origin | None,
        result: Crawl,
    ) -> Node | None:
        try:
            node = future.result()
        except NotFound as exc:
            if dependency is not None:
                result.edges.append(Edge(parent, dependency))
            chain = " -> ".join(result.chain(parent))
            required = f"required by {chain}" if chain else "required by metapkg.yaml"
            shown = str(dependency.origin) if dependency else str(origin)
            result.problems.append(
                error("missing", shown, f"dependency not found ({exc.why}); {required}")
            )
            return None
        except Unsatisfiable as exc:
            assert dependency is not None
            result.edges.append(Edge(parent, dependency))
            asker = " -> ".join(result.chain(parent)) if parent else "metapkg.yaml"
            result.problems.append(exc.diagnostic(asker))
            return None
        except MetapkgError as exc:
            # Packages sharing one failed download share its error: report it once.
            if dependency is not None:
                result.edges.append(Edge(parent, dependency))
            result.problems.extend(d for d in exc.diagnostics if d not in result.problems)
            return None
        if dependency is not None:
            result.edges.append(Edge(parent, dependency, node.origin))
        result.nodes[node.origin] = node
        return node


def _batch(finished: queue.SimpleQueue[Pending]) -> list[Pending]:
    """The next completed future (waiting for one), and every other already completed."""
    done = [finished.get()]
    while True:
        try:
            done.append(finished.get_nowait())
        except queue.Empty:
            return done


def _sort_key(item: tuple[Origin | None, Dependency | None, Origin | None]) -> str:
    parent, dependency, origin = item
    return f"{parent}|{dependency.origin if dependency else origin}"


def _quietly(load: Callable[[Origin], Node], origin: Origin) -> None:
    """Load ahead of need; a failure here is reported when the resolver asks for real."""
    with contextlib.suppress(Exception):
        load(origin)


def _hand_on(
    ready: queue.SimpleQueue[list[Origin] | None], others: list[Origin], _: object
) -> None:
    """Hand a download's other packages to warm's loader once its first is done: called
    when that load is done, failed or cancelled alike, so none is ever lost."""
    ready.put(others)


def _local_from_remote(node: Node, child: Origin) -> Diagnostic:
    """A package from a remote origin naming a file: origin would make metapkg read (and
    copy into the project and lock) whatever sits at that path on this machine."""
    return error(
        "file-origin",
        str(node.origin),
        f"{node.package.label}, fetched from {node.origin.repository}, depends on the local "
        f"{child}; a published package cannot reach into this machine. Ask its author for "
        f"a GitHub origin",
    )


def _kind_problems(result: Crawl) -> list[Diagnostic]:
    problems = []
    reported: set[tuple[Origin, str]] = set()
    for edge in result.edges:
        node = result.nodes.get(edge.chosen) if edge.chosen is not None else None
        wanted = edge.dependency.kind
        if node is None or node.package.kind == wanted or (node.origin, wanted) in reported:
            continue
        reported.add((node.origin, wanted))
        asker = " -> ".join(result.chain(edge.parent)) if edge.parent else "metapkg.yaml"
        problems.append(
            error(
                "kind",
                str(edge.dependency.origin),
                f"{asker} lists this under {wanted}s, but it holds {node.package.label}; "
                f"move it to the {node.package.kind}s list"
                + (
                    " (agents cannot be dependencies)"
                    if node.package.kind == "agent" and edge.parent
                    else ""
                ),
            )
        )
    return problems
