"""Injected faults: each rule matches request paths by regex and fires a set number of times."""

from __future__ import annotations

import math
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Literal

from fixture_server.responses import Response, message


class FaultKind(Enum):
    RESPOND = "respond"  # answer with a canned response instead of the real one
    TRUNCATE = "truncate"  # cut an archive body in half
    SLOW = "slow"  # trickle the body


@dataclass
class FaultRule:
    kind: FaultKind
    pattern: re.Pattern[str]
    remaining: int
    # RESPOND: builds the response when it fires (rate-limit reset times are computed then).
    make: Callable[[], Response] | None = None
    # SLOW: total seconds and number of pieces.
    seconds: float = 0.0
    chunks: int = 1
    # Set: the rule fires on every match until this time (time.time()), then is gone, as a
    # spent quota refuses every request until it resets; ``remaining`` is not counted.
    until: float | None = None


class FaultSet:
    """Rules are tried in the order they were added; the first matching rule of the asked
    kind that has firings left is used and counted, under a lock, so `times` is exact even
    with concurrent requests."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._rules: list[FaultRule] = []

    def add(self, rule: FaultRule) -> None:
        if rule.remaining < 1:
            raise ValueError("times must be at least 1")
        with self._lock:
            self._rules.append(rule)

    def clear(self) -> None:
        with self._lock:
            self._rules.clear()

    def take(self, kind: FaultKind, path: str) -> FaultRule | None:
        with self._lock:
            for rule in list(self._rules):
                if rule.until is not None and time.time() >= rule.until:
                    self._rules.remove(rule)
                    continue
                if rule.kind is kind and rule.pattern.search(path):
                    if rule.until is not None:
                        return rule
                    rule.remaining -= 1
                    if rule.remaining == 0:
                        self._rules.remove(rule)
                    return rule
        return None


def canned(status: int, headers: dict[str, str] | None, body: bytes) -> Callable[[], Response]:
    def make() -> Response:
        return Response(status, body, dict(headers or {}))

    return make


def rate_limited(
    kind: Literal["403", "429"], reset_after: float, reset_at: int | None = None
) -> Callable[[], Response]:
    """GitHub's primary (403, `X-RateLimit-*`) or secondary (429, `Retry-After`) limit;
    ``reset_at``: the reset every answer names (else now + ``reset_after``)."""

    def make() -> Response:
        wait = max(0, math.ceil(reset_after))
        if kind == "429":
            return message(
                429,
                "You have exceeded a secondary rate limit. Please wait a few minutes.",
                {"Retry-After": str(wait)},
            )
        return message(
            403,
            "API rate limit exceeded for 127.0.0.1.",
            {
                "X-RateLimit-Limit": "60",
                "X-RateLimit-Remaining": "0",
                "X-RateLimit-Used": "60",
                "X-RateLimit-Reset": str(reset_at or math.ceil(time.time() + reset_after)),
                "X-RateLimit-Resource": "core",
            },
        )

    return make
