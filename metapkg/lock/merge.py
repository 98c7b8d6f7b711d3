"""A metapkg.lock with git merge-conflict markers: read both sides, keep what they pinned.

Two branches that each added a package leave a lock git cannot merge line by line. As
pnpm and yarn do, metapkg reads both sides (and the common base, in git's diff3 style),
and the install after a merge starts from the union of their pins and locked versions:
nothing either side settled is resolved again, so no pin silently moves. When both sides
pinned one (repo, ref) to different commits, the side that changed it wins (with a base
to tell), else the current branch's (HEAD's); ``notes`` say which. The lock written
afterwards is an ordinary, fresh one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from metapkg.lock.format import LockedPackage, Lockfile, Pin, parse
from metapkg.packages.models import Key

_OURS = re.compile(r"^<{7}(?: .*)?$")
_BASE = re.compile(r"^\|{7}(?: .*)?$")
_THEIRS = re.compile(r"^={7}$")
_END = re.compile(r"^>{7}(?: .*)?$")


@dataclass(frozen=True)
class Merged:
    lock: Lockfile  # both sides' pins and packages, for the resolution to start from
    notes: tuple[str, ...]


def has_conflicts(text: str) -> bool:
    if "<<<<<<<" not in text:  # every install asks: a 3,000-package lock splits in 6 ms
        return False
    lines = text.splitlines()
    return any(_OURS.match(line) for line in lines) and any(_END.match(line) for line in lines)


def sides(text: str) -> tuple[str, str | None, str]:
    """(ours, base or None, theirs): the whole text as each side had it."""
    ours: list[str] = []
    base: list[str] = []
    theirs: list[str] = []
    state = "both"
    saw_base = False
    for line in text.splitlines(keepends=True):
        bare = line.rstrip("\r\n")
        if state == "both" and _OURS.match(bare):
            state = "ours"
        elif state == "ours" and _BASE.match(bare):
            state, saw_base = "base", True
        elif state in ("ours", "base") and _THEIRS.match(bare):
            state = "theirs"
        elif state == "theirs" and _END.match(bare):
            state = "both"
        elif state == "both":
            ours.append(line)
            base.append(line)
            theirs.append(line)
        else:
            {"ours": ours, "base": base, "theirs": theirs}[state].append(line)
    return "".join(ours), "".join(base) if saw_base else None, "".join(theirs)


def merge(text: str) -> Merged:
    """Both sides of a conflicted lock as one; raises the reader's error when a side
    does not read as a lock at all."""
    ours_text, base_text, theirs_text = sides(text)
    ours, theirs = parse(ours_text), parse(theirs_text)
    base = parse(base_text) if base_text is not None else None
    pins, notes = _pins(ours, theirs, base)
    packages = {p.key: p for p in theirs.packages} | {p.key: p for p in ours.packages}
    mine = {p.key for p in ours.packages}
    added = sorted(p.label for p in theirs.packages if p.key not in mine)
    if added:
        notes.append(f"kept the other branch's {', '.join(added)}")
    lock = Lockfile(
        targets=ours.targets,
        requires=tuple(dict.fromkeys(ours.requires + theirs.requires)),
        overrides=ours.overrides,
        pins=tuple(pins.values()),
        packages=tuple(_newer_side(packages, theirs, base)),
        provisioned=ours.provisioned,
        mcp_servers=ours.mcp_servers,
        renamed=tuple(dict.fromkeys(ours.renamed + theirs.renamed)),
    )
    return Merged(lock, tuple(notes))


def _pins(
    ours: Lockfile, theirs: Lockfile, base: Lockfile | None
) -> tuple[dict[tuple[str, str, str], Pin], list[str]]:
    notes: list[str] = []
    chosen: dict[tuple[str, str, str], Pin] = {(p.host, p.repo, p.ref): p for p in theirs.pins}
    based = {(p.host, p.repo, p.ref): p.commit for p in base.pins} if base is not None else {}
    for pin in ours.pins:
        key = (pin.host, pin.repo, pin.ref)
        other = chosen.get(key)
        if other is not None and other.commit != pin.commit:
            was = based.get(key)
            if was is not None and was == pin.commit:
                notes.append(f"{pin.repo}@{pin.ref}: took the other branch's {other.commit[:12]}")
                continue
            notes.append(
                f"{pin.repo}@{pin.ref}: both branches moved it; kept this branch's "
                f"{pin.commit[:12]} (not {other.commit[:12]}); `metapkg update` moves it"
            )
        chosen[key] = pin
    return chosen, notes


def _newer_side(
    packages: dict[Key, LockedPackage],
    theirs: Lockfile,
    base: Lockfile | None,
) -> list[LockedPackage]:
    """Each package once: ours, unless only the other branch changed it since the base."""
    result = []
    their = {p.key: p for p in theirs.packages}
    based = {p.key: p for p in base.packages} if base is not None else {}
    for key, package in packages.items():
        other = their.get(key)
        if other is not None and based.get(key) == package:
            result.append(other)
        else:
            result.append(package)
    return result
