"""The files of each changed package on both sides of a diff, read from the pinned trees.

An added package is compared with nothing (every line is new); a removed one is not read
(it no longer reaches the agent); a move to another commit with the same integrity has
nothing to show. Offline, or when a tree cannot be found as the lock pins it, the change
says why its content is not shown instead of failing the whole diff.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from metapkg.diff.changelogs import Unavailable, pinned_tree
from metapkg.diff.compare import Change
from metapkg.diff.content import Content, compare_trees, snapshot
from metapkg.fetch.sources import Sources


def attach(changes: list[Change], before: Sources, after: Sources, project: Path) -> list[Change]:
    """``before`` and ``after``: sources pinned by the old and the new lock."""
    found = {c.label: _read(c, before, after, project) for c in changes if _has_content(c)}
    return [
        dataclasses.replace(c, content=found[c.label]) if c.label in found else c for c in changes
    ]


def _has_content(change: Change) -> bool:
    if change.new is None or change.change == "renamed":
        return False
    return change.old is None or change.old.integrity != change.new.integrity


def _read(change: Change, before: Sources, after: Sources, project: Path) -> Content:
    assert change.new is not None
    try:
        new_files = snapshot(pinned_tree(change.new, after, project))
    except Unavailable as exc:
        return Content(unavailable=str(exc))
    old_files = {}
    if change.old is not None:
        try:
            old_files = snapshot(pinned_tree(change.old, before, project))
        except Unavailable as exc:
            return Content(unavailable=f"the old content: {exc}")
    return compare_trees(old_files, new_files)
