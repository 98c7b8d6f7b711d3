"""The source interface: turn an origin into a package on local disk."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from metapkg.diagnostics import FetchError, LockError
from metapkg.origins import Origin


@dataclass(frozen=True)
class RefPin:
    """The commit a GitHub (repo, ref) resolved to, recorded in the lock's ``pins``."""

    repo: str
    ref: str
    commit: str


@dataclass(frozen=True)
class Fetched:
    origin: Origin
    path: Path  # the package folder, or the MCP .json file, on local disk
    display: str  # how diagnostics name the package root
    folder_name: str  # what the name-dir rule compares the package name with
    pin: RefPin | None = None  # GitHub origins only
    # True for trees in the download cache: never modified in place (files are read-only),
    # so provisioning may hard-link them instead of copying.
    shared: bool = False
    # Computed by the source when it can check it on the way (cached trees against their
    # record); otherwise the loader hashes the path.
    integrity: str | None = None

    @property
    def commit(self) -> str | None:
        return self.pin.commit if self.pin else None


class NotFound(FetchError):
    """The origin does not exist (404, no such ref, no such path): a missing dependency."""

    def __init__(self, origin: Origin, why: str) -> None:
        from metapkg.diagnostics import error

        super().__init__([error("missing", str(origin), why)])
        self.origin = origin
        self.why = why


class Source(Protocol):
    def fetch(self, origin: Origin) -> Fetched: ...


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
