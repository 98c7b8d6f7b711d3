"""Every row of the fault table: a scenario, how many trials it runs, how to run one.

A scenario is an entry here, not a branch in the runner: a name, the trial counts of the
short and the long mode, a function that runs trial ``i`` in a lab, and a reason it
cannot run on this machine (or None). The case-based modules (files, network) become
one scenario per group of cases; a trial cycles through the group's cases.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from reliability.faults import disk, files, kills, network
from reliability.faults.lab import Lab, Outcome


@dataclass(frozen=True)
class Scenario:
    name: str
    short: int  # trials in the short mode (CI)
    long: int  # trials in the long mode
    trial: Callable[[Lab, int], Outcome]
    unavailable: Callable[[], str | None] = lambda: None

    def trials(self, long: bool) -> int:
        return self.long if long else self.short


class _Case(Protocol):
    @property
    def name(self) -> str: ...


C = TypeVar("C", bound=_Case)

# The few cases the short mode (CI) runs besides its kills; all pass on today's metapkg.
SHORT_CASES = {
    "read-only .claude/skills",
    "archive host refuses",
}
LONG_REPEATS = 2  # each case twice in the long mode: the same fault, other timings


def _kill(operation: kills.Operation, short: int) -> Scenario:
    def trial(lab: Lab, index: int) -> Outcome:
        return kills.trial(lab, operation, kills.reference(lab, operation), index)

    return Scenario(f"kill -9 during {operation.name}", short, 50, trial)


def _cases(
    group: str,
    all_cases: Sequence[C],
    run: Callable[[Lab, C], Outcome],
    skip: Callable[[C], str | None] = lambda case: None,
) -> Scenario:
    usable = [case for case in all_cases if skip(case) is None]
    short = [case for case in usable if case.name in SHORT_CASES]

    def trial(lab: Lab, index: int) -> Outcome:
        chosen = (usable if lab.long else short)[index % len(usable if lab.long else short)]
        return run(lab, chosen)

    def unavailable() -> str | None:
        if usable:
            return None
        return skip(all_cases[0]) if all_cases else "no cases"

    return Scenario(group, len(short), len(usable) * LONG_REPEATS, trial, unavailable)


def all_scenarios() -> list[Scenario]:
    found = [_kill(op, short) for op, short in zip(kills.OPERATIONS, (4, 3, 3), strict=True)]
    found.append(Scenario("full disk", 1, 30, disk.trial))
    found += [
        _cases(group, files.cases(group), files.trial, files.unavailable) for group in files.GROUPS
    ]
    found += [_cases(group, network.cases(group), network.trial) for group in network.GROUPS]
    return found
