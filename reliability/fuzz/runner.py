"""Run each fuzz target for a number of examples; count and keep what escapes.

The test body never fails: it records every unexpected exception (and every example
that runs past the time limit) and lets hypothesis go on, so the table counts crashing
examples out of all of them, and each distinct crash (exception type and the innermost
metapkg frame) keeps its shortest input for a regression case. The long mode then times
the target's 1 MB inputs.
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
import time
import traceback
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed

from reliability.fuzz.targets import Target
from reliability.report import table

HEADERS = ["parser", "examples", "unhandled exc", "distinct", "slowest 1 MB parse"]


class Hang(Exception):
    """An example ran past the time limit."""


@dataclass
class Crash:
    signature: str  # exception type and where in metapkg it was raised
    value: Any  # the shortest input seen that raises it
    detail: str  # the exception's message


@dataclass
class Result:
    target: str  # the target's name (results cross process boundaries; targets do not)
    title: str
    examples: int = 0
    unhandled: int = 0
    crashes: dict[str, Crash] = field(default_factory=dict)
    slowest: tuple[float, str] | None = None  # seconds, which input

    def row(self) -> list[object]:
        slow = "-" if self.slowest is None else f"{self.slowest[0]:.3f} s ({self.slowest[1]})"
        return [self.title, self.examples, self.unhandled, len(self.crashes), slow]


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise Hang in this thread after ``seconds`` (main thread only; elsewhere no limit)."""
    if threading.current_thread() is not threading.main_thread() or seconds <= 0:
        yield
        return

    def expire(signum: int, frame: object) -> None:
        raise Hang(f"no result after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _signature(exc: BaseException) -> str:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "/metapkg/" in f.filename]
    where = f"{frames[-1].filename.split('/metapkg/')[-1]}:{frames[-1].lineno}" if frames else "?"
    return f"{type(exc).__name__} at metapkg/{where}"


def _size(value: Any) -> int:
    return len(repr(value))


def check(target: Target, value: Any, limit: float, result: Result) -> None:
    """Run one input; record it in ``result`` if something undocumented escapes."""
    from metapkg.diagnostics import MetapkgError

    allowed: tuple[type[BaseException], ...] = (MetapkgError, *target.allowed())
    try:
        with time_limit(limit):
            target.call(value)
    except allowed:
        return
    except Exception as exc:  # counting these is the point
        result.unhandled += 1
        signature = _signature(exc)
        known = result.crashes.get(signature)
        if known is None or _size(value) < _size(known.value):
            result.crashes[signature] = Crash(
                signature, value, f"{type(exc).__name__}: {exc}"[:300]
            )


def fuzz(target: Target, examples: int, seed: int | None = None, limit: float = 10.0) -> Result:
    """``examples`` generated inputs (derandomized when ``seed`` is None, as in CI)."""
    result = Result(target.name, target.title)

    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        derandomize=seed is None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
        print_blob=False,
    )
    @given(target.inputs())
    def run(value: Any) -> None:
        result.examples += 1
        check(target, value, limit, result)

    if seed is not None:
        run = hypothesis_seed(seed)(run)
    run()
    return result


def time_big(target: Target, result: Result, limit: float = 20.0) -> None:
    """Parse each 1 MB input once; record the slowest (an escape counts as a crash)."""
    for label, value in target.big():
        started = time.perf_counter()
        check(target, value, limit, result)
        took = time.perf_counter() - started
        if result.slowest is None or took > result.slowest[0]:
            result.slowest = (took, label)


def run_one(name: str, examples: int, seed: int | None, big: bool) -> Result:
    """One target, start to end (a process pool's unit of work)."""
    from reliability.fuzz.targets import BY_NAME

    target = BY_NAME[name]
    result = fuzz(target, max(1, round(examples * target.weight)), seed)
    if big:
        time_big(target, result)
    return result


def render(results: list[Result]) -> str:
    lines = [table(HEADERS, [r.row() for r in results])]
    examples = sum(r.examples for r in results)
    unhandled = sum(r.unhandled for r in results)
    lines.append(f"\n{examples} examples, {unhandled} unhandled exceptions")
    for result in results:
        for crash in result.crashes.values():
            shown = repr(crash.value)
            shown = shown if len(shown) <= 400 else shown[:400] + f"... ({len(shown)} chars)"
            lines.append(f"\n== {result.title}: {crash.signature}\n{crash.detail}\ninput: {shown}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    import argparse
    from concurrent.futures import ProcessPoolExecutor

    from reliability.fuzz.targets import TARGETS

    parser = argparse.ArgumentParser(
        prog="scripts/fuzz", description="metapkg's parser fuzz suite (see README.md)."
    )
    parser.add_argument("--long", action="store_true", help="the long mode (run by hand)")
    parser.add_argument("--examples", type=int, help="examples per parser (default 200, long 3000)")
    parser.add_argument("--seed", type=int, help="random seed (default: time; short: fixed)")
    parser.add_argument("--jobs", type=int, default=2, help="parsers at once (default 2)")
    parser.add_argument("--only", metavar="NAME", action="append", help="only this parser")
    args = parser.parse_args(argv)
    examples = args.examples or (3000 if args.long else 200)
    seed = args.seed if args.seed is not None else (int(time.time()) if args.long else None)
    names = [t.name for t in TARGETS if not args.only or t.name in args.only]
    mode = "long" if args.long else "short"
    shown = "derandomized" if seed is None else f"seed {seed}"
    print(f"metapkg fuzz suite, {mode} mode, {shown}, {examples} examples", file=sys.stderr)
    started = time.monotonic()
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(run_one, n, examples, seed, args.long) for n in names]
        results = [future.result() for future in futures]
    print(render(results))
    print(f"({time.monotonic() - started:.0f} s)", file=sys.stderr)
    return 1 if any(r.unhandled for r in results) else 0
