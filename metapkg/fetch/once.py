"""Compute each key once; concurrent callers of one key wait for the same result.

Fetches arrive from many threads at once (the crawl, prefetching, the resolver); two
packages of one archive must share one download, two asks for one ref one request.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Once(Generic[K, V]):
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._futures: dict[K, Future[V]] = {}

    def get(self, key: K, compute: Callable[[], V]) -> V:
        with self._lock:
            future = self._futures.get(key)
            owner = future is None
            if future is None:
                future = self._futures[key] = Future()
        if owner:
            try:
                future.set_result(compute())
            except BaseException as exc:
                future.set_exception(exc)
        return future.result()

    def forget(self, key: K) -> None:
        """Compute ``key`` again next time (after a repair, say)."""
        with self._lock:
            self._futures.pop(key, None)
