"""Archives extracted on a second core when several arrive at once.

Extracting is CPU work in Python (tarfile, hashing, one file created per member): on a
cold install of 300 packages it was 0.68 s of the 2.1 s the process spent on the CPU,
on worker threads that shared one interpreter lock with the crawl, the package loads and
the HTTP client, while the second core idled. So an archive that arrives while another
one is being extracted is handed to a worker process; one that arrives alone (the usual
small job: one repository) is extracted in its thread, as before, and no process is
started.

The worker comes from a ``forkserver`` (a clean interpreter that forks each worker):
forking this process directly would copy locks other threads hold at that moment. Where
forkserver does not exist (Windows) or a failpoint is set (its byte count is per process,
see failpoint.py), everything is extracted in-thread. The result is the same record
either way; an error raised in the worker arrives here as the same exception.
"""

from __future__ import annotations

import os
import threading

from metapkg import settings
from metapkg.fetch import archive

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy knows the name)
if TYPE_CHECKING:
    import multiprocessing.process
    from concurrent.futures import ProcessPoolExecutor
    from pathlib import Path

_lock = threading.Lock()
_running = 0  # extractions under way in this process
_pool: ProcessPoolExecutor | None = None


def extract(archive_file: Path, destination: Path, source: str) -> dict[str, tuple[int, bool, str]]:
    """``archive.extract``, in a worker process when another extraction is under way."""
    global _running
    with _lock:
        crowded = _running > 0
        _running += 1
    try:
        pool = _worker_pool() if crowded and not settings.failpoint() else None
        if pool is not None:
            from concurrent.futures.process import BrokenProcessPool

            try:
                return pool.submit(archive.extract, archive_file, destination, source).result()
            except BrokenProcessPool:  # the worker died (killed, out of memory): here, then
                shutdown()
                _empty(destination)
        return archive.extract(archive_file, destination, source)
    finally:
        with _lock:
            _running -= 1


def _empty(folder: Path) -> None:
    """Remove what a dead worker left in ``folder`` (its files are read-only, its
    folders are not: both go)."""
    import shutil

    for child in folder.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()


def _worker_pool() -> ProcessPoolExecutor | None:
    global _pool
    with _lock:
        if _pool is None and _usable():
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            context = multiprocessing.get_context("forkserver")
            context.set_forkserver_preload(["metapkg.fetch.archive"])
            workers = max(1, min(4, (os.cpu_count() or 1) - 1))
            _pool = ProcessPoolExecutor(workers, mp_context=context, initializer=_start_worker)
        return _pool


def _start_worker() -> None:
    """Ctrl-C is for the install process, which stops and cleans up (a worker printing
    its own KeyboardInterrupt traceback would only bury that message). And a worker must
    not outlive it: killed with SIGKILL, it cannot say goodbye, and a pool's worker
    would wait for work forever (it holds both ends of its own queue's pipe), keeping
    the forkserver alive too. So a thread waits for the install process to end, then
    ends the worker."""
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


def _usable() -> bool:
    import multiprocessing

    return (os.cpu_count() or 1) > 1 and "forkserver" in multiprocessing.get_all_start_methods()


def shutdown() -> None:
    """Stop the worker processes (at the end of a command)."""
    global _pool
    with _lock:
        pool, _pool = _pool, None
    if pool is not None:
        pool.shutdown(wait=True, cancel_futures=True)
