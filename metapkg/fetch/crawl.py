"""Crawl the dependency graph: fetch every origin once, concurrently, and load it.

A package's dependencies are scheduled the moment that package is loaded, so the crawl
costs about one fetch per level of the graph on its critical path, not one per package.
Each distinct origin is fetched once however many packages ask for it (diamonds).

Worker threads only fetch (network, archive extraction: waiting that releases the GIL);
the calling thread parses and hashes. Parsing in the workers would only make them take
turns on the GIL.

The crawl only gathers: which origins exist, what they hold, and who asked for what.
Judging the graph (conflicts, cycles, constraints) is the resolver's job.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field

from metapkg.diagnostics import Diagnostic, FetchError, error
from metapkg.fetch.source import Fetched, NotFound, Source
from metapkg.integrity import ModifiedInCache, TreeError, tree_hash
from metapkg.origins import FileOrigin, GitHubOrigin, Origin
from metapkg.packages.load import detect_kind, load_package
from metapkg.packages.models import Dependency, Kind, Package

DEFAULT_WORKERS = 16


@dataclass(frozen=True)
class Node:
    """One origin, fetched and loaded."""

    origin: Origin
    fetched: Fetched
    package: Package
    integrity: str
    diagnostics: tuple[Diagnostic, ...]

    @property
    def package_key(self) -> tuple[Kind, str]:
        return (self.package.kind, self.package.fqn)


@dataclass(frozen=True)
class Edge:
    parent: Origin | None  # None: the project manifest (or an override)
    dependency: Dependency


@dataclass
class Crawl:
    nodes: dict[Origin, Node] = field(default_factory=dict)
    edges: list[Edge] = field(default_factory=list)
    problems: list[Diagnostic] = field(default_factory=list)

    def chain(self, origin: Origin | None) -> list[str]:
        """Labels from a direct dependency down to ``origin`` (first path found)."""
        parents: dict[Origin, Origin | None] = {}
        for edge in self.edges:
            parents.setdefault(edge.dependency.origin, edge.parent)
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
            children.setdefault(edge.parent, []).append(edge.dependency.origin)
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


Progress = Callable[[int, int], None]


def crawl(
    roots: Sequence[Dependency],
    overrides: Mapping[str, Origin],
    source: Source,
    workers: int = DEFAULT_WORKERS,
    progress: Progress | None = None,
    prefetch: Iterable[Origin] = (),
) -> Crawl:
    """Fetch and load everything ``roots`` need.

    ``prefetch`` are origins expected to be needed (the lock's packages): their fetches
    start at once instead of level by level, so a cold cache with a lock costs one wave
    of downloads.
    """
    result = Crawl()
    override_origins = set(overrides.values())
    futures: dict[Future[Fetched], Origin] = {}
    scheduled: set[Origin] = set()

    # Crawl threads mostly wait: for another thread's download of the same archive, or for
    # one of the `workers` request slots of the HTTP client. Too few of them and waiting
    # threads hold up fetches from other repositories.
    threads = max(1, workers) * 4
    with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="fetch") as pool:

        def schedule(origin: Origin) -> None:
            if origin not in scheduled:
                scheduled.add(origin)
                futures[pool.submit(source.fetch, origin)] = origin

        for origin in prefetch:
            pool.submit(_warm, source, origin)
        for origin in sorted(override_origins, key=str):
            schedule(origin)
        for dependency in roots:
            result.edges.append(Edge(None, dependency))
            schedule(dependency.origin)
        done_count = 0
        while futures:
            done, _ = wait(futures, return_when=FIRST_COMPLETED)
            for future in sorted(done, key=lambda f: str(futures[f])):
                origin = futures.pop(future)
                done_count += 1
                node = _collect(future, origin, result)
                if node is None:
                    continue
                replaced = overrides.get(node.package.fqn)
                if replaced is not None and replaced != origin:
                    continue  # an override stands in for this package and its dependencies
                for dependency in node.package.dependencies:
                    result.edges.append(Edge(origin, dependency))
                    if _reaches_into_this_machine(origin, dependency.origin):
                        result.problems.append(_local_from_remote(node, dependency.origin))
                        continue
                    schedule(dependency.origin)
            if progress is not None:
                progress(done_count, len(scheduled))
    result.problems.extend(_kind_problems(result))
    return result


def _reaches_into_this_machine(parent: Origin, child: Origin) -> bool:
    """A package from GitHub naming a file: origin would make metapkg read (and copy into
    the project and lock) whatever sits at that path on this machine."""
    return isinstance(parent, GitHubOrigin) and isinstance(child, FileOrigin)


def _local_from_remote(node: Node, child: Origin) -> Diagnostic:
    return error(
        "file-origin",
        str(node.origin),
        f"{node.package.label}, fetched from GitHub, depends on the local {child}; a "
        f"published package cannot reach into this machine. Ask its author for a GitHub origin",
    )


def _warm(source: Source, origin: Origin) -> None:
    """Fetch ahead of need; a failure here is reported when the crawl asks for real."""
    with contextlib.suppress(Exception):
        source.fetch(origin)


def _load(future: Future[Fetched], origin: Origin) -> Node:
    fetched = future.result()
    kind = detect_kind(fetched.path)
    if kind is None:
        raise NotFound(
            origin, "holds no package: no SKILL.md or AGENTS.md there, and it is not a .json file"
        )
    loaded = load_package(fetched.path, fetched.display, kind, fetched.folder_name)
    if loaded.package is None:
        raise FetchError(loaded.diagnostics)
    try:
        integrity = fetched.integrity or tree_hash(fetched.path, sealed=fetched.shared)
    except ModifiedInCache as exc:
        raise FetchError(
            [
                error(
                    "integrity",
                    fetched.display,
                    f"{loaded.package.label}: the download cache's copy changed after "
                    f"download ({exc}; was a provisioned file edited in place?). Run "
                    f"`metapkg cache clean`, then install again",
                )
            ]
        ) from None
    except TreeError as exc:
        raise FetchError([error("link", fetched.display, str(exc))]) from None
    return Node(origin, fetched, loaded.package, integrity, loaded.diagnostics)


def _collect(future: Future[Fetched], origin: Origin, result: Crawl) -> Node | None:
    try:
        node = _load(future, origin)
    except NotFound as exc:
        chain = " -> ".join(result.chain(origin)[:-1])
        required = f"required by {chain}" if chain else "required by metapkg.yaml"
        result.problems.append(
            error("missing", str(origin), f"dependency not found ({exc.why}); {required}")
        )
        return None
    except FetchError as exc:
        # Packages sharing one failed download share its error: report it once.
        result.problems.extend(d for d in exc.diagnostics if d not in result.problems)
        return None
    result.nodes[origin] = node
    return node


def _kind_problems(result: Crawl) -> list[Diagnostic]:
    problems = []
    reported: set[tuple[Origin, str]] = set()
    for edge in result.edges:
        node = result.nodes.get(edge.dependency.origin)
        wanted = edge.dependency.kind
        if (
            node is None
            or node.package.kind == wanted
            or (edge.dependency.origin, wanted) in reported
        ):
            continue
        reported.add((edge.dependency.origin, wanted))
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
