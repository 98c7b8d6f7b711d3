"""Archives extracted by a worker process (fetch/unpack.py), through the real CLI: a cold
install of several repositories at once, and one killed with SIGKILL mid-way, whose
worker processes must not outlive it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import _cli_environment, assert_ok
from ghfixtures import GH, make_gh, skill_origin

pytestmark = pytest.mark.real_cli
REPOS = [f"acme/r{i}" for i in range(8)]
CHILDREN = "/proc/{pid}/task/{pid}/children"


@pytest.fixture
def gh(tmp_path: Path) -> Iterator[GH]:
    yield from make_gh(tmp_path, latency=0.05, web=True)


def _catalog(gh: GH) -> None:
    # Eight repositories asked for at once, each a few hundred files: their archives
    # arrive together, so extractions overlap and some go to a worker process.
    for i, repo in enumerate(REPOS):
        filler = {f"skills/s{i}/notes/{n:03}.md": f"note {n}\n" * 40 for n in range(300)}
        gh.repo(repo, {"c1": {"skills": {f"s{i}": {}}, "files": filler}})
    gh.manifest(skills=[skill_origin(repo, "main", f"s{i}") for i, repo in enumerate(REPOS)])


def _descendants(pid: int) -> set[int]:
    found, todo = set(), [pid]
    while todo:
        try:
            text = Path(CHILDREN.format(pid=todo.pop())).read_text()
        except OSError:
            continue
        kids = {int(k) for k in text.split()}
        found |= kids
        todo += kids
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in state


def test_a_cold_install_of_many_repositories_extracts_them_all(gh: GH) -> None:
    _catalog(gh)
    assert_ok(gh.install())
    for i in range(len(REPOS)):
        notes = gh.project / ".claude" / "skills" / f"s{i}" / "notes"
        assert sorted(p.read_text() for p in notes.iterdir())[0] == "note 0\n" * 40
        assert len(list(notes.iterdir())) == 300
    assert len(gh.lock()["packages"]) == len(REPOS)


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads /proc (Linux)")
def test_a_killed_install_leaves_no_worker_process_behind(gh: GH) -> None:
    _catalog(gh)
    env = _cli_environment(gh.env)
    proc = subprocess.Popen(
        [sys.executable, "-m", "metapkg", "-q", "install"],
        cwd=gh.project,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    seen: set[int] = set()
    deadline = time.monotonic() + 20
    while proc.poll() is None and time.monotonic() < deadline:
        seen |= _descendants(proc.pid)
        if len(seen) >= 3:  # the resource tracker, the forkserver and a worker
            break
        time.sleep(0.01)
    if proc.poll() is not None or len(seen) < 3:
        proc.kill()
        pytest.fail(f"no worker process started during the install (saw {sorted(seen)})")
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 15
    while any(_alive(pid) for pid in seen) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = [pid for pid in seen if _alive(pid)]
    for pid in left:  # only processes this test's install started
        os.kill(pid, signal.SIGKILL)
    assert not left, f"worker processes outlived the killed install: {left}"
