"""One candidate, loaded: the package an origin's fetched files hold, with its integrity.

A :class:`Node` is what the resolver chooses among and what the lock records. Loading
one is the same whether the files came from a download, the cache or a local folder;
:mod:`metapkg.resolve.discovery` decides when and on which thread.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from metapkg.diagnostics import Diagnostic, FetchError, error
from metapkg.fetch.source import Fetched, NotFound
from metapkg.fetch.tags import tag_version
from metapkg.integrity import ModifiedInCache, TreeError, tree_hash
from metapkg.origins import Origin
from metapkg.packages.load import detect_kind, load_package
from metapkg.packages.models import Key, Package
from metapkg.packages.semver import SemVer


@dataclass(frozen=True)
class Node:
    """One origin, fetched and loaded."""

    origin: Origin
    fetched: Fetched
    package: Package
    integrity: str
    diagnostics: tuple[Diagnostic, ...]

    @property
    def package_key(self) -> Key:
        return self.package.key


def load_node(fetched: Fetched, origin: Origin) -> Node:
    kind = detect_kind(fetched.path)
    if kind is None:
        raise NotFound(
            origin,
            "holds no package: no SKILL.md, AGENTS.md or <name>.3md there, and it is not "
            "a .json file",
        )
    try:
        loaded = load_package(
            fetched.path, fetched.display, kind, fetched.folder_name, consumer=True
        )
    except OSError as exc:
        raise _unreadable(fetched, exc) from None
    if loaded.package is None:
        raise FetchError(loaded.diagnostics)
    package = _with_plain_version(loaded.package, fetched)
    try:
        integrity = fetched.integrity or tree_hash(fetched.path, sealed=fetched.shared)
    except OSError as exc:
        raise _unreadable(fetched, exc) from None
    except ModifiedInCache as exc:
        raise FetchError(
            [
                error(
                    "integrity",
                    fetched.display,
                    f"{package.label}: the download cache's copy changed after "
                    f"download ({exc}); run `metapkg install` online to fetch it again",
                )
            ]
        ) from None
    except TreeError as exc:
        raise FetchError([error("link", fetched.display, str(exc))]) from None
    return Node(origin, fetched, package, integrity, loaded.diagnostics)


def _with_plain_version(package: Package, fetched: Fetched) -> Package:
    """A plain Agent Skills package has no MetaAgents ``version``; it gets the one its
    ``metadata.version`` says, else the one the version tag it was fetched at names
    (``v1.2.0``), else none (then the lock has no version, and changes show as content
    changes). So version ranges work for plainly published, tagged skills."""
    if package.metaagents or package.version is not None:
        return package
    version = package.metadata_version
    if version is None and fetched.pin is not None:
        named = tag_version(fetched.pin.ref, fetched.folder_name)
        version = str(named) if named is not None else None
    if version is None or SemVer.parse(version) is None:
        return package
    return dataclasses.replace(package, version=version)


def _unreadable(fetched: Fetched, exc: OSError) -> FetchError:
    """A file or folder of the package that cannot be read (no permission): name it."""
    why = exc.strerror or type(exc).__name__
    if exc.filename is None:
        return FetchError([error("fetch", fetched.display, f"cannot read the package ({why})")])
    message = f"cannot read it ({why}); it is part of {fetched.display}: check its permissions"
    return FetchError([error("fetch", str(exc.filename), message)])
