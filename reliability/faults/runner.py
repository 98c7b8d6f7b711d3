"""Run the fault scenarios and add up their trials into one table.

Trials are independent (each has its own sandbox), so they run on a small thread pool;
the threads only wait on metapkg subprocesses. The references and the template every
trial copies are built first, once, so no trial pays for them.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

from reliability.faults import kills
from reliability.faults.lab import HEADERS, Lab, Outcome, Tally
from reliability.faults.scenarios import Scenario, all_scenarios
from reliability.report import table


def _safe(scenario: Scenario, lab: Lab, index: int) -> Outcome:
    """A trial that crashes is a failed trial (the suite's bug or metapkg's), not a crash."""
    try:
        return scenario.trial(lab, index)
    except Exception as exc:  # reported in the table, with the trial named
        outcome = Outcome()
        outcome.fail(f"trial {index} could not run: {type(exc).__name__}: {exc}")
        return outcome


def run(
    long: bool,
    seed: int,
    jobs: int = 2,
    only: str | None = None,
    keep: bool = False,
    progress: bool = False,
    lab: Lab | None = None,
) -> list[Tally]:
    """Every scenario's trials; in ``lab`` when given (it is left open), else in a new one."""
    scenarios = [s for s in all_scenarios() if only is None or only in s.name]
    tallies = {s.name: Tally(s.name) for s in scenarios}
    own = lab is None
    lab = lab or Lab(random.Random(seed), long=long, keep=keep)
    try:
        runnable = []
        for scenario in scenarios:
            reason = scenario.unavailable()
            if reason is not None:
                tallies[scenario.name].skipped = reason
            elif scenario.trials(long) > 0:
                runnable.append(scenario)
        lab.installed()
        for operation in kills.OPERATIONS:
            kills.reference(lab, operation)
        work = [(s, i) for s in runnable for i in range(s.trials(long))]
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            futures = [(s, pool.submit(_safe, s, lab, i)) for s, i in work]
            for scenario, future in futures:
                tallies[scenario.name].add(future.result())
                if progress:
                    print(".", end="", file=sys.stderr, flush=True)
        if progress:
            print(file=sys.stderr)
    finally:
        if own:
            lab.close()
    return [t for t in tallies.values() if t.trials or t.skipped]


def render(tallies: Sequence[Tally], details: bool = True) -> str:
    lines = [table(HEADERS, [t.row() for t in tallies])]
    total = sum(t.trials for t in tallies)
    lost = sum(t.lost for t in tallies)
    unhandled = sum(t.unhandled for t in tallies)
    lines.append(f"\n{total} trials, {lost} with lost data, {unhandled} unhandled exceptions")
    if details:
        for tally in tallies:
            for failure in tally.failures:
                lines.append(f"\n== {tally.scenario}\n{failure}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(
        prog="scripts/faults", description="metapkg's fault suite (see README.md)."
    )
    parser.add_argument("--long", action="store_true", help="the long mode (run by hand)")
    parser.add_argument("--seed", type=int, default=None, help="random seed (default: time)")
    parser.add_argument("--jobs", type=int, default=2, help="trials at once (default 2)")
    parser.add_argument("--only", metavar="TEXT", help="only scenarios whose name has TEXT")
    parser.add_argument("--keep", action="store_true", help="keep the sandboxes")
    args = parser.parse_args(argv)
    seed = args.seed if args.seed is not None else int(time.time())
    mode = "long" if args.long else "short"
    print(f"metapkg fault suite, {mode} mode, seed {seed}", file=sys.stderr)
    started = time.monotonic()
    tallies = run(args.long, seed, args.jobs, args.only, args.keep, progress=True)
    print(render(tallies))
    print(f"({time.monotonic() - started:.0f} s)", file=sys.stderr)
    failed = [t for t in tallies if not t.skipped and not t.ok]
    return 1 if failed else 0
