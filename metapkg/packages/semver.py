"""Semantic versions (semver.org 2.0.0): parsing and precedence, nothing more."""

from __future__ import annotations

import re
from dataclasses import dataclass

SEMVER = re.compile(
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*))*))?"
    r"(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$"
)


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

    def sort_key(self) -> tuple[int, int, int, int, tuple[tuple[int, int | str], ...]]:
        # A release sorts after its prereleases; numeric identifiers sort before alphanumeric.
        pre = tuple((0, int(p)) if p.isdigit() else (1, p) for p in self.prerelease)
        return (self.major, self.minor, self.patch, 0 if self.prerelease else 1, pre)

    def __lt__(self, other: SemVer) -> bool:
        return self.sort_key() < other.sort_key()

    def __le__(self, other: SemVer) -> bool:
        return self.sort_key() <= other.sort_key()


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
