"""Worker processes: the second core, for the CPU work of big installs.

Extracting archives (fetch/unpack.py) and copying packages into the project
(provision/apply.py) are Python loops over thousands of files. On threads they share one
interpreter lock with everything else, so a 2-core machine ran a 3,000-package install
on one core. Here is one small pool of worker processes for both, started on first use
(small jobs never start it) and kept for the rest of the command.

Workers come from a ``forkserver`` (a clean interpreter that forks each worker):
forking this process directly would copy locks its other threads hold at that moment.
Where forkserver does not exist (Windows), on one core, or with a failpoint set (its byte
count is per process, see failpoint.py), there is no pool and the callers do the work
in-process. A worker ignores Ctrl-C (the install reports it and cleans up) and ends when
the install process ends, even by SIGKILL.
"""

from __future__ import annotations

import os
import threading

from metapkg import settings

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy knows the name)
if TYPE_CHECKING:
    import multiprocessing.process
    from collections.abc import Callable, Sequence
    from concurrent.futures import ProcessPoolExecutor
    from typing import TypeVar

    T = TypeVar("T")

# What every worker imports before its first job (the modules of the jobs it runs).
PRELOAD = ["metapkg.fetch.archive", "metapkg.provision.linkmode"]
_lock = threading.Lock()
_pool: ProcessPoolExecutor | None = None


def pool() -> ProcessPoolExecutor | None:
    """The worker pool, started now if need be; None where there is none (see above)."""
    global _pool
    if settings.failpoint():
        return None
    with _lock:
        if _pool is None and _usable():
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            context = multiprocessing.get_context("forkserver")
            context.set_forkserver_preload(PRELOAD)
            workers = max(1, min(4, (os.cpu_count() or 1) - 1))
            _pool = ProcessPoolExecutor(workers, mp_context=context, initializer=_start_worker)
        return _pool


def running() -> bool:
    """Is the pool started (by an earlier job of this command)?"""
    return _pool is not None


def _usable() -> bool:
    import multiprocessing

    return (os.cpu_count() or 1) > 1 and "forkserver" in multiprocessing.get_all_start_methods()


def broken(exc: BaseException) -> bool:
    """Did a worker die (killed, out of memory)? Then the pool is stopped, and the caller
    does the job in-process."""
    from concurrent.futures.process import BrokenProcessPool

    if not isinstance(exc, BrokenProcessPool):
        return False
    shutdown()
    return True


def shutdown() -> None:
    """Stop the worker processes (their queues are joined at exit otherwise)."""
    global _pool
    with _lock:
        current, _pool = _pool, None
    if current is not None:
        current.shutdown(wait=True, cancel_futures=True)


def share(jobs: Sequence[T], run: Callable[[Sequence[T]], None], batch: int) -> None:
    """``run`` every job, in batches: this process takes them from the front, a worker
    from the back, until they meet. The worker's first batch waits for it to start, so
    this is never much slower than doing all here. A worker's error is raised here; a
    batch a worker could not take (no pool, a worker died) is done here."""
    batches = [jobs[i : i + batch] for i in range(0, len(jobs), batch)]
    state = {"front": 0, "back": len(batches), "stop": False}
    turn = threading.Lock()
    failures: list[BaseException] = []
    returned: list[Sequence[T]] = []

    def take(from_back: bool) -> Sequence[T] | None:
        with turn:
            if state["stop"] or state["front"] >= state["back"]:
                return None
            end = "back" if from_back else "front"
            state[end] += -1 if from_back else 1
            return batches[state["back"] if from_back else state["front"] - 1]

    def remote() -> None:
        while (part := take(True)) is not None:
            workers = pool()
            try:
                if workers is None:
                    returned.append(part)
                    return
                workers.submit(run, part).result()
            except BaseException as exc:
                if broken(exc):
                    returned.append(part)
                else:
                    failures.append(exc)
                    state["stop"] = True
                return

    helper = threading.Thread(target=remote, name="worker-feed", daemon=True)
    helper.start()
    try:
        while (part := take(False)) is not None:
            run(part)
    except BaseException:
        state["stop"] = True
        raise
    finally:
        helper.join()
    if failures:
        raise failures[0]
    for part in returned:
        run(part)


def _start_worker() -> None:
    """In each worker: ignore Ctrl-C; end when the install process ends. Killed with
    SIGKILL it cannot say goodbye, and a pool's worker would wait for work forever (it
    holds both ends of its own queue's pipe), keeping the forkserver alive too."""
    import multiprocessing
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_end_with, args=(parent,), daemon=True).start()


def _end_with(parent: multiprocessing.process.BaseProcess) -> None:
    from multiprocessing.connection import wait

    wait([parent.sentinel])
    os._exit(1)
