"""Timing a command in a subprocess: wall clock and the CPU time it and its children used.

Both are reported because this machine is shared: the wall clock is what a user waits
for, the CPU time (user + system, from ``wait4``) is the work the
command did, and it moves far less when other processes compete for the two cores.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Timing:
    wall: float  # seconds, median of the runs
    cpu: float  # seconds of user + system time, median of the runs
    runs: int

    def ms(self) -> str:
        return f"{self.wall * 1000:.0f} ms"

    def cpu_ms(self) -> str:
        return f"{self.cpu * 1000:.0f} ms"


def clean_environment(**extra: str) -> dict[str, str]:
    """The caller's environment without metapkg's variables or tokens, with bytecode
    caching on (users' installs have .pyc files; PYTHONDONTWRITEBYTECODE would make every
    run compile every module)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("METAPKG_", "GITHUB_TOKEN", "GH_TOKEN"))
        and k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPROFILEIMPORTTIME")
    }
    env.update(extra)
    return env


def run_once(command: list[str], cwd: Path, env: Mapping[str, str]) -> tuple[float, float]:
    """(wall, cpu) seconds of one run; exits the benchmark if the command fails.

    The CPU time is the command's own (``wait4``), with the children it waited for, not
    that of other children of this process (the fixture server runs ``git``)."""
    wall, usage = run_with_usage(command, cwd, env)
    return wall, usage.ru_utime + usage.ru_stime


def run_with_usage(
    command: list[str], cwd: Path, env: Mapping[str, str]
) -> tuple[float, resource.struct_rusage]:
    """Wall seconds and the ``wait4`` resource usage of one run; exits if it fails."""
    with tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        child = subprocess.Popen(
            command, cwd=cwd, env=dict(env), stdout=subprocess.DEVNULL, stderr=err
        )
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - started
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode != 0:
            err.seek(0)
            shown = " ".join(command)
            text = err.read().decode(errors="replace")[-3000:]
            raise SystemExit(f"{shown} failed ({child.returncode}) in {cwd}:\n{text}")
    return wall, usage


def busy_seconds() -> float | None:
    """CPU seconds this machine's cores have been busy since boot (user, nice, system,
    interrupts; not idle, I/O wait or steal), from Linux's /proc/stat; None elsewhere.
    The difference over a run counts processes ``wait4`` misses: metapkg's worker
    processes are children of its forkserver, which nobody waits for."""
    try:
        with open("/proc/stat", encoding="ascii") as stat:
            fields = stat.readline().split()
    except OSError:
        return None
    if not fields or fields[0] != "cpu" or len(fields) < 8:
        return None
    user, nice, system, _, _, irq, softirq = map(int, fields[1:8])
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")


def own_seconds() -> float:
    """CPU seconds this process (the benchmark, with its fixture server) and the children
    it has waited for (the runs, and the server's ``git``) have used."""
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        total += usage.ru_utime + usage.ru_stime
    return total


def measure(
    command: list[str],
    runs: int,
    env: Mapping[str, str],
    prepare: Callable[[], Path],
    warmup: bool = True,
) -> Timing:
    """Median of ``runs`` runs, each in the folder ``prepare`` returns (called untimed).

    One unmeasured run comes first: it writes the bytecode caches a real install has.
    """
    if warmup:
        run_once(command, prepare(), env)
    walls, cpus = [], []
    for _ in range(runs):
        wall, cpu = run_once(command, prepare(), env)
        walls.append(wall)
        cpus.append(cpu)
    return Timing(statistics.median(walls), statistics.median(cpus), runs)


def metapkg_command() -> list[str]:
    """How a user runs metapkg: the console script next to this interpreter (no runpy)."""
    script = Path(sys.executable).with_name("metapkg")
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-m", "metapkg"]


NOTES = "<!-- notes: kept when the table above is regenerated -->"


def write_keeping_notes(output: Path, report: str) -> None:
    """Write ``report`` to ``output``, keeping the hand-written notes that followed the
    NOTES marker in the previous results (what the profiles showed stays with the
    figures)."""
    try:
        previous = output.read_text()
    except FileNotFoundError:
        previous = ""
    at = previous.find(NOTES)
    output.write_text(report + ("" if at < 0 else "\n" + previous[at:]))
