"""Install-speed benchmark: `python -m bench` (see README, "Benchmarks").

Generates a synthetic catalog, serves it through the loopback fixture server with
injected latency, runs the real `metapkg` CLI in subprocesses, and prints one table of
medians; the same table goes to bench/results.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import tempfile
from dataclasses import dataclass
from pathlib import Path

from bench import repo_scale
from bench.catalog import Shape
from bench.floors import copy_floor, extract_floor
from bench.harness import PEAK_RSS, Bench, Requests, check_catalog, median_cpu
from bench.timing import write_keeping_notes

HERE = Path(__file__).resolve().parent
# Per level of a cold crawl: the ref advertisement and the archive by commit (web
# path); the REST path adds the 302 of the tarball endpoint.
ROUND_TRIPS_PER_LEVEL = {"web": 2, "rest": 3}


@dataclass
class Row:
    figure: str
    value: str
    target: str = ""
    met: str = ""


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
    parser.add_argument(
        "--repo-skills",
        type=int,
        default=864,
        help="skills of the one repository `add --all` adds (0 skips the repository-scale "
        "figures; bench/repo_scale.py)",
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
        repository = ""
        if args.repo_skills:
            found = repo_scale.figures(work / "repo-scale", args.runs, 0.03, args.repo_skills)
            repository = "\n" + repo_scale.render(found, 0.03, args.runs)
    report = render(rows, scale_rows, shape, args.latency, args.runs) + repository
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
            floors = work / f"scale-{count}" / "floors"
            copying = copy_floor(project, floors, bench.runs)
            unpacking = extract_floor(bench.catalog.repos, floors, bench.runs)
        finally:
            bench.close()
        rows.append(
            [
                str(count),
                f"{cold:.2f} s",
                f"{warm:.2f} s",
                f"{unpacking.seconds:.2f} s" if unpacking.seconds is not None else "n/a",
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
            "| packages | cold install | warm install | unpack floor (`tar xzf`) "
            "| disk floor (`cp -r`) | no-op install | peak RSS (cold) | CPU cold | CPU warm |",
            "|---|---|---|---|---|---|---|---|---|",
            *(f"| {' | '.join(r)} |" for r in scale),
        ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    raise SystemExit(main())
