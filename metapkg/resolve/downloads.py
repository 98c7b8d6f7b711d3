"""Loads that share one download: packages of one repository at one ref come from one
archive. ``download_group`` says which loads most likely do; ``SharedDownloads`` starts the
crawl's loads around it (the first on the pool, the others once it is in), and
``Discovery.warm`` groups a lock's packages by it the same way."""

from __future__ import annotations

from collections.abc import Callable

from metapkg.origins import Origin
from metapkg.packages.models import Dependency
from metapkg.resolve.node import Node

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy knows the name)
if TYPE_CHECKING:
    from concurrent.futures import Future
    from typing import TypeAlias

    from metapkg.fetch.once import Result

    Pending: TypeAlias = "Future[Node] | Result[Node]"  # on the pool, or done inline

# Why a load was started: (parent, dependency, None), or (None, None, override origin).
Why = tuple[Origin | None, Dependency | None, Origin | None]


class SharedDownloads:
    """Starts the crawl's loads so that packages sharing one download share one thread.

    Packages of one repository at one ref come from one archive. The first goes to the
    pool; the others wait here (not each on a thread of its own that would only wait for
    the same download: a thread start alone can cost the interpreter's 5 ms switch
    interval) and load inline once it is in, from the extracted archive. Local packages
    always load inline; ranged dependencies (tags to try) go to the pool.
    """

    def __init__(
        self,
        submit: Callable[[Callable[[], Node], bool], Pending],
        track: Callable[[Pending, Why], None],
    ) -> None:
        self.submit = submit
        self.track = track
        self.waiting: dict[str, list[tuple[Callable[[], Node], Why]]] = {}
        self.group_of: dict[Pending, str] = {}
        self.fetched: set[str] = set()

    def start(self, work: Callable[[], Node], why: Why) -> None:
        dependency = why[1]
        assert dependency is not None
        origin = dependency.origin
        group = None if dependency.constraint or origin.is_local else download_group(origin)
        if origin.is_local or (group is not None and group in self.fetched):
            self.track(self.submit(work, True), why)
        elif group is not None and group in self.waiting:
            self.waiting[group].append((work, why))
        else:
            future = self.submit(work, False)
            if group is not None:
                self.waiting[group] = []
                self.group_of[future] = group
            self.track(future, why)

    def finished(self, future: Pending) -> None:
        """``future`` is done: the packages waiting for its download load now."""
        group = self.group_of.pop(future, None)
        if group is None:
            return
        self.fetched.add(group)
        for work, why in self.waiting.pop(group):
            self.track(self.submit(work, True), why)


def download_group(origin: Origin) -> str:
    """Origins that most likely share one download: same repository, same ref (or at
    least the same first segment of one)."""
    return f"{origin.repository}@{origin.path_text.split('/', 1)[0]}"
