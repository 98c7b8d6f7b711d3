"""Which git tags name versions of a package, and which version each names.

A repository of one package tags releases ``v1.2.3`` or ``1.2.3``. A catalog holding many
packages tags each package's releases on its own: ``<name>@1.2.3`` (changesets, lerna) or
``<name>/v1.2.3`` (Go modules, release-please). When a repository has any *version* tag of
the package's own form, only those count for it; otherwise the plain tags do. A tag of the
package's own form that names no version (``x@latest``, ``x/vnext``, ``x@1.9.0@``) counts
for nothing: it is ignored (``tag-ignored``) and never hides the package's other tags.

A version tagged twice (``v1.0.0`` and ``1.0.0``) counts once: by the tag of the form most
of the package's version tags use, the ``v`` form on a tie (the conventional one: Go
modules require it, and GitHub's release tooling defaults to it). When the two tags point
at different commits that choice decides what gets installed, so it is said
(``tag-duplicate``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from metapkg.diagnostics import Diagnostic, warning
from metapkg.packages.semver import SemVer

_PLAIN = re.compile(r"^v?(?P<version>\d.*)$")
_SHOWN = 3  # examples a grouped warning names


@dataclass(frozen=True)
class Duplicate:
    """A version two tags name, at different commits: ``kept`` is the one that counts."""

    version: SemVer
    kept: str
    kept_commit: str
    other: str
    other_commit: str


@dataclass(frozen=True)
class PackageTags:
    """A package's version tags (newest first), and what was left out and why."""

    tags: tuple[tuple[SemVer, str], ...]
    ignored: tuple[str, ...] = ()  # tags of the package's own form naming no version
    duplicates: tuple[Duplicate, ...] = ()

    def notes(self, where: str, package: str) -> list[Diagnostic]:
        """One ``tag-ignored`` and one ``tag-duplicate`` warning at most, each a count and
        a few examples, for the package ``package`` (e.g. ``acme/x (skills/x)``)."""
        found = []
        if self.ignored:
            found.append(
                warning(
                    "tag-ignored",
                    where,
                    f"{_count(len(self.ignored), 'tag')} of {package} "
                    f"{'names' if len(self.ignored) == 1 else 'name'} no version and "
                    f"{'is' if len(self.ignored) == 1 else 'are'} ignored: "
                    f"{_examples(self.ignored)}; version tags look like "
                    f"<name>@1.2.3 or <name>/v1.2.3 (rename or delete the others)",
                )
            )
        if self.duplicates:
            pairs = [
                f"{d.kept} ({d.kept_commit[:12]}) over {d.other} ({d.other_commit[:12]})"
                for d in self.duplicates
            ]
            found.append(
                warning(
                    "tag-duplicate",
                    where,
                    f"{_count(len(pairs), 'version')} of {package} "
                    f"{'is' if len(pairs) == 1 else 'are'} tagged twice at different commits; "
                    f"metapkg uses the tag of the form most of its version tags use (the v "
                    f"form on a tie): {_examples(pairs)}; delete or move the other tag",
                )
            )
        return found


def read_tags(listed: Mapping[str, str], folder: str) -> PackageTags:
    """The version tags of the package in ``folder`` among ``listed`` (tag name ->
    commit), newest first, with the tags left out."""
    own = (f"{folder}@", f"{folder}/")
    scoped = [(name, name[len(p) :]) for name in sorted(listed) for p in own if name.startswith(p)]
    named = _versions(scoped)
    ignored = tuple(name for name, rest in scoped if _version(rest) is None)
    if not named:
        named = _versions([(name, name) for name in sorted(listed)])
    forms = Counter(form for _, _, form in named)
    by_version: dict[SemVer, list[tuple[str, str]]] = {}
    for version, name, form in named:
        by_version.setdefault(version, []).append((name, form))
    chosen: list[tuple[SemVer, str]] = []
    duplicates: list[Duplicate] = []
    for version, names in by_version.items():
        names.sort(key=lambda item: (-forms[item[1]], not item[1].endswith("v"), item[0]))
        kept = names[0][0]
        chosen.append((version, kept))
        duplicates.extend(
            Duplicate(version, kept, listed[kept], other, listed[other])
            for other, _ in names[1:]
            if listed[other] != listed[kept]
        )
    chosen.sort(key=lambda item: item[0].sort_key(), reverse=True)
    duplicates.sort(key=lambda d: d.version.sort_key(), reverse=True)
    return PackageTags(tuple(chosen), ignored, tuple(duplicates))


def package_tags(listed: Mapping[str, str], folder: str) -> list[tuple[SemVer, str]]:
    """(version, tag name) of every tag of the package in ``folder``, newest first."""
    return list(read_tags(listed, folder).tags)


def tag_version(name: str, folder: str) -> SemVer | None:
    """The version a tag names for the package in ``folder`` (None if it names none)."""
    for prefix in (f"{folder}@", f"{folder}/", ""):
        if name.startswith(prefix):
            version = _version(name[len(prefix) :])
            if version is not None:
                return version
    return None


def _version(text: str) -> SemVer | None:
    match = _PLAIN.match(text)
    return SemVer.parse(match.group("version")) if match else None


def _versions(pairs: list[tuple[str, str]]) -> list[tuple[SemVer, str, str]]:
    """(version, tag name, form) of each (tag name, text after the package's prefix) that
    names a version; the form is the name without its version (``x/v``, ``v``, ``""``)."""
    found = []
    for name, rest in pairs:
        match = _PLAIN.match(rest)
        version = SemVer.parse(match.group("version")) if match else None
        if match is not None and version is not None:
            found.append((version, name, name[: len(name) - len(match.group("version"))]))
    return found


def _count(number: int, noun: str) -> str:
    return f"{number:,} {noun}" + ("" if number == 1 else "s")


def _examples(items: tuple[str, ...] | list[str]) -> str:
    shown = ", ".join(items[:_SHOWN])
    more = len(items) - _SHOWN
    return f"{shown} and {more:,} more" if more > 0 else shown
