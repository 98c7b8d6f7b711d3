"""A whole-response deadline for every HTTP request, however slowly the host answers.

httpx's timeouts are per operation: a read times out only when no byte arrives for
``METAPKG_HTTP_TIMEOUT`` seconds, so a host sending one byte a second kept an install
reading for as long as it liked. Each request now has a budget: it must be over (status,
headers and body) within ``METAPKG_HTTP_DEADLINE`` seconds plus ``SECONDS_PER_MIB`` for
each MiB received so far, a floor rate of 64 KiB/s once the base allowance is spent, so
a big archive on a slow but honest line still arrives while a trickle is cut off.

The budget is enforced where the bytes arrive: httpcore's network streams are wrapped
(``install``), and each read waits at most until the deadline, then raises
:class:`DeadlinePassed` (httpcore discards the connection, httpx passes the exception on
as it is). That covers headers trickled one byte at a time, which no loop over the body
could see. The budget belongs to the thread making the request (httpx's sync client
reads in the caller's thread), so concurrent requests each have their own.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from typing import Any

MIB = 1024 * 1024
SECONDS_PER_MIB = 16.0  # a floor of 64 KiB/s past the base allowance

_local = threading.local()


class DeadlinePassed(Exception):
    """A response was not over within its budget (see ``Budget.describe``)."""

    def __init__(self, budget: Budget) -> None:
        super().__init__(budget.describe())
        self.budget = budget


class Budget:
    """The time one request may take: ``base`` seconds, plus time per byte received."""

    def __init__(self, base: float) -> None:
        self.base = base
        self.started = time.monotonic()
        self.received = 0

    def remaining(self) -> float:
        allowed = self.base + self.received / MIB * SECONDS_PER_MIB
        return self.started + allowed - time.monotonic()

    def check(self) -> None:
        if self.remaining() <= 0:
            raise DeadlinePassed(self)

    def describe(self) -> str:
        took = time.monotonic() - self.started
        return (
            f"the host was still answering after {took:.0f} s, past the response deadline "
            f"(METAPKG_HTTP_DEADLINE={self.base:g} s, plus {SECONDS_PER_MIB:g} s per MiB "
            f"received: {self.received} bytes); it is stalling or far too slow. Try again "
            f"later, or raise METAPKG_HTTP_DEADLINE"
        )


@contextlib.contextmanager
def budget(base: float) -> Iterator[Budget]:
    """Run one request (in this thread) under a fresh budget of ``base`` seconds."""
    current = Budget(base)
    previous = getattr(_local, "budget", None)
    _local.budget = current
    try:
        yield current
    finally:
        _local.budget = previous


def _current() -> Budget | None:
    found: Budget | None = getattr(_local, "budget", None)
    return found


def _bounded(timeout: float | None) -> tuple[Budget | None, float | None]:
    """The thread's budget (checked) and ``timeout`` cut to what is left of it."""
    current = _current()
    if current is None:
        return None, timeout
    left = current.remaining()
    if left <= 0:
        raise DeadlinePassed(current)
    return current, left if timeout is None else min(timeout, left)


def _passed(current: Budget | None, cut: bool, exc: Exception) -> None:
    """Raise DeadlinePassed when ``exc`` is the budget's doing: a timeout the budget
    shortened (``cut``), or any failure once the budget is spent."""
    import httpcore

    if current is None:
        return
    if current.remaining() <= 0 or (cut and isinstance(exc, httpcore.TimeoutException)):
        raise DeadlinePassed(current) from None


class _Stream:
    """An httpcore network stream whose reads and writes end at the budget's deadline."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        current, bounded = _bounded(timeout)
        try:
            data: bytes = self._inner.read(max_bytes, bounded)
        except Exception as exc:
            _passed(current, bounded != timeout, exc)
            raise
        if current is not None:
            current.received += len(data)
        return data

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        current, bounded = _bounded(timeout)
        try:
            self._inner.write(buffer, bounded)
        except Exception as exc:
            _passed(current, bounded != timeout, exc)
            raise

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, *args: Any, **kwargs: Any) -> _Stream:
        return _Stream(self._inner.start_tls(*args, **kwargs))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _Backend:
    """An httpcore network backend whose streams keep the thread's budget."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def connect_tcp(self, *args: Any, **kwargs: Any) -> _Stream:
        return _Stream(self._inner.connect_tcp(*args, **kwargs))

    def connect_unix_socket(self, *args: Any, **kwargs: Any) -> _Stream:
        return _Stream(self._inner.connect_unix_socket(*args, **kwargs))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def install(client: Any) -> bool:
    """Wrap the network backend of every connection pool of an ``httpx.Client`` (its
    default transport and any proxy mounts). False when httpx's insides are not as
    expected: then ``Budget.check`` between body chunks is all that holds (a trickle of
    body bytes is still cut off; trickled headers are not)."""
    transports = [getattr(client, "_transport", None), *getattr(client, "_mounts", {}).values()]
    pools: list[Any] = [getattr(t, "_pool", None) for t in transports if t is not None]
    if not pools or not all(hasattr(pool, "_network_backend") for pool in pools):
        return False
    for pool in pools:
        if not isinstance(pool._network_backend, _Backend):
            pool._network_backend = _Backend(pool._network_backend)
    return True
