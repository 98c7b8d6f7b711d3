"""Tags whose content disagrees with them, and how many of a package's tags are tried.

A candidate from a version tag must hold the version its tag names (``tag-version``): a
retagged or mistagged release must not slip in. Finding out costs the tag's download, so
a repository with many such tags cost one archive per tag (2,000 tags: 2,001 requests and
two and a half minutes for one package), and printed one warning per tag. So:

* at most :data:`TAG_TRIES` tags of a package are tried, newest first, that turn out
  unusable (disagreeing, or not loading); then resolution stops with a ``tag-limit``
  error naming the tags tried and what to do;
* the disagreeing tags met are said in one ``tag-version`` warning per package: a count
  and a few examples.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from metapkg.diagnostics import Diagnostic, MetapkgError, ResolutionError, error, warning
from metapkg.fetch.tags import tag_version
from metapkg.origins import Origin
from metapkg.packages.models import Dependency
from metapkg.packages.semver import SemVer
from metapkg.resolve.node import Node

TAG_TRIES = 20  # unusable tags tried per package before giving up (README: Version ranges)
_SHOWN = 3  # examples a grouped message names


@dataclass(frozen=True)
class Mismatch:
    """A tag that names one version of a package whose content says another."""

    origin: Origin  # the package at the tag
    ref: str  # the tag
    named: SemVer  # the version the tag names
    says: str  # the version the package declares
    label: str  # the package ("skill acme/x")
    place: str  # the repository and path: which mismatches are one package's

    @property
    def example(self) -> str:
        return f"{self.ref} says {self.says}"


def tag_disagrees(node: Node) -> Mismatch | None:
    """The mismatch when ``node`` came from a version tag naming another version than its
    package declares; None when it agrees, or names no version."""
    pin = node.fetched.pin
    version = node.package.version
    if pin is None or version is None:
        return None
    named = tag_version(pin.ref, node.fetched.folder_name)
    found = SemVer.parse(version)
    if named is None or found is None or found == named:
        return None
    place = node.fetched.place
    where = f"{place.repository}/{place.path}" if place is not None else str(node.origin)
    return Mismatch(node.origin, pin.ref, named, version, node.package.label, where)


def grouped(mismatches: Iterable[Mismatch]) -> list[Diagnostic]:
    """One ``tag-version`` warning per package, its newest disagreeing tags as examples."""
    by_place: dict[str, list[Mismatch]] = {}
    for mismatch in mismatches:
        by_place.setdefault(mismatch.place, []).append(mismatch)
    found = []
    for items in by_place.values():
        items.sort(key=lambda m: m.named.sort_key(), reverse=True)
        first = items[0]
        if len(items) == 1:
            message = (
                f"tag {first.ref} names version {first.named}, but {first.label} there says "
                f"{first.says}; the tag is not used as a candidate (retag it, or fix the version)"
            )
        else:
            message = (
                f"{len(items):,} tags of {first.label} name another version than the package "
                f"there says, so they are not used as candidates: "
                f"{_examples([m.example for m in items])} (retag them, or fix the version)"
            )
        found.append(warning("tag-version", str(first.origin), message))
    return found


@dataclass(frozen=True)
class Unusable:
    """A tag tried for a dependency that gave no candidate, and why."""

    ref: str  # the tag
    mismatch: Mismatch | None  # None: it did not load (``failure``)
    failure: MetapkgError | None = None


def gave_up(dependency: Dependency, tried: Sequence[Unusable]) -> ResolutionError:
    """No tag in range is usable, and some hold another version than they name: the
    newest :data:`TAG_TRIES` (``tag-limit``), or all there are (``tag-version``)."""
    refs = [item.ref for item in tried]
    mismatched = [item.mismatch.example for item in tried if item.mismatch is not None]
    failed = [item for item in tried if item.mismatch is None]
    why = []
    if mismatched:
        why.append(
            f"{len(mismatched)} name another version than the package there says "
            f"({_examples(mismatched)})"
        )
    if failed:
        first = failed[0].failure
        reason = first.diagnostics[0].message if first and first.diagnostics else "not found"
        why.append(f"{len(failed)} did not load (first: {failed[0].ref}: {reason})")
    span = f"{refs[0]} down to {refs[-1]}" if len(refs) > 1 else refs[0]
    fix = (
        "fix the tags or the package's version field, narrow the range to exclude the bad "
        "tags, or name the tag you want as the origin's ref without a range"
    )
    if len(tried) >= TAG_TRIES:
        rule = "tag-limit"
        said = (
            f"tried the newest {len(tried)} tags in {dependency.constraint} ({span}) and none "
            f"is usable: {'; '.join(why)}. metapkg tries at most {TAG_TRIES} unusable tags "
            f"per package: {fix}"
        )
    else:
        rule = "tag-version"
        said = (
            f"none of the {len(tried)} tags in {dependency.constraint} ({span}) is usable: "
            f"{'; '.join(why)}. {fix[0].upper()}{fix[1:]}"
        )
    return ResolutionError([error(rule, str(dependency.origin), said)])


def _examples(items: Sequence[str]) -> str:
    shown = ", ".join(items[:_SHOWN])
    more = len(items) - _SHOWN
    return f"{shown} and {more:,} more" if more > 0 else shown
