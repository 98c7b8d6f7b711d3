"""Budgets and limits of one metaskill run (specs/metaskills.txt section 8).

The defaults are the spec's recommendations. A caller (``metapkg run`` flags, the MCP
tool's ``max_ask_calls`` / ``max_command_calls``) may change the call budgets and the
wall-clock timeout, but only within the bounds below: an out-of-range value is an error
that says the range, never silently clamped into something the caller did not ask for.
Per-call options a program passes (``max_turns``, a command ``timeout``) are clamped, as
the spec requires.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

# Bounds for caller overrides (inclusive).
ASK_CALLS_RANGE = (1, 50)
COMMAND_CALLS_RANGE = (0, 100)
TIMEOUT_RANGE = (0.1, 300.0)
MEMORY_MIB_RANGE = (64, 16_384)

# Per-call options a program may pass, clamped into these.
COMMAND_TIMEOUT_DEFAULT = 30.0
COMMAND_TIMEOUT_MAX = 120.0
MAX_TURNS_CAP = 20


class LimitError(ValueError):
    """An override outside its bounds; the message names the range."""


@dataclass(frozen=True)
class Limits:
    max_ask_calls: int = 5
    max_command_calls: int = 10
    timeout: float = 300.0  # seconds of wall-clock time for the whole run
    max_trace_entries: int = 100
    max_trace_entry_chars: int = 2_000  # one entry's JSON; larger data is replaced
    max_answer_chars: int = 20_000  # per nested ask answer
    max_command_result_chars: int = 20_000  # per command result
    max_result_chars: int = 20_000  # the whole string returned to the caller
    max_memory_mib: int = 1_024  # address space of the program's process (RLIMIT_AS)

    def with_overrides(
        self,
        max_ask_calls: int | None = None,
        max_command_calls: int | None = None,
        timeout: float | None = None,
        max_memory_mib: int | None = None,
    ) -> Limits:
        changes: dict[str, float] = {}
        if max_ask_calls is not None:
            changes["max_ask_calls"] = _bounded("max_ask_calls", max_ask_calls, ASK_CALLS_RANGE)
        if max_command_calls is not None:
            changes["max_command_calls"] = _bounded(
                "max_command_calls", max_command_calls, COMMAND_CALLS_RANGE
            )
        if timeout is not None:
            changes["timeout"] = _bounded("timeout", timeout, TIMEOUT_RANGE)
        if max_memory_mib is not None:
            changes["max_memory_mib"] = _bounded("max_memory", max_memory_mib, MEMORY_MIB_RANGE)
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]


def _bounded(name: str, value: object, bounds: tuple[float, float]) -> float:
    low, high = bounds
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise LimitError(f"{name} must be a number between {low:g} and {high:g}")
    if name != "timeout" and not isinstance(value, int):
        raise LimitError(f"{name} must be a whole number between {low:g} and {high:g}")
    if not low <= value <= high:
        raise LimitError(f"{name} must be between {low:g} and {high:g}, got {value:g}")
    return value


def clamp_command_timeout(requested: object) -> float:
    """A program's ``opts.timeout``: default 30 s, at most 120 s, at least 1 s."""
    if isinstance(requested, bool) or not isinstance(requested, int | float):
        return COMMAND_TIMEOUT_DEFAULT
    return float(min(max(requested, 1), COMMAND_TIMEOUT_MAX))


def clamp_max_turns(requested: object) -> int:
    """A program's ``opts.max_turns``: 1 to MAX_TURNS_CAP, the cap when not given."""
    if isinstance(requested, bool) or not isinstance(requested, int):
        return MAX_TURNS_CAP
    return min(max(requested, 1), MAX_TURNS_CAP)
