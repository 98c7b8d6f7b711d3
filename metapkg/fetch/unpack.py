"""Archives extracted on a second core when several arrive at once.

Extracting is CPU work in Python (tarfile, hashing, one file created per member): on a
cold install of 300 packages it was 0.68 s of the 2.1 s the process spent on the CPU,
on worker threads that shared one interpreter lock with the crawl, the package loads and
the HTTP client, while the second core idled. So there are two extractors: this process,
one archive at a time, and the worker processes (metapkg/workers.py), one archive each.
An archive goes to the first of them that is free, this process first: one that arrives
alone (the usual small job: one repository) is extracted in its thread, and no process is
started. The record is the same either way, and so is an archive's error.
"""

from __future__ import annotations

import threading

from metapkg import workers
from metapkg.fetch import archive
from metapkg.fetch.cache import delete

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy knows the name)
if TYPE_CHECKING:
    from pathlib import Path

_free = threading.Condition()
_here = 0  # archives being extracted by this process's threads
_with_workers = 0  # archives handed to the worker processes, not yet back


def extract(archive_file: Path, destination: Path, source: str) -> dict[str, tuple[int, bool, str]]:
    """``archive.extract``, by the first free extractor (waiting for one if need be).

    Waiting, rather than extracting here whenever this process's extractor is taken: two
    extractions on this process's threads take the interpreter lock from the crawl and
    the HTTP client (2.21 s against 2.00 s for a cold 300-package install, 9 interleaved
    runs). Rather than queueing every archive at the worker: a burst of archives (a cold
    install from a lock downloads all of them at once) then waited for one worker while
    this process idled."""
    to_worker = _take_turn()
    try:
        if to_worker:
            record = workers.run(archive.extract, archive_file, destination, source)
            if not isinstance(record, workers.Undone):
                return record
            _empty(destination)  # no worker did it (none, or it died): here, from scratch
        return archive.extract(archive_file, destination, source)
    finally:
        _end_turn(to_worker)


def _take_turn() -> bool:
    """Wait for a free extractor and take it: this process's if free (False), else a
    worker's (True)."""
    global _here, _with_workers
    with _free:
        while _here > 0 and _with_workers >= workers.size():
            _free.wait()
        if _here == 0:
            _here += 1
            return False
        _with_workers += 1
        return True


def _end_turn(to_worker: bool) -> None:
    global _here, _with_workers
    with _free:
        if to_worker:
            _with_workers -= 1
        else:
            _here -= 1
        _free.notify()


def _empty(folder: Path) -> None:
    """Remove what a dead worker left in ``folder``, as the cache removes its trees."""
    for child in folder.iterdir():
        delete(child)
