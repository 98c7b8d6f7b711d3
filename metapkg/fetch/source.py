"""Sources: where packages come from, one implementation per origin scheme.

A :class:`Source` answers the four questions the resolver asks of an origin scheme (as
pip's ``Factory.find_candidates`` and PDM's repositories do for indexes):

* ``fetch(origin)``: the package on local disk, its ref resolved to a commit (reusing the
  lock's pins), with where in its repository it lives;
* ``locate(origin)``: only where it lives (a ref may contain ``/``, so splitting ref and
  path can need the host), without downloading anything;
* ``versions(origin)``: the tagged versions of the package at that place, newest first,
  each as an origin at its tag (empty for schemes without versions);
* ``used_pins()``: the (ref -> commit) pins this run relied on, for the lock (and,
  where a source has it, ``renamed()``: the repository renames they went through);
* ``close()``.

``file:`` and GitHub are the implementations (fetch/file.py, fetch/github.py); tests add
an in-memory one. :mod:`metapkg.fetch.sources` finds the one for an origin by its scheme.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from metapkg.diagnostics import Diagnostic, FetchError, LockError
from metapkg.origins import Origin
from metapkg.packages.semver import SemVer


@dataclass(frozen=True)
class RefPin:
    """The commit a (repo, ref) resolved to, recorded in the lock's ``pins``."""

    repo: str
    ref: str
    commit: str
    host: str = "github.com"

    @property
    def key(self) -> tuple[str, str]:
        """What origins find this pin by (``Origin.ref_keys``): (repository, ref), the
        repository qualified by its host except on github.com, whose keys (and cache
        paths) predate other forges."""
        return (self.repo if self.host == "github.com" else f"{self.host}/{self.repo}", self.ref)


@dataclass(frozen=True)
class Renamed:
    """A repository the host moved: ``old`` answers with a redirect to ``new``. The lock
    records it (``renamed``), so a dependency still naming ``old`` finds the pin of
    ``new`` with no request, and the repository is pinned and downloaded once."""

    old: str
    new: str
    host: str = "github.com"


@dataclass(frozen=True)
class Place:
    """Where a package lives, whatever the ref: a repository and a path in it.

    Two origins with one place are versions of one package (a tag and a branch of it);
    version ranges choose among the versions of one place.
    """

    repository: str  # "github.com/acme/catalog", "file:/abs/path"
    path: str  # inside the repository ("" for its root or a file: origin)

    def same(self, other: Place) -> bool:
        return (self.repository, self.path) == (other.repository, other.path)


@dataclass(frozen=True)
class Located:
    """An origin's place, and the pin of the ref that told where the path starts."""

    place: Place
    pin: RefPin | None = None


@dataclass(frozen=True)
class Fetched:
    origin: Origin
    path: Path  # the package folder, or the MCP .json file, on local disk
    display: str  # how diagnostics name the package root
    folder_name: str  # what the name-dir rule compares the package name with
    pin: RefPin | None = None  # origins with refs only
    # True for trees in the download cache: never modified in place (files are read-only),
    # so provisioning may hard-link them instead of copying.
    shared: bool = False
    # Computed by the source when it can check it on the way (cached trees against their
    # record); otherwise the loader hashes the path.
    integrity: str | None = None
    place: Place | None = None

    @property
    def commit(self) -> str | None:
        return self.pin.commit if self.pin else None


@dataclass(frozen=True)
class Tag:
    """A tagged version of a package: the tag, the version it names, the origin at it."""

    version: SemVer
    name: str
    origin: Origin


class NotFound(FetchError):
    """The origin does not exist (404, no such ref, no such path): a missing dependency."""

    def __init__(self, origin: Origin, why: str) -> None:
        from metapkg.diagnostics import error

        super().__init__([error("missing", str(origin), why)])
        self.origin = origin
        self.why = why


class Source(Protocol):
    def fetch(self, origin: Origin) -> Fetched: ...

    def locate(self, origin: Origin) -> Located: ...

    def versions(self, origin: Origin) -> list[Tag]: ...

    def used_pins(self) -> Iterable[RefPin]: ...

    def at_hand(self, origin: Origin) -> bool:
        """Can ``fetch`` be answered from this machine (a local folder, or a pinned commit
        already in the download cache)? Such loads are cheaper done at once than handed
        to a thread (see resolve/discovery.py)."""
        ...

    def warnings(self) -> list[Diagnostic]:
        """What the run should tell the user about this source (e.g. a renamed repository)."""
        ...

    def close(self) -> None: ...


def unpinned_under_frozen(origins: list[Origin]) -> LockError:
    """--frozen met an origin whose ref the lock does not pin."""
    from metapkg.diagnostics import error

    return LockError(
        [
            error(
                "lock",
                str(origin),
                "metapkg.lock pins no commit for this origin's ref; --frozen never resolves "
                "refs. Run `metapkg lock` and commit metapkg.lock",
            )
            for origin in origins
        ]
    )
