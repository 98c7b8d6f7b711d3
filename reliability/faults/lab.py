"""The shared setting of a fault run: the fake GitHub, a scratch folder, sandboxes.

A *sandbox* is one folder holding ``project/``, ``cache/``, ``shared/`` and ``config/``.
``Lab.installed()`` builds, once, a sandbox whose project is installed at state A (see
world.py) with the user's own files in place; every trial starts from a copy of it made
with ``cp -a``, which keeps the hard links between the project and the cache, so a trial
begins exactly where a real team's checkout would be, in a few milliseconds.

A trial reports an ``Outcome``; ``Tally`` adds them up into one row of the table.
"""

from __future__ import annotations

import random
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from fixture_server import FixtureGitHub
from reliability.faults import cli, world


@dataclass
class Outcome:
    """What one trial found. ``problems`` is empty when it survived."""

    problems: list[str] = field(default_factory=list)
    lost: bool = False  # the user's own files or .mcp.json entries changed
    unhandled: int = 0  # tracebacks (or hangs) seen in the trial's runs
    killed: bool = False  # a run of the trial really died by SIGKILL

    @property
    def survived(self) -> bool:
        return not self.problems and not self.lost and not self.unhandled

    def fail(self, message: str) -> None:
        self.problems.append(message)

    def saw(self, result: cli.Result, what: str) -> cli.Result:
        """Count a traceback or a hang in ``result`` (a run this trial made)."""
        if result.traceback or result.code == 124:
            self.unhandled += 1
            kind = "hung" if result.code == 124 else "traceback"
            self.fail(f"{what}: {kind}\n{result.show()}")
        return result


@dataclass
class Tally:
    scenario: str
    trials: int = 0
    survived: int = 0
    lost: int = 0
    unhandled: int = 0
    killed: int = 0
    skipped: str = ""  # why the scenario could not run here
    failures: list[str] = field(default_factory=list)

    def add(self, outcome: Outcome) -> None:
        self.trials += 1
        self.survived += outcome.survived
        self.lost += outcome.lost
        self.unhandled += outcome.unhandled
        self.killed += outcome.killed
        if outcome.problems and len(self.failures) < 3:
            self.failures.append(outcome.problems[0])

    @property
    def ok(self) -> bool:
        return not self.skipped and self.survived == self.trials and self.trials > 0

    def row(self) -> list[object]:
        if self.skipped:
            return [self.scenario, 0, "-", "-", "-", "-", f"skipped: {self.skipped}"]
        return [
            self.scenario,
            self.trials,
            self.survived,
            self.lost,
            self.unhandled,
            self.killed,
            "" if self.ok else "FAILED",
        ]


T = TypeVar("T")

HEADERS = ["scenario", "trials", "survived", "lost data", "unhandled exc", "killed", ""]


class Lab:
    def __init__(self, rng: random.Random, long: bool, keep: bool = False) -> None:
        self.rng = rng
        self.long = long
        self.keep = keep
        self.scratch = Path(tempfile.mkdtemp(prefix="metapkg-faults-"))
        self.commits = world.build_catalog(self.scratch / "fixtures")
        self.server: FixtureGitHub = world.serve(self.commits)
        self._count = 0
        self._lock = threading.RLock()
        self._installed: Path | None = None
        self._memo: dict[str, Any] = {}

    def close(self) -> None:
        self.server.stop()
        if not self.keep:
            subprocess.run(["chmod", "-R", "u+rwX", str(self.scratch)], check=False)
            shutil.rmtree(self.scratch, ignore_errors=True)

    # -- sandboxes ---------------------------------------------------------------------

    def fresh(self, name: str) -> Path:
        with self._lock:
            self._count += 1
            sandbox = self.scratch / f"{self._count:04d}-{name}"
        sandbox.mkdir()
        return sandbox

    def env(self, sandbox: Path, token: str | None = None) -> dict[str, str]:
        return world.environment(self.server, sandbox, token)

    def run(
        self,
        sandbox: Path,
        *args: str,
        kill_after: float | None = None,
        env: dict[str, str] | None = None,
        timeout: float = cli.TIMEOUT,
    ) -> cli.Result:
        return cli.metapkg(
            list(args),
            sandbox / "project",
            env or self.env(sandbox),
            kill_after=kill_after,
            timeout=timeout,
        )

    def installed(self) -> Path:
        """The template sandbox: state A installed, the user's files in place."""
        with self._lock:
            if self._installed is None:
                self._installed = self._build_installed()
            return self._installed

    def memo(self, key: str, make: Callable[[], T]) -> T:
        """``make()`` once per lab (references shared by scenarios)."""
        with self._lock:
            if key not in self._memo:
                self._memo[key] = make()
            value: T = self._memo[key]
            return value

    def _build_installed(self) -> Path:
        sandbox = self.scratch / "template-installed"
        world.write_project(sandbox / "project")
        result = self.run(sandbox, "install")
        if result.code != 0:
            raise RuntimeError(f"setting up the template: `install` failed\n{result.show()}")
        # From now on `main` is at c2: `update` has somewhere to go, and locks keep c1.
        owner, name = world.REPO.split("/")
        self.server.set_branch(owner, name, "main", "c2")
        return sandbox

    def clone(self, template: Path, name: str) -> Path:
        """A copy of ``template`` (hard links between its project and cache kept)."""
        sandbox = self.fresh(name)
        sandbox.rmdir()
        subprocess.run(["cp", "-a", str(template), str(sandbox)], check=True)
        return sandbox
