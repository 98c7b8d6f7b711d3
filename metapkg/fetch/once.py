"""Compute each key once; concurrent callers of one key wait for the same result.

Fetches arrive from many threads at once (the crawl, prefetching, the resolver); two
packages of one archive must share one download, two asks for one ref one request.
A result is a threading.Event and a value, not a concurrent.futures.Future: that module
imports logging (12 ms), which a project of local folders would load for nothing.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Result(Generic[V]):
    """One computation's value or exception, once it is done. It has the two methods of a
    Future the crawl uses on a load done inline (resolve/discovery.py)."""

    def __init__(self) -> None:
        self._done = threading.Event()
        self._value: V | None = None
        self._error: BaseException | None = None

    @classmethod
    def of(cls, compute: Callable[[], V]) -> Result[V]:
        """``compute`` run here and now."""
        done: Result[V] = cls()
        done.finish(compute)
        return done

    def finish(self, compute: Callable[[], V]) -> None:
        try:
            self._value = compute()
        except BaseException as exc:
            self._error = exc
        finally:
            self._done.set()

    def result(self) -> V:
        self._done.wait()
        if self._error is not None:
            raise self._error
        return self._value  # type: ignore[return-value]  # set: V may itself be None

    def add_done_callback(self, callback: Callable[[Result[V]], object]) -> None:
        """``callback(self)`` now (only for a finished result, as the crawl's are)."""
        assert self._done.is_set(), "a callback on an unfinished Result would run too early"
        callback(self)


class Once(Generic[K, V]):
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._results: dict[K, Result[V]] = {}

    def get(self, key: K, compute: Callable[[], V]) -> V:
        with self._lock:
            result = self._results.get(key)
            owner = result is None
            if result is None:
                result = self._results[key] = Result()
        if owner:
            result.finish(compute)
        return result.result()

    def forget(self, key: K) -> None:
        """Compute ``key`` again next time (after a repair, say)."""
        with self._lock:
            self._results.pop(key, None)
