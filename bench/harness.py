"""The runs the benchmark's figures are made of: a catalog served by the loopback fixture
server, the real `metapkg` CLI in a subprocess against it, and what each run cost (wall
time, CPU time, peak memory, requests by endpoint)."""

from __future__ import annotations

import os
import shutil
import statistics
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bench.catalog import Catalog, Shape, flat_catalog, generate, manifest
from bench.timing import busy_seconds, clean_environment, own_seconds, run_with_usage
from fixture_server import FixtureGitHub


@dataclass(frozen=True)
class Requests:
    rest: int  # REST API requests (refs, tags, the tarball endpoint's 302)
    advertisements: int  # git ref advertisements from the web host
    archives: int  # archive bodies from the download host

    def __str__(self) -> str:
        return f"{self.rest} REST, {self.advertisements} ref adv., {self.archives} archives"


@dataclass(frozen=True)
class Cpu:
    """CPU seconds (user + system) one run used."""

    interpreter: float  # metapkg's own process, all its threads (wait4)
    user: float  # of that, user time: Python, nearly all of it under one interpreter lock
    everything: float | None  # with its worker processes: the machine's busy time, less
    # the benchmark's own (its fixture server and its git); None off Linux

    def _everything(self) -> str:
        return f"{self.everything:.2f}" if self.everything is not None else "n/a"

    def __str__(self) -> str:
        return (
            f"{self.interpreter:.2f} s in metapkg's process ({self.user:.2f} s user), "
            f"{self._everything()} s with its workers"
        )

    def cell(self) -> str:
        """metapkg's process (its user time) / with its workers, seconds (the scaling
        table): enough to work out the CPU floor, as ``floor`` does for (a)."""
        return f"{self.interpreter:.2f} ({self.user:.2f} user) / {self._everything()} s"

    def floor(self, wall: float) -> str:
        """What the CPU time allows, whatever overlaps: the work spread perfectly over
        every core, and metapkg's user time (its Python) done by one interpreter at a time."""
        cores = os.cpu_count() or 1
        spread = f"{self.everything / cores:.2f} s" if self.everything is not None else "n/a"
        floor = max(self.user, (self.everything or 0.0) / cores)
        return (
            f"CPU floor {floor:.2f} s (the run is {wall / floor:.1f} x this): the larger of "
            f"all of it over {cores} cores ({spread}) and the user time ({self.user:.2f} s)"
        )


PEAK_RSS: dict[str, int] = {}  # the last run's peak resident memory (KiB), by command
LAST_CPU: dict[str, Cpu] = {}  # the last run's CPU time, by command


def metapkg(*args: str, cwd: Path, env: dict[str, str]) -> float:
    """Run the CLI; its wall time. Its peak RSS (os.wait4's rusage) goes to PEAK_RSS, its
    CPU time to LAST_CPU.

    The file system is synced first (not timed): a run that creates 30,000 files leaves
    hundreds of MB of dirty pages (570 MB seen) for the disk to write back, and the next
    run would pay for them."""
    os.sync()
    busy, own = busy_seconds(), own_seconds()
    elapsed, usage = run_with_usage([sys.executable, "-m", "metapkg", "-q", *args], cwd, env)
    busy_after, own_after = busy_seconds(), own_seconds()
    PEAK_RSS[args[0]] = usage.ru_maxrss
    interpreter = usage.ru_utime + usage.ru_stime
    everything = None
    if busy is not None and busy_after is not None:
        benchmark = own_after - own - interpreter  # the fixture server's share
        # at least the interpreter's: /proc/stat counts in ticks of 10 ms
        everything = max(interpreter, busy_after - busy - benchmark)
    LAST_CPU[args[0]] = Cpu(interpreter, usage.ru_utime, everything)
    return elapsed


def median_cpu(runs: list[Cpu]) -> Cpu:
    """Each figure's median over ``runs``."""
    known = [r.everything for r in runs if r.everything is not None]
    every = statistics.median(known) if known else None
    interpreter = statistics.median(r.interpreter for r in runs)
    return Cpu(interpreter, statistics.median(r.user for r in runs), every)


class Bench:
    def __init__(
        self, work: Path, shape: Shape, latency: float, runs: int, path: str = "web"
    ) -> None:
        self.path = path  # "web": ref advertisement + archive host; "rest": the REST API
        self.work = work
        self.shape = shape
        self.latency = latency
        self.runs = runs
        self.catalog: Catalog = generate(work / "catalog", shape)
        self.server = FixtureGitHub(latency=latency)
        for repo, folder in self.catalog.repos.items():
            owner, name = repo.split("/")
            self.server.add_repo(owner, name, {"c1": folder}, branches={"main": "c1"})
        self.server.start()
        self.counter = 0
        self.cold_cpu: list[Cpu] = []  # of each cold install (a)
        self.warm_cpu: dict[str, list[Cpu]] = {}  # of each warm install (c), by link mode

    def close(self) -> None:
        self.server.stop()

    def env(self, cache: Path) -> dict[str, str]:
        web = {}
        if self.path == "web":  # as github.com: the web host, archives from codeload
            web = {
                "METAPKG_GITHUB_URL": self.server.web_url,
                "METAPKG_GITHUB_ARCHIVE_URL": self.server.download_url,
            }
        return clean_environment(
            METAPKG_GITHUB_API_URL=self.server.api_url,
            METAPKG_CACHE_DIR=str(cache),
            METAPKG_SHARED_DIR=str(self.work / "shared"),
            **web,
        )

    def requests(self) -> Requests:
        count = self.server.count
        return Requests(
            rest=count(r"", host="api"),
            advertisements=count(r"/info/refs", host="web"),
            archives=count(r"", host="download"),
        )

    def fresh(self, lock: Path | None = None) -> Path:
        self.counter += 1
        project = self.work / f"project-{self.counter}"
        project.mkdir()
        (project / "metapkg.yaml").write_text(manifest(self.catalog.roots))
        if lock is not None:
            shutil.copy(lock, project / "metapkg.lock")
        return project

    def fresh_cache(self) -> Path:
        self.counter += 1
        return self.work / f"cache-{self.counter}"

    def median(self, measure: Callable[[], float]) -> float:
        return statistics.median(measure() for _ in range(self.runs))

    # -- the figures -----------------------------------------------------------------------

    def cold(self) -> tuple[float, Requests, Path, Path]:
        """(a) empty cache, no lock. Returns time, requests, a lock, a warm cache."""
        times, requests = [], Requests(0, 0, 0)
        project = cache = self.work
        for _ in range(self.runs):
            project, cache = self.fresh(), self.fresh_cache()
            self.server.clear_log()
            times.append(metapkg("install", cwd=project, env=self.env(cache)))
            self.cold_cpu.append(LAST_CPU["install"])
            requests = self.requests()
        return statistics.median(times), requests, project / "metapkg.lock", cache

    def cold_from_lock(self, lock: Path) -> tuple[float, Requests]:
        """(b) empty cache, an existing lock."""
        times, requests = [], Requests(0, 0, 0)
        for _ in range(self.runs):
            project, cache = self.fresh(lock), self.fresh_cache()
            self.server.clear_log()
            times.append(metapkg("install", cwd=project, env=self.env(cache)))
            requests = self.requests()
        return statistics.median(times), requests

    def warm(self, lock: Path, cache: Path, mode: str = "copy") -> tuple[float, int, Path]:
        """(c) a fresh project (manifest + lock, nothing provisioned), full cache."""
        times, requests, project = [], 0, self.work
        for _ in range(self.runs):
            project = self.fresh(lock)
            self.server.clear_log()
            run = ("install", "--link-mode", mode)
            times.append(metapkg(*run, cwd=project, env=self.env(cache)))
            self.warm_cpu.setdefault(mode, []).append(LAST_CPU["install"])
            requests = len(self.server.requests)
        return statistics.median(times), requests, project

    def warm_without_lock(self, cache: Path) -> float:
        """(c') a fresh project with no lock: refs must be asked of GitHub again."""
        return self.median(lambda: metapkg("install", cwd=self.fresh(), env=self.env(cache)))

    def noop(self, project: Path, cache: Path) -> float:
        """(d) everything up to date."""
        return self.median(lambda: metapkg("install", cwd=project, env=self.env(cache)))

    def lock_check(self, project: Path, cache: Path) -> float:
        """(e) `metapkg lock --check` on an up-to-date project."""
        return self.median(lambda: metapkg("lock", "--check", cwd=project, env=self.env(cache)))


def check_catalog(work: Path, count: int, shape: Shape, runs: int) -> float:
    """(f) `metapkg check` of a catalog of ``count`` skills."""
    root = flat_catalog(work / f"flat-{count}", count, shape)
    env = {k: v for k, v in os.environ.items() if not k.startswith("METAPKG_")}
    return statistics.median(metapkg("check", str(root), cwd=work, env=env) for _ in range(runs))
