"""What this machine allows, measured in the same run with native tools.

A target below the machine's floor cannot be met by any installer, so each install
figure is printed beside the cost of its unavoidable parts done by C programs:

* creating the files an install provisions: ``cp -r`` of the project's provisioned
  folders (every host folder metapkg wrote) into a fresh folder;
* unpacking the downloads: ``tar xzf`` of every repository's archive (built here from the
  catalog, as the fixture server serves them), one ``tar`` process per archive.

Both write to the same file system as the runs they are compared with. Neither checks
anything (no size caps, no hashes, no journal), so they are floors, not rivals.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import tarfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

STATE = ".metapkg"


@dataclass(frozen=True)
class Floor:
    seconds: float | None  # None: the tool is not on this machine
    files: int
    folders: int

    def __str__(self) -> str:
        if self.seconds is None:
            return "n/a (no cp or tar here)"
        return f"{self.seconds:.2f} s ({self.files} files, {self.folders} folders)"


def provisioned(project: Path) -> list[Path]:
    """The folders an install wrote into ``project`` (its hidden host folders)."""
    return sorted(
        p for p in project.iterdir() if p.is_dir() and p.name.startswith(".") and p.name != STATE
    )


def _count(folders: Iterable[Path]) -> tuple[int, int]:
    files = dirs = 0
    for folder in folders:
        for path in folder.rglob("*"):
            if path.is_dir():
                dirs += 1
            else:
                files += 1
    return files, dirs


def _timed(
    commands: Callable[[Path], list[list[str]]], scratch: Path, name: str, runs: int
) -> float:
    """Median of ``runs``: the ``commands`` for a fresh empty target folder, one after
    another, the file system synced first (as before each install run, bench/__main__.py)."""
    times = []
    for run in range(runs):
        target = scratch / f"{name}-{run}"
        target.mkdir(parents=True)
        os.sync()
        started = time.perf_counter()
        for command in commands(target):
            subprocess.run(command, check=True)
        times.append(time.perf_counter() - started)
        shutil.rmtree(target)
    return statistics.median(times)


def copy_floor(project: Path, scratch: Path, runs: int) -> Floor:
    """``cp -r`` of what the install provisioned in ``project``, median of ``runs``."""
    folders = provisioned(project)
    files, dirs = _count(folders)
    if shutil.which("cp") is None:
        return Floor(None, files, dirs)
    copy = lambda target: [["cp", "-r", *map(str, folders), str(target)]]  # noqa: E731
    return Floor(_timed(copy, scratch, "cp", runs), files, dirs)


def extract_floor(repos: dict[str, Path], scratch: Path, runs: int) -> Floor:
    """``tar xzf`` of one gzip tarball per repository, median of ``runs``."""
    archives = scratch / "archives"
    archives.mkdir(parents=True, exist_ok=True)
    for repo, folder in repos.items():
        with tarfile.open(archives / f"{repo.replace('/', '__')}.tar.gz", "w:gz") as tar:
            tar.add(folder, arcname=repo.replace("/", "-"))
    files, dirs = _count(repos.values())
    if shutil.which("tar") is None:
        return Floor(None, files, dirs)

    def unpack(target: Path) -> list[list[str]]:
        return [["tar", "xzf", str(a), "-C", str(target)] for a in sorted(archives.iterdir())]

    return Floor(_timed(unpack, scratch, "tar", runs), files, dirs)
