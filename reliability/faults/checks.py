"""The promises every fault trial checks, as functions that describe what broke."""

from __future__ import annotations

import re
from pathlib import Path

from reliability.faults import state, world
from reliability.faults.cli import Result
from reliability.faults.lab import Lab, Outcome

_DIAGNOSTIC = re.compile(r"^\S.*: error\[[a-z0-9-]+\]: \S", re.MULTILINE)
# What a message shows when it formats an exception's missing parts instead of a reason.
_EMPTY = re.compile(r"\((?:None|Error)\)|: None$", re.MULTILINE)


def clear_failure(result: Result, what: str, outcome: Outcome) -> None:
    """Exit 1, no traceback, at least one ``path: error[rule]: message`` line, and no
    message that says nothing (``(None)``, ``(Error)``, ``...: None``)."""
    outcome.saw(result, what)
    if result.code != 1:
        outcome.fail(f"{what}: expected exit 1 with a clear error\n{result.show()}")
    elif not _DIAGNOSTIC.search(result.err):
        outcome.fail(f"{what}: exit 1 without an error[...] diagnostic\n{result.show()}")
    elif _EMPTY.search(result.err):
        outcome.fail(f"{what}: a diagnostic that says nothing\n{result.show()}")


def unchanged(
    project: Path, old: state.Snapshot, before: dict[str, object], what: str, outcome: Outcome
) -> None:
    """The project is exactly as before and the user's own things are untouched."""
    if world.user_data(project) != before:
        outcome.lost = True
        outcome.fail(f"{what}: the user's own files or .mcp.json entries changed")
    now = state.snapshot(project)
    if now != old:
        outcome.fail(f"{what}: the project changed: {state.difference(now, old)}")


def recovers(
    lab: Lab, sandbox: Path, new: state.Snapshot | None, what: str, outcome: Outcome
) -> None:
    """Once the fault is gone, ``install`` and ``verify`` succeed (and reach ``new``)."""
    env = lab.env(sandbox)
    for command in ("install", "verify"):
        result = outcome.saw(lab.run(sandbox, command, env=env), f"{command} after {what}")
        if result.code != 0:
            outcome.fail(f"`{command}` after {what} (fault removed) failed\n{result.show()}")
            return
    project = sandbox / "project"
    if new is not None and state.snapshot(project) != new:
        outcome.fail(f"after {what}: {state.difference(state.snapshot(project), new)}")
    left = state.leftovers(project)
    if left:
        outcome.fail(f"after {what}: transactions left behind: {', '.join(left)}")
