"""A full disk, for real: the project, the cache or both on a small tmpfs.

Each trial copies the installed template onto a fresh tmpfs, switches to state B's
manifest (a download, an extraction, staging, renames and a lock to write), then
shrinks the file system to what is used plus a random part of what the install needs
(or, in one trial of three, limits the number of inodes instead), so the disk fills up
at a different step each time. The install must either succeed or fail with a clear
error that says the disk is full, leaving the project exactly as it was; once the file
system is grown again, ``install`` and ``verify`` must succeed.

Mounting needs root (CAP_SYS_ADMIN); elsewhere the scenario is skipped, and the report
says so (an injected ENOSPC at metapkg's write layer would be the fallback; it needs a
hook in metapkg, which this suite does not add).
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from reliability.faults import checks, kills, state, world
from reliability.faults.lab import Lab, Outcome

ROOMY = 64 * 1024 * 1024
PLACES = ("sandbox", "project", "cache")  # what lives on the small file system


def _mount(point: Path, options: str) -> None:
    subprocess.run(
        ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(point)],
        check=True,
        capture_output=True,
    )


def _remount(point: Path, options: str) -> None:
    subprocess.run(
        ["mount", "-o", f"remount,{options}", str(point)], check=True, capture_output=True
    )


def _unmount(point: Path) -> None:
    subprocess.run(["umount", "-l", str(point)], check=False, capture_output=True)


def unavailable() -> str | None:
    """None when a tmpfs can be mounted here, else why not."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return "mounting a tmpfs needs root"
    with tempfile.TemporaryDirectory() as probe:
        try:
            _mount(Path(probe), "size=64k")
        except (OSError, subprocess.CalledProcessError):
            return "cannot mount a tmpfs here"
        _unmount(Path(probe))
    return None


@dataclass(frozen=True)
class Usage:
    bytes: int
    inodes: int


def _usage(point: Path) -> Usage:
    st = os.statvfs(point)
    return Usage((st.f_blocks - st.f_bfree) * st.f_frsize, st.f_files - st.f_ffree)


def _populate(lab: Lab, sandbox: Path, place: str) -> Path:
    """Copy the template into ``sandbox`` with ``place`` on a roomy tmpfs; the mount point."""
    template = lab.installed()
    point = sandbox if place == "sandbox" else sandbox / place
    point.mkdir(exist_ok=True)
    _mount(point, f"size={ROOMY},nr_inodes=100000")
    if place == "sandbox":
        subprocess.run(["cp", "-a", f"{template}/.", str(sandbox)], check=True)
    else:  # two file systems: the project's hard links into the cache become copies
        for part in sorted(p.name for p in template.iterdir()):
            (sandbox / part).mkdir(exist_ok=True)
            subprocess.run(["cp", "-a", f"{template / part}/.", str(sandbox / part)], check=True)
    kills.OPERATIONS[0].prepare(sandbox / "project")
    return point


def _need(lab: Lab, place: str) -> Usage:
    """How much the install towards state B adds on the file system at ``place``."""

    def measure() -> Usage:
        sandbox = lab.fresh(f"disk-measure-{place}")
        point = _populate(lab, sandbox, place)
        try:
            before = _usage(point)
            result = lab.run(sandbox, "install")
            if result.code != 0:
                raise RuntimeError(f"install on a roomy tmpfs failed\n{result.show()}")
            after = _usage(point)
            return Usage(
                max(after.bytes - before.bytes, 4096), max(after.inodes - before.inodes, 1)
            )
        finally:
            _unmount(point)

    return lab.memo(f"disk-need-{place}", measure)


@dataclass(frozen=True)
class Fill:
    """Where the small file system is and how much room it leaves the install."""

    place: str  # one of PLACES
    inodes: int | None = None  # free inodes, or
    free: int = 0  # free bytes

    def options(self, used: Usage) -> str:
        if self.inodes is not None:
            return f"nr_inodes={used.inodes + self.inodes}"
        return f"size={used.bytes + self.free}"

    def __str__(self) -> str:
        room = f"{self.inodes} inodes" if self.inodes is not None else f"{self.free // 1024} KiB"
        return f"{self.place} with {room} free"


def trial(lab: Lab, index: int) -> Outcome:
    """A random fill: every place in turn in the short mode, any place in the long one;
    one trial in three limits inodes."""
    place = PLACES[index % len(PLACES)] if not lab.long else lab.rng.choice(PLACES)
    need = _need(lab, place)
    if index % 3 == 2:
        fill = Fill(place, inodes=lab.rng.randint(0, need.inodes))
    else:
        fill = Fill(place, free=lab.rng.randint(0, need.bytes * 3 // 2))
    return attempt(lab, fill)


def attempt(lab: Lab, fill: Fill, recover: bool = True) -> Outcome:
    outcome = Outcome()
    what = f"disk full ({fill})"
    new = kills.reference(lab, kills.OPERATIONS[0]).states["new"]
    sandbox = lab.fresh(f"disk-{fill.place}")
    point = _populate(lab, sandbox, fill.place)
    try:
        project = sandbox / "project"
        before, old = world.user_data(project), state.snapshot(project)
        _remount(point, fill.options(_usage(point)))
        result = lab.run(sandbox, "install")
        if result.code == 0:
            outcome.saw(result, what)
            if world.user_data(project) != before:
                outcome.lost = True
                outcome.fail(f"{what}: the user's own things changed")
        else:
            checks.clear_failure(result, what, outcome)
            checks.unchanged(project, old, before, what, outcome)
            if result.code == 1 and "space" not in result.err.lower():
                outcome.fail(f"{what}: the error does not say so\n{result.show()}")
        if recover:
            _remount(point, f"size={ROOMY},nr_inodes=100000")
            checks.recovers(lab, sandbox, new, what, outcome)
    finally:
        _unmount(point)
    return outcome
