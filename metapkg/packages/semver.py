"""Semantic versions (semver.org 2.0.0) and version ranges, the one version model of metapkg.

Ranges are written as npm and cargo users write them (node-semver's grammar):

    ^1.2.3  ^0.2  ~1.4  1.x  1.2.*  *        caret, tilde and wildcard ranges
    >=1.2 <2   >=1.2,<2                       comparators; space or comma means AND
    1.2.3 - 2.3   =1.2.3   1.2.3              hyphen ranges; a bare version is exact
    ^1.2 || ^2.0                              OR

A prerelease (``1.3.0-beta.1``) sorts below its release and is excluded from a range
unless one of the range's comparators names a prerelease of the same major.minor.patch,
exactly as in npm: ``^1.2`` never picks ``1.3.0-beta.1``, ``>=1.3.0-beta.0 <2`` does.

Why not a library: ``semantic_version`` (last release 2022) costs ~60 ms to import,
which is most of a small install's budget, and refuses npm's own ``>= 1.2`` spacing;
``packaging`` answers PEP 440 questions, not semver ones. The grammar is small and
fully covered by tests.

Versions and ranges come from packages and manifests, so they are bounded: a number has
at most ``MAX_DIGITS`` digits (node-semver's limit; Python's ``int()`` refuses 4,300), and
a range is at most ``MAX_RANGE_CHARS`` long. Both are far past any real version.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from metapkg.limits import RANGE_CHARS

MAX_DIGITS = 16  # per number: major, minor, patch, a numeric prerelease identifier
MAX_RANGE_CHARS = RANGE_CHARS

_NUMBER = rf"(?:0|[1-9][0-9]{{0,{MAX_DIGITS - 1}}})"
_IDENTIFIER = rf"(?:{_NUMBER}|[0-9]*[A-Za-z-][0-9A-Za-z-]*)"  # of a prerelease
SEMVER = re.compile(
    rf"^({_NUMBER})\.({_NUMBER})\.({_NUMBER})"
    rf"(?:-({_IDENTIFIER}(?:\.{_IDENTIFIER})*))?"
    r"(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$"
)
_LONG_NUMBER = re.compile(rf"(?<![0-9A-Za-z])[0-9]{{{MAX_DIGITS + 1},}}(?![0-9A-Za-z])")


def too_many_digits(text: str) -> bool:
    """Whether ``text`` has a number longer than a version may (for the messages that
    refuse it: the number is why, not the shape)."""
    return _LONG_NUMBER.search(text) is not None


def digits_hint() -> str:
    return f"a version number has at most {MAX_DIGITS} digits"


@dataclass(frozen=True)
class SemVer:
    major: int
    minor: int
    patch: int
    prerelease: tuple[str, ...] = ()

    @classmethod
    def parse(cls, text: str) -> SemVer | None:
        match = SEMVER.match(text)
        if not match:
            return None
        pre = tuple(match.group(4).split(".")) if match.group(4) else ()
        return cls(int(match.group(1)), int(match.group(2)), int(match.group(3)), pre)

    @property
    def core(self) -> tuple[int, int, int]:
        return (self.major, self.minor, self.patch)

    def sort_key(self) -> tuple[int, int, int, int, tuple[tuple[int, int | str], ...]]:
        # A release sorts after its prereleases; numeric identifiers sort before alphanumeric.
        pre = tuple((0, int(p)) if p.isdigit() else (1, p) for p in self.prerelease)
        return (self.major, self.minor, self.patch, 0 if self.prerelease else 1, pre)

    def __lt__(self, other: SemVer) -> bool:
        return self.sort_key() < other.sort_key()

    def __le__(self, other: SemVer) -> bool:
        return self.sort_key() <= other.sort_key()

    def __gt__(self, other: SemVer) -> bool:
        return self.sort_key() > other.sort_key()

    def __ge__(self, other: SemVer) -> bool:
        return self.sort_key() >= other.sort_key()

    def __str__(self) -> str:
        pre = f"-{'.'.join(self.prerelease)}" if self.prerelease else ""
        return f"{self.major}.{self.minor}.{self.patch}{pre}"


def is_semver(text: str) -> bool:
    return SEMVER.match(text) is not None


def bump(old: str, new: str) -> str | None:
    """The size of a version change: 'major', 'minor', 'patch', 'prerelease' or None."""
    a, b = SemVer.parse(old), SemVer.parse(new)
    if a is None or b is None or a == b:
        return None
    if a.major != b.major:
        return "major"
    if a.minor != b.minor:
        return "minor"
    if a.patch != b.patch:
        return "patch"
    return "prerelease"


# -- ranges -----------------------------------------------------------------------------------


_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "=": operator.eq,
}  # fmt: skip


class RangeError(ValueError):
    """The text is not a version range; the message says what is wrong."""


@dataclass(frozen=True)
class Comparator:
    op: str  # one of < <= > >= =
    version: SemVer

    def test(self, version: SemVer) -> bool:
        return _COMPARE[self.op](version.sort_key(), self.version.sort_key())

    def __str__(self) -> str:
        return f"{self.op}{self.version}"


@dataclass(frozen=True)
class Range:
    """A parsed range: OR of AND-sets of comparators, and the text as the user wrote it."""

    text: str
    sets: tuple[tuple[Comparator, ...], ...]

    @classmethod
    def parse(cls, text: str) -> Range:
        if len(text) > MAX_RANGE_CHARS:
            raise RangeError(
                f"the version range is {len(text)} characters long; a range is at most "
                f"{MAX_RANGE_CHARS} (write one like ^1.2 or >=1.2,<2)"
            )
        written = " ".join(text.split())
        if not written:
            raise RangeError("the version range is empty; write one like ^1.2 or >=1.2,<2")
        sets = tuple(_comparator_set(part.strip(), written) for part in written.split("||"))
        return cls(written, sets)

    def contains(self, version: SemVer | str) -> bool:
        parsed = SemVer.parse(version) if isinstance(version, str) else version
        if parsed is None:
            return False
        return any(_set_contains(comparators, parsed) for comparators in self.sets)

    def __str__(self) -> str:
        return self.text


def _set_contains(comparators: tuple[Comparator, ...], version: SemVer) -> bool:
    if not all(c.test(version) for c in comparators):
        return False
    if not version.prerelease:
        return True
    # npm: a prerelease only matches where the range names a prerelease of its own core.
    return any(c.version.prerelease and c.version.core == version.core for c in comparators)


_OPERATOR_SPACE = re.compile(r"(<=|>=|<|>|=|~>|~|\^)\s+")
_PARTIAL = re.compile(
    rf"^v?(?P<major>x|X|\*|{_NUMBER})"
    rf"(?:\.(?P<minor>x|X|\*|{_NUMBER})"
    rf"(?:\.(?P<patch>x|X|\*|{_NUMBER})"
    rf"(?:-(?P<pre>{_IDENTIFIER}(?:\.{_IDENTIFIER})*))?"
    r"(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?)?)?$"
)
_SIMPLE = re.compile(r"^(?P<op><=|>=|<|>|=|~>|~|\^)?(?P<partial>.*)$")


@dataclass(frozen=True)
class _Partial:
    """A version with parts possibly missing or wildcards (None)."""

    major: int | None
    minor: int | None
    patch: int | None
    pre: tuple[str, ...]

    def floor(self) -> SemVer:
        return SemVer(self.major or 0, self.minor or 0, self.patch or 0, self.pre)


def _comparator_set(part: str, written: str) -> tuple[Comparator, ...]:
    if not part:
        raise RangeError(f"{written!r}: an empty alternative around '||'")
    hyphen = re.fullmatch(r"(\S+)\s+-\s+(\S+)", part)
    if hyphen:
        low, high = _partial(hyphen.group(1), written), _partial(hyphen.group(2), written)
        return (Comparator(">=", low.floor()), *_upper(high, inclusive=True))
    if re.search(r"(?:^|,)\s*(?:,|$)", part):
        raise RangeError(f"{written!r}: a comma with no comparator next to it")
    found: list[Comparator] = []
    for simple in re.split(r"[\s,]+", _OPERATOR_SPACE.sub(r"\1", part)):
        if simple:
            found.extend(_simple(simple, written))
    return tuple(found) or (Comparator(">=", SemVer(0, 0, 0)),)


def _simple(simple: str, written: str) -> list[Comparator]:
    match = _SIMPLE.match(simple)
    assert match is not None
    op, partial = match.group("op") or "", _partial(match.group("partial"), written)
    if op == "^":
        return _caret(partial)
    if op in ("~", "~>"):
        return _tilde(partial)
    if op in ("", "="):
        if partial.patch is not None:
            return [Comparator("=", partial.floor())]
        return _between(partial)
    return _primitive(op, partial)


def _partial(text: str, written: str) -> _Partial:
    match = _PARTIAL.match(text)
    if not match:
        if too_many_digits(text):
            raise RangeError(f"{written!r}: {digits_hint()}")
        raise RangeError(
            f"{written!r}: {text!r} is not a version; write ranges like ^1.2, ~1.4.0, "
            f">=1.2,<2 or 1.x"
        )

    def number(name: str) -> int | None:
        value = match.group(name)
        return None if value is None or value in ("x", "X", "*") else int(value)

    major, minor, patch = number("major"), number("minor"), number("patch")
    if major is None:
        minor = patch = None
    elif minor is None:
        patch = None
    pre = tuple(match.group("pre").split(".")) if match.group("pre") and patch is not None else ()
    return _Partial(major, minor, patch, pre)


def _next_up(partial: _Partial) -> SemVer:
    """The first version above every version the partial names (as ``x.y.z-0``)."""
    assert partial.major is not None
    if partial.minor is None:
        return SemVer(partial.major + 1, 0, 0, ("0",))
    return SemVer(partial.major, partial.minor + 1, 0, ("0",))


def _between(partial: _Partial) -> list[Comparator]:
    """``1.x``, ``1.2``, ``*``: everything the partial names."""
    if partial.major is None:
        return [Comparator(">=", SemVer(0, 0, 0))]
    return [Comparator(">=", partial.floor()), Comparator("<", _next_up(partial))]


def _upper(partial: _Partial, inclusive: bool) -> list[Comparator]:
    if partial.major is None:
        return []
    if partial.patch is None:
        return [Comparator("<", _next_up(partial))]
    return [Comparator("<=" if inclusive else "<", partial.floor())]


def _caret(p: _Partial) -> list[Comparator]:
    if p.major is None:
        return [Comparator(">=", SemVer(0, 0, 0))]
    low = Comparator(">=", p.floor())
    if p.major > 0 or p.minor is None:
        return [low, Comparator("<", SemVer(p.major + 1, 0, 0, ("0",)))]
    if p.minor > 0 or p.patch is None:
        return [low, Comparator("<", SemVer(0, p.minor + 1, 0, ("0",)))]
    return [low, Comparator("<", SemVer(0, 0, p.patch + 1, ("0",)))]


def _tilde(p: _Partial) -> list[Comparator]:
    if p.major is None:
        return [Comparator(">=", SemVer(0, 0, 0))]
    low = Comparator(">=", p.floor())
    if p.minor is None:
        return [low, Comparator("<", SemVer(p.major + 1, 0, 0, ("0",)))]
    return [low, Comparator("<", SemVer(p.major, p.minor + 1, 0, ("0",)))]


def _primitive(op: str, p: _Partial) -> list[Comparator]:
    if p.major is None:  # >=* and <=* match everything, <* and >* nothing
        everything = op in (">=", "<=")
        return [Comparator(">=" if everything else "<", SemVer(0, 0, 0))]
    if p.patch is not None:
        return [Comparator(op, p.floor())]
    if op == ">":  # >1.2 is >=1.3.0
        return [Comparator(">=", SemVer(*_next_up(p).core))]
    if op == "<=":  # <=1.2 is <1.3.0-0
        return [Comparator("<", _next_up(p))]
    if op == "<":  # <1.2 is <1.2.0-0
        return [Comparator("<", SemVer(p.major, p.minor or 0, 0, ("0",)))]
    return [Comparator(">=", p.floor())]  # >=1.2 is >=1.2.0
