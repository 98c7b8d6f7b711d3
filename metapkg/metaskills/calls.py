"""The host API as the parent serves it: ``ask``, ``command`` and ``trace`` with budgets.

Every call first checks the wall clock and the cancellation flag. A call over budget, or
past the deadline, raises :class:`Stop`: the run ends with that ``error:``. Bad arguments
(a prompt that is not a string, ...) become a runtime error inside the program, at the
line that made the call. Trace calls cost no ask or command budget; the trace is capped
in entries and in size per entry.
"""

from __future__ import annotations

import inspect
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from metapkg.metaskills import limits as limit_rules
from metapkg.metaskills.askers import Asker, AskRequest
from metapkg.metaskills.commands import CommandPolicy, run_command
from metapkg.metaskills.envelope import cut, dumps
from metapkg.metaskills.inputs import clean_text
from metapkg.metaskills.limits import Limits

MAX_KIND_CHARS = 100


class Stop(Exception):
    """The host ends the run; the message becomes ``error: <message>``."""


class BadCall(Exception):
    """The program called the host API wrongly; it sees a runtime error."""


@dataclass(frozen=True)
class Services:
    """What a run may use: who answers ask, which commands may run, and the limits."""

    asker: Asker
    commands: CommandPolicy
    limits: Limits = field(default_factory=Limits)
    report: Callable[[str], None] | None = None  # one line per host call (metapkg run -v)
    cancel: threading.Event | None = None


class HostCalls:
    def __init__(self, services: Services) -> None:
        self.services = services
        self.limits = services.limits
        self.deadline = time.monotonic() + self.limits.timeout
        self.asks = 0
        self.commands = 0
        self.entries: list[dict[str, Any]] = []
        self.dropped = 0

    def check_time(self) -> None:
        cancel = self.services.cancel
        if cancel is not None and cancel.is_set():
            raise Stop("cancelled")
        if time.monotonic() >= self.deadline:
            raise Stop(f"timeout: the metaskill ran longer than {self.limits.timeout:g} s")

    def handle(self, name: str, args: list[Any], kwargs: dict[str, Any]) -> dict[str, Any]:
        """The reply to send to the child; raises Stop to end the run."""
        method = {"ask": self.ask, "command": self.command, "trace": self.trace}.get(name)
        if method is None:
            return {"fail": f"unknown host function {name!r}"}
        self.check_time()
        try:
            inspect.signature(method).bind(*args, **kwargs)
        except TypeError as exc:
            return {"fail": f"{name}(): {exc}"}
        try:
            value = method(*args, **kwargs)
        except BadCall as exc:
            return {"fail": f"{name}(): {exc}"}
        self.check_time()
        return {"value": value}

    def _report(self, line: str) -> None:
        if self.services.report is not None:
            self.services.report(line)

    def ask(self, prompt: Any, opts: Any = None) -> dict[str, Any]:
        options = _options(opts)
        if not isinstance(prompt, str):
            raise BadCall("the prompt must be a string")
        if self.asks >= self.limits.max_ask_calls:
            raise Stop(
                f"ask budget exhausted: the program asked more than {self.limits.max_ask_calls} "
                f"time(s) (max_ask_calls)"
            )
        self.asks += 1
        purpose = options.get("purpose")
        request = AskRequest(
            prompt,
            purpose if isinstance(purpose, str) else None,
            limit_rules.clamp_max_turns(options.get("max_turns")),
            self.asks,
            self.deadline - time.monotonic(),
        )
        self._report(f"ask #{self.asks}" + (f" ({request.purpose})" if request.purpose else ""))
        reply = self.services.asker(request)
        answer, truncated = cut(clean_text(reply.answer), self.limits.max_answer_chars)
        return {
            "answer": answer,
            "exhausted": reply.exhausted,
            "turns": reply.turns,
            "truncated": truncated,
        }

    def command(self, argv: Any, opts: Any = None) -> dict[str, Any]:
        options = _options(opts)
        if self.commands >= self.limits.max_command_calls:
            raise Stop(
                f"command budget exhausted: the program ran more than "
                f"{self.limits.max_command_calls} command(s) (max_command_calls)"
            )
        self.commands += 1
        timeout = limit_rules.clamp_command_timeout(options.get("timeout"))
        timeout = max(min(timeout, self.deadline - time.monotonic()), 0.01)
        result = run_command(
            self.services.commands, argv, timeout, self.limits.max_command_result_chars
        )
        shown = " ".join(map(str, argv)) if isinstance(argv, list) else repr(argv)
        outcome = f"exit {result.exit_code}" if result.exit_code is not None else result.result
        self._report(f"command #{self.commands}: {shown[:200]} -> {outcome.splitlines()[0][:200]}")
        return result.as_dict()

    def trace(self, kind: Any, data: Any = None) -> None:
        if not isinstance(kind, str):
            raise BadCall("the kind must be a string")
        if data is not None and not isinstance(data, dict):
            raise BadCall("data must be a dictionary")
        if len(self.entries) >= self.limits.max_trace_entries:
            self.dropped += 1
            return None
        entry: dict[str, Any] = {"kind": kind[:MAX_KIND_CHARS]}
        if data:
            entry["data"] = data
        if len(dumps(entry)) > self.limits.max_trace_entry_chars:
            entry = {"kind": kind[:MAX_KIND_CHARS], "data_truncated": True}
        self.entries.append(entry)
        return None

    def trace_entries(self) -> list[dict[str, Any]]:
        if not self.dropped:
            return list(self.entries)
        return [*self.entries, {"kind": "truncated", "data": {"dropped_entries": self.dropped}}]


def _options(opts: Any) -> dict[str, Any]:
    if opts is None:
        return {}
    if not isinstance(opts, dict):
        raise BadCall("opts must be a dictionary")
    return opts
