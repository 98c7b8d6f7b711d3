"""CHANGELOG entries for a diff, read from the packages the new lock pins.

Content comes from the download cache (or is fetched when missing), by the exact commit
the lock pins, and is used only if its integrity matches the lock: a reviewer must never
be shown release notes of content other than what will be installed.
"""

from __future__ import annotations

from pathlib import Path

from metapkg.diagnostics import MetapkgError
from metapkg.diff.compare import Change, Changelog, with_changelog
from metapkg.fetch.sources import FetchOptions, Sources
from metapkg.integrity import TreeError, tree_hash
from metapkg.lock import format as lockfmt
from metapkg.origins import OriginSyntaxError, parse_origin
from metapkg.packages import changelog
from metapkg.packages.models import ChangelogEntry


def pinned_sources(lock: lockfmt.Lockfile | None, offline: bool) -> Sources:
    """Sources that find packages exactly as ``lock`` pins them (never a ref's newer
    commit); the caller closes them."""
    if lock is None:
        return Sources(FetchOptions(offline=offline, frozen=True))
    return Sources(FetchOptions(pins=lock.pins, offline=offline, frozen=True, renamed=lock.renamed))


def attach(changes: list[Change], sources: Sources, project: Path) -> list[Change]:
    """``sources``: pinned by the new lock (``pinned_sources``)."""
    # A package without a version (a plain skill) has no CHANGELOG to show or to miss.
    wanted = [c for c in changes if c.new is not None and c.kind != "mcp" and c.new.version]
    found = {change.label: _read(change, sources, project) for change in wanted}
    return [with_changelog(c, found[c.label]) if c.label in found else c for c in changes]


def _read(change: Change, sources: Sources, project: Path) -> Changelog:
    package = change.new
    assert package is not None
    try:
        entries = pinned_entries(package, sources, project)
    except Unavailable as exc:
        return Changelog(unavailable=str(exc))
    has_entry = any(e.version == package.version for e in entries)
    if change.change == "upgraded" and change.from_version and package.version:
        shown = changelog.between(entries, change.from_version, package.version)
    else:
        shown = tuple(e for e in entries if e.version == package.version)
    return Changelog(shown, has_entry=has_entry)


class Unavailable(Exception):
    """Why the CHANGELOG of a locked package cannot be shown; the message says it."""


def pinned_tree(package: lockfmt.LockedPackage, sources: Sources, project: Path) -> Path:
    """Where ``package``'s files are, as the lock pins them, only when the content
    ``sources`` finds matches the lock's integrity (the diff's content and CHANGELOGs, the
    graph page's details)."""
    try:
        fetched = sources.fetch(parse_origin(package.origin, project))
        # The source's own integrity when it checked the tree on the way (cached trees
        # against their record): hashing it again read every file twice.
        if (fetched.integrity or tree_hash(fetched.path)) != package.integrity:
            raise Unavailable("the content found does not match the lock's integrity")
    except (MetapkgError, OriginSyntaxError, TreeError) as exc:
        raise Unavailable(str(exc).splitlines()[0] if str(exc) else type(exc).__name__) from None
    return fetched.path


def pinned_entries(
    package: lockfmt.LockedPackage, sources: Sources, project: Path
) -> tuple[ChangelogEntry, ...]:
    """The CHANGELOG entries of ``package`` as the lock pins it (see ``pinned_tree``)."""
    path = pinned_tree(package, sources, project)
    try:
        text = (path / changelog.FILENAME).read_text(encoding="utf-8")
    except OSError as exc:
        raise Unavailable(f"{changelog.FILENAME} cannot be read ({exc.strerror})") from None
    except UnicodeDecodeError:
        raise Unavailable(f"{changelog.FILENAME} is not UTF-8 text") from None
    entries, _ = changelog.parse(text, changelog.FILENAME)
    return entries
