"""Install-speed benchmark: `python -m bench` (see README, "Benchmarks").

Generates a synthetic catalog, serves it through the loopback fixture server with
injected latency, runs the real `metapkg` CLI in subprocesses, and prints one table of
medians; the same table goes to bench/results.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bench.catalog import Catalog, Shape, flat_catalog, generate, manifest
from bench.floors import copy_floor, extract_floor
from bench.timing import (
    busy_seconds,
    clean_environment,
    own_seconds,
    run_with_usage,
    write_keeping_notes,
)
from fixture_server import FixtureGitHub

HERE = Path(__file__).resolve().parent
# Per level of a cold crawl: the ref advertisement and the archive by commit (web
# path); the REST path adds the 302 of the tarball endpoint.
ROUND_TRIPS_PER_LEVEL = {"web": 2, "rest": 3}


@dataclass(frozen=True)
class Requests:
    rest: int  # REST API requests (refs, tags, the tarball endpoint's 302)
    advertisements: int  # git ref advertisements from the web host
    archives: int  # archive bodies from the download host

    def __str__(self) -> str:
        return f"{self.rest} REST, {self.advertisements} ref adv., {self.archives} archives"


@dataclass
class Row:
    figure: str
    value: str
    target: str = ""
    met: str = ""


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
        """metapkg's process / with its workers, seconds (the scaling table)."""
        return f"{self.interpreter:.2f} / {self._everything()} s"

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


def verdict(value: float, limit: float) -> str:
    return "met" if value <= limit else "MISSED"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--packages", type=int, default=300)
    parser.add_argument("--repos", type=int, default=30)
    parser.add_argument("--depth", type=int, default=6)
    parser.add_argument("--fanout", type=int, default=3)
    parser.add_argument("--files", type=int, default=3, help="extra files per skill")
    parser.add_argument("--bytes", type=int, default=2048, help="bytes per extra file")
    parser.add_argument("--latency", type=float, default=0.05, help="seconds per request")
    parser.add_argument("--runs", type=int, default=5, help="runs per figure (median)")
    parser.add_argument("--check-packages", type=int, default=1000)
    parser.add_argument(
        "--scaling", default="30,300,3000", help="package counts for the scaling table ('' to skip)"
    )
    parser.add_argument("--output", type=Path, default=HERE / "results.md")
    args = parser.parse_args(argv)

    shape = Shape(args.packages, args.repos, args.depth, args.fanout, args.files, args.bytes)
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="metapkg-bench-") as scratch:
        work = Path(scratch)
        bench = Bench(work / "main", shape, args.latency, args.runs)
        rest = Bench(work / "rest", shape, args.latency, args.runs, path="rest")
        try:
            rows += headline(bench, rest, shape, args.latency)
        finally:
            bench.close()
            rest.close()
        check = check_catalog(work, args.check_packages, shape, args.runs)
        rows.append(
            Row(
                f"(f) check of {args.check_packages} packages",
                f"{check:.2f} s",
                "<= 2 s",
                verdict(check, 2.0),
            )
        )
        scaling = [int(n) for n in args.scaling.split(",") if n.strip()]
        scale_rows = scaling_table(work, scaling, shape, args.latency) if scaling else []
    report = render(rows, scale_rows, shape, args.latency, args.runs)
    print(report)
    write_keeping_notes(args.output, report)
    return 0


def headline(bench: Bench, rest: Bench, shape: Shape, latency: float) -> list[Row]:
    bound = shape.depth * ROUND_TRIPS_PER_LEVEL["web"] * latency
    rest_bound = shape.depth * ROUND_TRIPS_PER_LEVEL["rest"] * latency
    cold, requests, lock, cache = bench.cold()
    cold_cpu = median_cpu(bench.cold_cpu)
    rest_cold, rest_requests, _, _ = rest.cold()
    from_lock, lock_requests = bench.cold_from_lock(lock)
    warm, warm_requests, project = bench.warm(lock, cache)
    by_mode = {mode: bench.warm(lock, cache, mode)[0] for mode in ("clone", "hardlink")}
    warm_no_lock = bench.warm_without_lock(cache)
    noop = bench.noop(project, cache)
    check = bench.lock_check(project, cache)
    want = Requests(0, shape.repos, shape.repos)  # one advertisement, one archive per repo
    copying = copy_floor(project, bench.work / "floors", bench.runs)
    unpacking = extract_floor(bench.catalog.repos, bench.work / "floors", bench.runs)
    machine = bound + (copying.seconds or 0.0)
    return [
        Row("critical-path floor (depth x 2 round trips x latency)", f"{bound:.2f} s"),
        Row("disk floor: `cp -r` of the folders (c) provisioned", str(copying)),
        Row(f"unpack floor: `tar xzf` of the {shape.repos} archives", str(unpacking)),
        Row(
            "machine floor of (a): critical path + disk floor",
            f"{machine:.2f} s",
            f"(a) is {cold / machine:.1f} x this",
        ),
        Row(
            "(a) cold install, no lock",
            f"{cold:.2f} s",
            f"<= {bound * 1.5:.2f} s",
            verdict(cold, bound * 1.5),
        ),
        Row("(a) CPU time", str(cold_cpu), cold_cpu.floor(cold)),
        Row("(a) requests", str(requests), f"= {want}", "met" if requests == want else "MISSED"),
        Row(
            "(a) cold install, REST path (no web host)",
            f"{rest_cold:.2f} s",
            f"<= {1.5 * rest_bound:.2f} s (1.5 x {rest_bound:.2f} s floor)",
            verdict(rest_cold, 1.5 * rest_bound),
        ),
        Row("(a) requests, REST path", str(rest_requests)),
        Row("(b) cold install from an existing lock", f"{from_lock:.2f} s"),
        Row(
            "(b) requests",
            str(lock_requests),
            f"= {Requests(0, 0, shape.repos)}",
            "met" if lock_requests == Requests(0, 0, shape.repos) else "MISSED",
        ),
        Row(
            "(c) warm install into a fresh project (lock, full cache; copy)",
            f"{warm:.2f} s",
            "<= 1.0 s",
            verdict(warm, 1.0),
        ),
        Row("(c) CPU time", str(median_cpu(bench.warm_cpu["copy"]))),
        Row("(c) requests", str(warm_requests), "= 0", "met" if warm_requests == 0 else "MISSED"),
        *(Row(f"(c) warm install, --link-mode {m}", f"{t:.2f} s") for m, t in by_mode.items()),
        Row("(c') warm install, fresh project without a lock", f"{warm_no_lock:.2f} s"),
        Row(
            "(c) against the disk floor",
            f"{warm / copying.seconds:.1f} x" if copying.seconds else "n/a",
        ),
        Row("(d) no-op install", f"{noop * 1000:.0f} ms", "<= 50 ms", verdict(noop, 0.05)),
        Row("(e) metapkg lock --check", f"{check:.2f} s"),
    ]


def scaling_table(work: Path, counts: list[int], base: Shape, latency: float) -> list[list[str]]:
    rows = []
    for count in counts:
        shape = Shape(
            count,
            max(base.depth, count // 10),
            base.depth,
            base.fanout,
            base.files,
            base.file_bytes,
        )
        bench = Bench(work / f"scale-{count}", shape, latency, runs=1 if count > 1000 else 3)
        try:
            cold, _, lock, cache = bench.cold()
            rss = PEAK_RSS["install"]
            warm, _, project = bench.warm(lock, cache)
            noop = bench.noop(project, cache)
            copying = copy_floor(project, work / f"scale-{count}" / "floors", bench.runs)
        finally:
            bench.close()
        rows.append(
            [
                str(count),
                f"{cold:.2f} s",
                f"{warm:.2f} s",
                f"{copying.seconds:.2f} s" if copying.seconds is not None else "n/a",
                f"{noop * 1000:.0f} ms",
                f"{rss / 1024:.0f} MiB",
                median_cpu(bench.cold_cpu).cell(),
                median_cpu(bench.warm_cpu["copy"]).cell(),
            ]
        )
    return rows


def render(rows: list[Row], scale: list[list[str]], shape: Shape, latency: float, runs: int) -> str:
    lines = [
        "# metapkg benchmark results",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}.",
        f"Catalog: {shape}. Latency {latency * 1000:.0f} ms per request. Median of {runs} runs.",
        "Produced by `python -m bench` (bench/README.md explains each figure).",
        "",
        "| figure | value | target | met |",
        "|---|---|---|---|",
        *(f"| {r.figure} | {r.value} | {r.target} | {r.met} |" for r in rows),
    ]
    if scale:
        lines += [
            "",
            "## Scaling (same shape, repositories = packages / 10)",
            "",
            "| packages | cold install | warm install | disk floor (`cp -r`) | no-op install "
            "| peak RSS (cold) | CPU cold | CPU warm |",
            "|---|---|---|---|---|---|---|---|",
            *(f"| {' | '.join(r)} |" for r in scale),
        ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    raise SystemExit(main())
