"""Which of the packages a folder holds ``add`` takes: ``--skill NAME``, ``--all``, or the
one package there is.

A name matches the name a package declares (its SKILL.md's ``name``), else its folder's
name. Two different packages with one name are never chosen between silently: ``--skill
NAME`` stops and lists the URL of each (a tree URL adds exactly one), and ``--all`` adds
the others and reports each of them as skipped, with that same advice.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from metapkg.diagnostics import Diagnostic, UsageError, warning

if TYPE_CHECKING:
    from metapkg.packages.discover import Discovery, Found


LISTED = 20  # names an error shows of a folder that holds more


@dataclass(frozen=True)
class Choice:
    """Which packages of a folder that holds many to add (``--skill``, ``--all``)."""

    names: tuple[str, ...] = ()
    every: bool = False


def choose(
    source: str,
    found: Discovery,
    choice: Choice,
    where: Callable[[Found], str],
    skip: Callable[[Diagnostic], None],
) -> list[Found]:
    """The packages of ``found`` that ``choice`` names; ``where`` gives a package's URL,
    ``skip`` is told each package ``--all`` passes over, and why."""
    packages = found.packages
    same = found.same_names()
    if choice.every:
        passed: set[Found] = set()  # a set: a repository of hundreds, many same-named
        for name, founds in same.items():
            for one in founds:
                if one in passed:
                    continue  # in two groups (a name and a folder): reported once
                passed.add(one)
                others = ", ".join(where(f) for f in founds if f is not one)
                message = (
                    f"not added: {len(founds)} different packages here are named {name} (also "
                    f"{others}); add the one you want by its URL (metapkg add URL)"
                )
                skip(warning("duplicate-name", where(one), message))
        return [f for f in packages if f not in passed]
    if choice.names:
        return _named(source, packages, choice.names, where)
    if len(packages) == 1:
        return packages
    raise UsageError.single(
        "usage",
        source,
        f"holds {len(packages)} packages: {listing(packages)}; choose with --skill NAME "
        f"(repeatable) or add them all with --all",
    )


def _named(
    source: str, packages: list[Found], names: tuple[str, ...], where: Callable[[Found], str]
) -> list[Found]:
    chosen: list[Found] = []
    unknown: list[str] = []
    for name in dict.fromkeys(names):
        matches = [f for f in packages if f.label == name]
        matches = matches or [f for f in packages if f.path.name == name]
        if not matches:
            unknown.append(name)
        elif len(matches) > 1:
            raise UsageError.single("usage", source, _ambiguous(name, matches, where))
        elif matches[0] not in chosen:
            chosen.append(matches[0])
    if unknown:
        raise UsageError.single(
            "usage",
            source,
            f"no package {', '.join(unknown)} here; it holds {listing(packages)}",
        )
    return chosen


def _ambiguous(name: str, founds: list[Found], where: Callable[[Found], str]) -> str:
    urls = ", ".join(where(f) for f in founds)
    return (
        f"{len(founds)} different packages are named {name}: {urls}; none is chosen for "
        f"you: add the one you want by its URL (metapkg add URL)"
    )


def listing(packages: list[Found]) -> str:
    """The names, each once; a name several packages share says how many. A repository
    of hundreds shows the first ``LISTED`` and how many more."""
    counts: dict[str, int] = {}
    for found in packages:
        counts[found.label] = counts.get(found.label, 0) + 1
    shown = [f"{n} ({c} folders)" if c > 1 else n for n, c in sorted(counts.items())]
    if len(shown) <= LISTED:
        return ", ".join(shown)
    more = len(shown) - LISTED
    return f"{', '.join(shown[:LISTED])} and {more} more (`--all --dry-run` lists them all)"
