"""The fuzz suite in CI: a few hundred derandomized examples per parser, and every crash
the suite found kept as a regression case (reliability/fuzz/regressions.py).

A crash that is an open bug already kept as a regression case does not fail the short
run (its case is an ``xfail(strict=True)`` below); any other escape does.
"""

from __future__ import annotations

import gc
import tracemalloc

import pytest

from reliability.fuzz import regressions
from reliability.fuzz.runner import Result, check, fuzz, render
from reliability.fuzz.targets import BY_NAME, TARGETS

EXAMPLES = 200


@pytest.mark.parametrize("name", [target.name for target in TARGETS])
def test_parser_survives_generated_input(name: str) -> None:
    target = BY_NAME[name]
    result = fuzz(target, round(EXAMPLES * target.weight))

    new = [c for c in result.crashes.values() if not regressions.known(c.signature)]
    assert result.examples >= EXAMPLES * target.weight * 0.9
    assert not new, render([result])


def _case(case: regressions.Regression) -> object:
    if case.open_bug is None:
        return case
    return pytest.param(case, marks=pytest.mark.xfail(strict=True, reason=case.open_bug))


@pytest.mark.parametrize("case", [_case(c) for c in regressions.CASES], ids=lambda c: c.id)
def test_crash_found_by_fuzzing_stays_fixed(case: regressions.Regression) -> None:
    result = Result(case.target, case.target)

    check(BY_NAME[case.target], case.value, 30.0, result)

    assert not result.crashes, render([result])


def test_3md_provisioned_files_grow_linearly_with_the_agent() -> None:
    """Each skill listed its whole chain of links: a chain of n skills wrote O(n^2) bytes
    (a 1 MB .3md would have written gigabytes); now each lists its direct links."""
    from metapkg import agent3md

    out = agent3md.provision(regressions.CHAIN, "a.3md")

    written = len(out.agent_file) + sum(len(b) for f in out.skills.values() for b in f.values())
    assert written < 20 * len(regressions.CHAIN)


def test_yaml_parsing_keeps_no_memory_once_done() -> None:
    """yamlsafe used ruamel's construct_object, which remembers every scalar node it
    builds, for the life of the process: `metapkg check` of a catalog grew without end."""
    from metapkg import yamlsafe

    text = "[" + "1, " * 3_000 + "]"  # the old code kept ~2 MB of nodes for these
    yamlsafe.load(text)  # imports and the shared constructor, once
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        yamlsafe.load(text)
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert kept < 200_000, f"{kept} bytes kept after the parse"
