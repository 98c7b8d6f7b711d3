"""A full disk: the project, the cache or both on a small tmpfs, or an injected ENOSPC.

Each trial starts from the installed template with state B's manifest (a download, an
extraction, staging, renames and a lock to write) and fills the disk at a random step:

* *tmpfs* (needs root, CAP_SYS_ADMIN, to mount): the template is copied onto a fresh
  tmpfs, which is shrunk to what is used plus a random part of what the install needs
  (or, in one trial of three, to a random number of free inodes);
* *injected* (anywhere): ``METAPKG_FAILPOINT=enospc:N`` makes every write metapkg makes
  after N bytes in all fail with ENOSPC, N a random part of what the install writes.

The install must either succeed or fail with a clear error that says the disk is full,
leaving the project exactly as it was; once the disk has room again, ``install`` and
``verify`` must succeed. The short mode injects (no mounts, the same everywhere); the
long mode alternates the two where it can mount, and injects elsewhere.
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
INJECTED = "injected"  # a Fill's place when no file system is small: the failpoint


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


def tmpfs_unavailable() -> str | None:
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

    place: str  # one of PLACES, or INJECTED (then ``free`` is the N of enospc:N)
    inodes: int | None = None  # free inodes, or
    free: int = 0  # free bytes

    def options(self, used: Usage) -> str:
        if self.inodes is not None:
            return f"nr_inodes={used.inodes + self.inodes}"
        return f"size={used.bytes + self.free}"

    def __str__(self) -> str:
        if self.place == INJECTED:
            return f"ENOSPC after {self.free} bytes written"
        room = f"{self.inodes} inodes" if self.inodes is not None else f"{self.free // 1024} KiB"
        return f"{self.place} with {room} free"


def trial(lab: Lab, index: int) -> Outcome:
    """A random fill. Injected: N below what the install writes in the short mode (so it
    fails somewhere), up to half as much again in the long one. On a tmpfs: every place
    in turn; one trial in three limits inodes."""
    if not lab.long or index % 2 or lab.memo("no-tmpfs", tmpfs_unavailable) is not None:
        written = kills.reference(lab, kills.OPERATIONS[0]).written
        top = written - 1 if not lab.long else written * 3 // 2
        return attempt(lab, Fill(INJECTED, free=lab.rng.randint(0, top)))
    place = lab.rng.choice(PLACES)
    need = _need(lab, place)
    if index % 3 == 2:
        fill = Fill(place, inodes=lab.rng.randint(0, need.inodes))
    else:
        fill = Fill(place, free=lab.rng.randint(0, need.bytes * 3 // 2))
    return attempt(lab, fill)


def attempt(lab: Lab, fill: Fill, recover: bool = True) -> Outcome:
    if fill.place == INJECTED:
        sandbox = lab.clone(lab.installed(), "disk-injected")
        kills.OPERATIONS[0].prepare(sandbox / "project")
        env = {**lab.env(sandbox), "METAPKG_FAILPOINT": f"enospc:{fill.free}"}
        return _install(lab, sandbox, fill, env, recover)
    sandbox = lab.fresh(f"disk-{fill.place}")
    point = _populate(lab, sandbox, fill.place)
    try:
        _remount(point, fill.options(_usage(point)))
        outcome = _install(lab, sandbox, fill, lab.env(sandbox), recover=False)
        if recover:
            _remount(point, f"size={ROOMY},nr_inodes=100000")
            _recovers(lab, sandbox, fill, outcome)
    finally:
        _unmount(point)
    return outcome


def _install(lab: Lab, sandbox: Path, fill: Fill, env: dict[str, str], recover: bool) -> Outcome:
    """``install`` on the full disk: a success that kept the user's things, or a clear
    failure that says the disk is full and changed nothing; then, with room, recovery."""
    outcome = Outcome()
    what = f"disk full ({fill})"
    project = sandbox / "project"
    before, old = world.user_data(project), state.snapshot(project)
    result = lab.run(sandbox, "install", env=env)
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
        _recovers(lab, sandbox, fill, outcome)
    return outcome


def _recovers(lab: Lab, sandbox: Path, fill: Fill, outcome: Outcome) -> None:
    new = kills.reference(lab, kills.OPERATIONS[0]).states["new"]
    checks.recovers(lab, sandbox, new, f"disk full ({fill})", outcome)
