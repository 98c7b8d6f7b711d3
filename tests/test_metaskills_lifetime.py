"""`metapkg run` ends what it started, and a program's memory is bounded (issue 28 items
7 and 8): the real CLI in a subprocess, real signals, processes found by PID.

Killing `metapkg run` (kill -9 or Ctrl-C) once left the allowed command running, and
after a SIGKILL the Starlark child computed on for up to its timeout (300 s). A
list-doubling program passed 4 GiB.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import _cli_environment, assert_ok, run_cli

pytestmark = [
    pytest.mark.real_cli,
    pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds processes in /proc"),
]
BOUND_SECONDS = 5.0

PROGRAMS = {
    "sleeper": 'def run(input):\n    return command(["sleep", "300"], {"timeout": 120})\n',
    "spinner": "def run(input):\n    n = 0\n    for i in range(1000000000):\n"
    "        n = n + i\n    return n\n",
    "grow": "def run(input):\n    x = [1]\n    for i in range(64):\n        x = x + x\n"
    "    return len(x)\n",
}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("lifetime")
    project = root / "project"
    for name, program in PROGRAMS.items():
        folder = project / "local" / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(
            f"---\nname: {name}\nscope: mine\ndescription: The {name} skill.\n"
            f"version: 1.0.0\n---\n\nInput keys: none.\n"
        )
        (folder / "CHANGELOG.md").write_text("# Changelog\n\n## 1.0.0 (2026-05-01)\n\n- 1.\n")
        (folder / "SKILL.star").write_text(program)
    skills = "".join(f"    - file:./local/{name}\n" for name in PROGRAMS)
    (project / "metapkg.yaml").write_text(
        f"dependencies:\n  skills:\n{skills}metaskills:\n  allow-commands: [sleep]\n"
    )
    env = {"METAPKG_CACHE_DIR": str(root / "cache"), "METAPKG_SHARED_DIR": str(root / "shared")}
    assert_ok(run_cli("install", cwd=project, env=env))
    return project


def _stat(pid: int) -> tuple[int, str] | None:
    """(parent pid, state) of a live process; None when it is gone (or a zombie)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    state, parent = text.rsplit(")", 1)[1].split()[:2]
    return None if state in ("Z", "X") else (int(parent), state)


def _descendants(root: int) -> set[int]:
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (found := _stat(int(entry.name))) is not None:
            parents[int(entry.name)] = found[0]
    family, grew = {root}, True
    while grew:
        more = {pid for pid, parent in parents.items() if parent in family} - family
        family |= more
        grew = bool(more)
    return family - {root}


def _command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_text().replace("\0", " ")
    except OSError:
        return ""


@pytest.fixture
def started(project: Path) -> Iterator[list[subprocess.Popen[bytes]]]:
    """`metapkg run` processes a test starts; whatever is left is stopped by PID."""
    processes: list[subprocess.Popen[bytes]] = []
    yield processes
    for process in processes:
        if process.poll() is None:
            process.kill()
        process.wait()


def _start(project: Path, started: list[subprocess.Popen[bytes]], name: str) -> int:
    process = subprocess.Popen(
        [sys.executable, "-m", "metapkg", "run", name],
        cwd=project,
        env=_cli_environment(None),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    started.append(process)
    return process.pid


def _wait_for(pid: int, program: str) -> set[int]:
    """The descendants of ``pid`` once one of them is ``program`` (argv[0] or module)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        family = _descendants(pid)
        lines = [_command_line(child).split() for child in family]
        if any(line and (Path(line[0]).name == program or program in line) for line in lines):
            return family
        time.sleep(0.05)
    raise AssertionError(f"no process running {program!r} under {pid}")


def _gone_within(pids: set[int], bound: float) -> set[int]:
    deadline = time.monotonic() + bound
    alive = pids
    while alive and time.monotonic() < deadline:
        time.sleep(0.05)
        alive = {pid for pid in alive if _stat(pid) is not None}
    return alive


@pytest.mark.parametrize("stop", [signal.SIGKILL, signal.SIGINT, signal.SIGTERM])
def test_the_allowed_command_ends_with_metapkg_run(
    project: Path, started: list[subprocess.Popen[bytes]], stop: signal.Signals
) -> None:
    parent = _start(project, started, "sleeper")
    family = _wait_for(parent, "sleep")
    assert len(family) >= 3  # the Starlark child, the guard and sleep
    os.kill(parent, stop)
    started[-1].wait(timeout=BOUND_SECONDS)
    left = _gone_within(family, BOUND_SECONDS)
    assert not left, [_command_line(pid) for pid in left]


def test_the_starlark_child_ends_with_a_killed_metapkg_run(
    project: Path, started: list[subprocess.Popen[bytes]]
) -> None:
    parent = _start(project, started, "spinner")
    family = _wait_for(parent, "metapkg.metaskills.child")
    time.sleep(0.5)  # computing now, not reading from its parent
    os.kill(parent, signal.SIGKILL)
    left = _gone_within(family, BOUND_SECONDS)
    assert not left, [_command_line(pid) for pid in left]


def test_a_program_over_its_memory_budget_ends_with_a_budget_error(project: Path) -> None:
    began = time.monotonic()
    done = run_cli("run", "grow", "--max-memory", "128", cwd=project, timeout=60)
    assert done.code == 1, done
    assert done.out.startswith("error: memory budget exhausted"), done
    assert "128 MiB" in done.out and "--max-memory" in done.out
    assert time.monotonic() - began < 30
    out_of_range = run_cli("run", "grow", "--max-memory", "1", cwd=project)
    assert out_of_range.code == 2 and "max_memory must be between 64 and 16384" in out_of_range.err
