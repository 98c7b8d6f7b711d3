"""Every crash the fuzz suite found, kept as an input that must not crash again.

Each case names its target (targets.py), the shortest input found and what went wrong.
``open_bug`` is the reason while the bug is not fixed (tests/test_fuzz.py marks the case
``xfail(strict=True)`` with it); None once it is.
"""

from __future__ import annotations

from dataclasses import dataclass

from reliability.fuzz.tarballs import TOP, Archive, Member

BIG = "9" * 5000  # digits past Python's int() limit of 4,300


@dataclass(frozen=True)
class Regression:
    id: str
    target: str
    value: object
    what: str
    open_bug: str | None = None
    where: str = ""  # while open: the crash signature's place (runner._signature)


def known(signature: str) -> bool:
    """Whether a crash signature is an open bug already kept here."""
    return any(case.open_bug and case.where in signature for case in CASES)


def _chain(planes: int) -> str:
    """An agent whose every skill links the one before: each skill's provisioned file lists
    all skills below it."""
    head = '---\n3md: 1.0\nagent: a\n---\n@plane z=0 label="a" kind=identity\n# a\n\nRoute.\n'
    return head + "".join(
        f'@plane z={i} label="s{i}" kind=skill\n# Skill: s{i}\n[[z={i - 1}|x]]\n'
        for i in range(1, planes)
    )


CASES = (
    Regression("yaml-empty-int", "yaml", "!!int ''", "IndexError in the !!int constructor"),
    Regression("yaml-bool-word", "yaml", "!!bool maybe", "KeyError in the !!bool constructor"),
    Regression("yaml-bad-timestamp", "yaml", "a: !!timestamp x", "ruamel ConstructorError escaped"),
    Regression(
        "frontmatter-empty-float",
        "frontmatter",
        "---\nname: a\nversion: !!float ''\n---\n",
        "IndexError through frontmatter.parse",
    ),
    Regression("lock-tagged-bool", "lock", "lock-version: !!bool maybe\n", "KeyError via the lock"),
    Regression(
        "range-huge-number",
        "ranges",
        BIG,
        "ValueError: a version number over 4,300 digits",
    ),
    Regression(
        "changelog-huge-version",
        "changelog",
        f"## {BIG}.0.0 (2026-01-15)\n\n## 1.0.0 (2026-01-14)\n",
        "ValueError from SemVer.parse while ordering entries",
    ),
    Regression(
        "changelog-huge-prerelease",
        "changelog",
        f"## 1.0.0-{BIG} (2026-01-15)\n\n## 1.0.0-1 (2026-01-14)\n",
        "ValueError from SemVer.sort_key while ordering entries",
    ),
    Regression(
        "archive-long-name",
        "archive",
        Archive((Member(f"{TOP}/{'c' * 300}", b"0", b"x", 0o644, ""),), 1, None, None),
        "OSError ENAMETOOLONG escapes extract",
    ),
)


# Not a crash but a blow-up (fixed): the provisioned files of a .3md agent grew with the
# square of its skills when each linked the one before (every skill listed its whole chain).
CHAIN = _chain(200)
