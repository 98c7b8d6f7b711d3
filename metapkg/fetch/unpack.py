"""Archives extracted on a second core when several arrive at once.

Extracting is CPU work in Python (tarfile, hashing, one file created per member): on a
cold install of 300 packages it was 0.68 s of the 2.1 s the process spent on the CPU,
on worker threads that shared one interpreter lock with the crawl, the package loads and
the HTTP client, while the second core idled. So an archive that arrives while another
one is being extracted goes to a worker process (metapkg/workers.py); one that arrives
alone (the usual small job: one repository) is extracted in its thread, and no process
is started. The record is the same either way, and so is an archive's error.
"""

from __future__ import annotations

import threading

from metapkg import workers
from metapkg.fetch import archive
from metapkg.fetch.cache import delete

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy knows the name)
if TYPE_CHECKING:
    from pathlib import Path

_lock = threading.Lock()
_running = 0  # extractions under way in this process


def extract(archive_file: Path, destination: Path, source: str) -> dict[str, tuple[int, bool, str]]:
    """``archive.extract``, in a worker process when another extraction is under way. Even
    when the worker is busy: extracting here instead (while it works) was slower, 2.21 s
    against 2.00 s for a cold 300-package install (9 interleaved runs): this process's
    threads would take the interpreter lock from the crawl and the HTTP client."""
    global _running
    with _lock:
        crowded = _running > 0
        _running += 1
    try:
        if crowded:
            record = workers.run(archive.extract, archive_file, destination, source)
            if not isinstance(record, workers.Undone):
                return record
            _empty(destination)  # no worker did it (none, or it died): here, from scratch
        return archive.extract(archive_file, destination, source)
    finally:
        with _lock:
            _running -= 1


def _empty(folder: Path) -> None:
    """Remove what a dead worker left in ``folder``, as the cache removes its trees."""
    for child in folder.iterdir():
        delete(child)
