"""Worker processes: the second core, for the CPU work of big installs.

Extracting archives (fetch/unpack.py) and copying packages into the project
(provision/apply.py) are Python loops over thousands of files. On threads they share one
interpreter lock with everything else, so a 2-core machine ran a 3,000-package install
on one core. Here is one small pool of worker processes for both, started on first use
(small jobs never start it) and kept for the rest of the command.

Workers come from a ``forkserver`` (a clean interpreter that forks each worker):
forking this process directly would copy locks its other threads hold at that moment.
Where there is no pool (Windows, one core, no working semaphores or ``/dev/shm``, a
failpoint set: its byte count is per process, see failpoint.py) or a worker dies (killed,
out of memory), the callers do the work in-process: a worker only ever saves time. A
worker ignores Ctrl-C (the install reports it and cleans up) and ends when the install
process ends, even by SIGKILL.
"""

from __future__ import annotations

import os
import threading

from metapkg import settings

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy knows the name)
if TYPE_CHECKING:
    import multiprocessing.process
    from collections.abc import Callable, Sequence
    from concurrent.futures import Future, ProcessPoolExecutor
    from typing import TypeVar

    T = TypeVar("T")
    R = TypeVar("R")

# What every worker imports before its first job (the modules of the jobs it runs).
PRELOAD = ["metapkg.fetch.archive", "metapkg.provision.linkmode"]
_lock = threading.Lock()
_pool: ProcessPoolExecutor | None = None
_unusable = False  # starting a pool failed once: do not try again in this command


def size() -> int:
    """How many workers a pool has here."""
    return max(1, min(4, (os.cpu_count() or 1) - 1))


def pool() -> ProcessPoolExecutor | None:
    """The worker pool, started now if need be; None where there is none (see above)."""
    global _pool, _unusable
    if settings.failpoint():
        return None
    with _lock:
        if _pool is None and not _unusable:
            _pool = _start()
            _unusable = _pool is None
        return _pool


def _start() -> ProcessPoolExecutor | None:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    if (os.cpu_count() or 1) < 2 or "forkserver" not in multiprocessing.get_all_start_methods():
        return None
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(PRELOAD)
    try:
        return ProcessPoolExecutor(size(), mp_context=context, initializer=_start_worker)
    except (ImportError, NotImplementedError, OSError):  # no sem_open, no /dev/shm
        return None


def running() -> bool:
    """Is the pool started (by an earlier job of this command)?"""
    return _pool is not None


def run(job: Callable[..., R], *args: object) -> R | Undone:
    """``job(*args)`` in a worker and its result; ``UNDONE`` when no worker could do it
    (no pool, or a worker died: the caller does it here, after removing what the worker
    may have left). The job's own error is raised here."""
    current = pool()
    if current is None:
        return UNDONE
    try:
        future: Future[R] = current.submit(job, *args)
    except Exception:  # the pool could not take it (could not start a worker): not the job
        _stop(current)
        return UNDONE
    try:
        return future.result()
    except BaseException as exc:
        if _failed(exc, current):
            return UNDONE
        raise


class Undone:
    """What ``run`` returns when no worker did the job."""


UNDONE = Undone()


def _failed(exc: BaseException, failed: ProcessPoolExecutor) -> bool:
    """Is ``exc`` the pool's failure (a worker died, or the pool was stopped while the job
    waited), not the job's? Then that pool is stopped (and its workers waited for, so
    none still writes), and a new one may start later. A job's own error, a RuntimeError
    included, is the job's: a pool that cannot take a job fails at submit (see run)."""
    from concurrent.futures import CancelledError
    from concurrent.futures.process import BrokenProcessPool

    if not isinstance(exc, (BrokenProcessPool, CancelledError)):
        return False
    _stop(failed)
    return True


def _stop(failed: ProcessPoolExecutor) -> None:
    """Stop a pool that failed (waiting for its workers, so none still writes); a new one
    may start later. Only that pool: another thread may have started a new one since."""
    global _pool
    with _lock:
        if _pool is failed:
            _pool = None
    failed.shutdown(wait=True, cancel_futures=True)


def shutdown() -> None:
    """Stop the worker processes (their queues are joined at exit otherwise)."""
    current = _pool
    if current is not None:
        _stop(current)


def share(
    jobs: Sequence[T],
    job: Callable[[Sequence[T]], None],
    batch: int,
    undo: Callable[[Sequence[T]], None],
) -> None:
    """``job`` every batch of ``jobs``: this process takes them from the front, a worker
    from the back, until they meet. The worker's first batch waits for it to start, so
    this is never much slower than doing all here. A worker's error is raised here; a
    batch no worker did (no pool, a worker died) is ``undo``ne and done here."""
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
            try:
                done = run(job, part)
            except BaseException as exc:
                failures.append(exc)
                state["stop"] = True
                return
            if isinstance(done, Undone):
                returned.append(part)
                return

    helper = threading.Thread(target=remote, name="worker-feed", daemon=True)
    helper.start()
    try:
        while (part := take(False)) is not None:
            job(part)
    except BaseException:
        state["stop"] = True
        raise
    finally:
        _join(helper)
    if failures:
        raise failures[0]
    for part in returned:
        undo(part)
        job(part)


def _join(helper: threading.Thread) -> None:
    """Wait for ``helper`` even through Ctrl-C (its worker ignores it and may still be
    writing where the caller is about to clean up), then let the interrupt go on."""
    interrupted = False
    while helper.is_alive():
        try:
            helper.join()
        except KeyboardInterrupt:
            interrupted = True
    if interrupted:
        raise KeyboardInterrupt


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
