"""Data a caller hands a metaskill (``input``, scripted answers): plain, bounded JSON.

The program sees it through starlark-rust, which takes JSON-like values only: a float
that is not finite (``NaN``, ``1e400`` read as infinity) or a string holding a lone
surrogate (``"\\ud800"``) crashed the child. jsonsafe already refuses NaN, very deep
nesting and integers over Python's digit limit; this adds the rest, as one message.
"""

from __future__ import annotations

import math
import re
from typing import Any

from metapkg import jsonsafe

_SURROGATE = re.compile("[\ud800-\udfff]")


class InputProblem(ValueError):
    pass


def parse(text: str) -> Any:
    """JSON text as a value a metaskill can be given; raises InputProblem."""
    try:
        value = jsonsafe.loads(text)
    except jsonsafe.JsonProblem as exc:
        where = f" (line {exc.line})" if exc.line else ""
        raise InputProblem(f"{exc.message}{where}") from None
    problem = problem_in(value)
    if problem is not None:
        raise InputProblem(problem)
    return value


def problem_in(value: Any) -> str | None:
    """Why ``value`` cannot be handed to a program, or None (iterative: no recursion)."""
    try:
        jsonsafe.check_depth(value)
    except jsonsafe.JsonProblem as exc:
        return exc.message
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, float) and not math.isfinite(item):
            return f"invalid JSON: the number {item} is out of range (not a finite number)"
        if isinstance(item, str) and _SURROGATE.search(item):
            return "invalid JSON: a string holds a lone surrogate (\\ud800-\\udfff), not text"
        if isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return None


def clean_text(text: str) -> str:
    """``text`` with lone surrogates replaced (answers a program is handed)."""
    return _SURROGATE.sub("\ufffd", text)
