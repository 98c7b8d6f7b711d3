"""Small jobs at the interpreter's floor: ``python -m bench.small`` (see bench/README.md).

Times, in subprocesses, the jobs people do most (20 local skills, 20 skills from one
GitHub repository, the no-op install, ``--version`` and ``--help``), each printed beside
the interpreter's own start-up (``python -c pass`` and ``python -S -c pass``) measured in
the same run, and, when they can be installed, beside the ``skills`` CLI and APM doing
the same job (bench/peers.py). Writes the table to bench/results-small.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bench import jobs, peers
from bench.catalog import Shape, generate, manifest
from bench.timing import (
    Timing,
    clean_environment,
    measure,
    metapkg_command,
    run_once,
    write_keeping_notes,
)
from fixture_server import FixtureGitHub

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Row:
    figure: str
    timing: Timing
    target: float | None = None  # seconds
    note: str = ""


# The modules a fresh install of local skills imports (python -X importtime).
INSTALL_MODULES = (
    "metapkg.cli.main, metapkg.cli.install, metapkg.actions.install, metapkg.actions.resolution,"
    " metapkg.provision.apply, metapkg.actions.summary, metapkg.cli.summary"
)
IMPORT_INSTALL = f"import {INSTALL_MODULES}"
START_CLIENT = "from metapkg.fetch.http import Http; Http(None, 1).close()"
DATACLASS_TIME = f"""
import dataclasses, time
spent, count, made = [0.0], [0], dataclasses._process_class
def timed(cls, *args, **kwargs):
    started = time.perf_counter()
    try:
        return made(cls, *args, **kwargs)
    finally:
        spent[0] += time.perf_counter() - started
        count[0] += 1
dataclasses._process_class = timed
import {INSTALL_MODULES}
print(spent[0] * 1000, count[0])
"""


class Small:
    def __init__(self, work: Path, runs: int, latency: float) -> None:
        self.work = work
        self.runs = runs
        self.latency = latency
        self.metapkg = metapkg_command()
        self.projects = jobs.Projects(work / "projects")
        # METAPKG_SHARED_DIR is left unset, as users leave it (nothing is written there
        # without MCP servers); the config folder is a fresh one (no keyring marker).
        self.base = clean_environment(METAPKG_CONFIG_DIR=str(work / "config"))

    def time(self, args: list[str], prepare: Callable[[], Path], env: dict[str, str]) -> Timing:
        return measure([*self.metapkg, "-q", *args], self.runs, env, prepare)

    def floor(self) -> tuple[Timing, Timing]:
        here = lambda: self.work  # noqa: E731
        plain = measure([sys.executable, "-c", "pass"], self.runs, self.base, here)
        no_site = measure([sys.executable, "-S", "-c", "pass"], self.runs, self.base, here)
        return plain, no_site

    def startup(self) -> list[Row]:
        here = lambda: self.work  # noqa: E731
        version = measure([*self.metapkg, "--version"], self.runs, self.base, here)
        helped = measure([*self.metapkg, "--help"], self.runs, self.base, here)
        return [Row("metapkg --version", version, 0.025), Row("metapkg --help", helped, 0.025)]

    def parts(self) -> list[Row]:
        """What the floor of an install is made of, each part alone: importing the code
        of an install (doing nothing), and starting the HTTP client."""
        here = lambda: self.work  # noqa: E731
        code = measure([sys.executable, "-c", IMPORT_INSTALL], self.runs, self.base, here)
        client = measure([sys.executable, "-c", START_CLIENT], self.runs, self.base, here)
        return [
            Row("part: importing the install path, no work", code),
            Row("part: starting the HTTP client (httpx, TLS trust store), no request", client),
        ]

    def dataclass_share(self) -> tuple[float, int]:
        """(ms, classes): creating the dataclasses of the install path (median)."""
        found = []
        for _ in range(self.runs):
            out = subprocess.run(
                [sys.executable, "-c", DATACLASS_TIME], env=self.base, capture_output=True,
                text=True, check=True,
            ).stdout.split()  # fmt: skip
            found.append((float(out[0]), int(out[1])))
        return statistics.median(ms for ms, _ in found), found[0][1]

    def local(self) -> list[Row]:
        template = jobs.write_skills(self.work / "local-template")
        (template / "metapkg.yaml").write_text(jobs.local_manifest())
        env = {**self.base, "METAPKG_CACHE_DIR": str(self.work / "cache-local")}
        fresh = self.time(["install"], lambda: self.projects.fresh(template), env)
        done = self.projects.fresh(template)
        noop = self.time(["install"], lambda: done, env)
        return [
            Row("fresh install, 20 local file: skills", fresh, 0.080),
            Row("no-op install, 20 local skills", noop, 0.030),
        ]

    def github(self, path: str) -> tuple[list[Row], str]:
        """Cold install of 20 skills from one repository, then the no-op; and the requests
        of the last cold run, by host."""
        source = jobs.write_skills(self.work / f"github-source-{path}")
        server = jobs.serve_repo(source, self.latency)
        cache = self.work / f"cache-github-{path}"
        env = {**self.base, **_github_env(server, path), "METAPKG_CACHE_DIR": str(cache)}
        text = {"metapkg.yaml": jobs.github_manifest()}

        def cold() -> Path:
            shutil.rmtree(cache, ignore_errors=True)
            server.clear_log()
            return self.projects.fresh(files=text)

        try:
            timing = self.time(["install"], cold, env)
            requests = _requests(server)
            done = self.projects.fresh(files=text)
            noop = self.time(["install"], lambda: done, env)
        finally:
            server.stop()
        trips = {"web": 2, "rest": 3}[path]
        limit = trips * self.latency + 0.070
        label = "web path" if path == "web" else "REST path"
        latency = f"{self.latency * 1000:.0f} ms"
        rows = [Row(f"cold install, 20 skills from one GitHub repo ({label}, {latency})",
                    timing, limit, f"{trips} round trips + 70 ms; {requests}")]  # fmt: skip
        if path == "web":
            rows.append(Row("no-op install, the GitHub project", noop, 0.030))
        return rows, requests

    def big_noop(self, packages: int) -> Row:
        """The no-op of a project of ``packages`` GitHub skills (set up at no latency)."""
        shape = Shape(packages, max(6, packages // 10), 6, 3, 3, 2048)
        catalog = generate(self.work / f"catalog-{packages}", shape)
        server = FixtureGitHub(latency=0.0)
        for repo, folder in catalog.repos.items():
            owner, name = repo.split("/")
            server.add_repo(owner, name, {"c1": folder}, branches={"main": "c1"})
        server.start()
        try:
            cache = str(self.work / f"cache-{packages}")
            env = {**self.base, **_github_env(server, "web"), "METAPKG_CACHE_DIR": cache}
            project = self.projects.fresh(files={"metapkg.yaml": manifest(catalog.roots)})
            run_once([*self.metapkg, "-q", "install"], project, env)
            noop = self.time(["install"], lambda: project, env)
        finally:
            server.stop()
        return Row(f"no-op install, {packages} packages", noop, 0.040)


def _github_env(server: FixtureGitHub, path: str) -> dict[str, str]:
    env = {"METAPKG_GITHUB_API_URL": server.api_url}
    if path == "web":  # as github.com: the web host, archives from codeload
        env["METAPKG_GITHUB_URL"] = server.web_url
        env["METAPKG_GITHUB_ARCHIVE_URL"] = server.download_url
    return env


def _requests(server: FixtureGitHub) -> str:
    rest = server.count(r"", host="api")
    refs = server.count(r"/info/refs", host="web")
    web_archives = server.count(r"/archive/", host="web")
    archives = server.count(r"", host="download")
    parts = [f"{rest} REST", f"{refs} ref adv.", f"{archives} archives"]
    if web_archives:
        parts.insert(2, f"{web_archives} archive links")
    return ", ".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.small", description=__doc__)
    parser.add_argument("--runs", type=int, default=11, help="runs per figure (median)")
    parser.add_argument("--latency", type=float, default=0.03, help="seconds per request")
    parser.add_argument("--big", type=int, default=300, help="packages for the big no-op")
    parser.add_argument("--no-peers", action="store_true", help="skip the skills CLI and APM")
    parser.add_argument("--output", type=Path, default=HERE / "results-small.md")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="metapkg-bench-small-") as scratch:
        work = Path(scratch)
        small = Small(work, args.runs, args.latency)
        floor = small.floor()
        rows = small.startup() + small.parts() + small.local()
        dataclasses_ms, classes = small.dataclass_share()
        for path in ("web", "rest"):
            rows += small.github(path)[0]
        rows.append(small.big_noop(args.big))
        compared = {} if args.no_peers else compare_peers(work / "peers", args)
        floor_again = small.floor()
    report = render(floor, floor_again, rows, compared, args, (dataclasses_ms, classes))
    print(report)
    write_keeping_notes(args.output, report)
    return 0


def compare_peers(work: Path, args: argparse.Namespace) -> dict[str, object]:
    """{peer: its figures, or why it was skipped}; versions under "versions"."""
    work.mkdir(parents=True)
    skills = peers.install_skills_cli(work)
    apm = peers.install_apm(work)
    found: dict[str, object] = {}
    versions = {}
    for name, installed in (("skills", skills), ("apm", apm)):
        if isinstance(installed, str):
            found[name] = installed
            print(f"peer {name} skipped: {installed}", file=sys.stderr)
        else:
            versions[name] = installed.version
    timed = peers.run_in_namespace(
        work,
        args.runs,
        args.latency,
        skills if not isinstance(skills, str) else None,
        apm if not isinstance(apm, str) else None,
    )
    if isinstance(timed, str):
        print(f"peers skipped: {timed}", file=sys.stderr)
        for name in versions:
            found[name] = timed
    else:
        found.update(timed)
    found["versions"] = versions
    return found


def render(
    floor: tuple[Timing, Timing],
    floor_again: tuple[Timing, Timing],
    rows: list[Row],
    compared: dict[str, object],
    args: argparse.Namespace,
    dataclasses: tuple[float, int],
) -> str:
    plain, no_site = floor
    lines = [
        "# Small jobs: metapkg against the interpreter's floor",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}. Median of {args.runs} runs; wall clock and "
        "CPU time (user + system of the process and its children).",
        'Produced by `python -m bench.small` (bench/README.md, "Small jobs").',
        "",
        f"Floor in this run: `python -c pass` {plain.ms()} (CPU {plain.cpu_ms()}), "
        f"`python -S -c pass` {no_site.ms()} (CPU {no_site.cpu_ms()}); again at the end: "
        f"{floor_again[0].ms()} and {floor_again[1].ms()}. Of the install path's imports, "
        f"creating its {dataclasses[1]} dataclasses takes {dataclasses[0]:.0f} ms "
        "(in-process, median).",
        "",
        "| figure | wall | CPU | x floor | target | met |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        target = f"<= {row.target * 1000:.0f} ms" if row.target is not None else ""
        if row.note:
            target += f" ({row.note})"
        met = "" if row.target is None else ("met" if row.timing.wall <= row.target else "MISSED")
        ratio = row.timing.wall / plain.wall
        lines.append(
            f"| {row.figure} | {row.timing.ms()} | {row.timing.cpu_ms()} | {ratio:.1f} | "
            f"{target} | {met} |"
        )
    if compared:
        lines += ["", *peer_table(rows, compared)]
    return "\n".join(lines) + "\n"


def peer_table(rows: list[Row], compared: dict[str, object]) -> list[str]:
    ours = {r.figure: r.timing for r in rows}
    mine = {
        "local-fresh": ours["fresh install, 20 local file: skills"],
        "local-again": ours["no-op install, 20 local skills"],
    }
    github = next(t for f, t in ours.items() if f.startswith("cold install") and "web" in f)
    mine["github-cold"] = github
    labels = {
        "local-fresh": "20 local skills, fresh",
        "local-again": "20 local skills, run again (metapkg: no-op)",
        "github-cold": "20 skills from one GitHub repo, cold",
    }
    versions = compared.get("versions", {})
    assert isinstance(versions, dict)
    lines = [
        "## Peers (same job folders, same run; peers inside `unshare -n`, temporary HOME)",
        "",
        "| job | metapkg | skills CLI | metapkg faster | APM | metapkg faster |",
        "|---|---|---|---|---|---|",
    ]
    for key, label in labels.items():
        cells = [label, f"{mine[key].ms()} (CPU {mine[key].cpu_ms()})"]
        for peer in ("skills", "apm"):
            figures = compared.get(peer)
            if not isinstance(figures, dict) or key not in figures:
                cells += ["-", "-"]
                continue
            wall, cpu = figures[key]
            shown = f"{wall * 1000:.0f} ms (CPU {cpu * 1000:.0f} ms)"
            cells += [shown, f"{wall / mine[key].wall:.1f}x"]
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    for peer, name in (("skills", "`skills` CLI"), ("apm", "APM (`apm-cli`)")):
        figures = compared.get(peer)
        if isinstance(figures, str):
            lines.append(f"- {name}: skipped: {figures}")
        elif peer in versions:
            lines.append(f"- {name} {versions[peer]}")
    skills = compared.get("skills")
    if isinstance(skills, dict) and "github-requests" in skills:
        count = skills["github-requests"][0]
        lines.append(f"- `skills` CLI requests per cold GitHub install: {count:.0f}")
    lines.append("- Targets (issue 13): metapkg >= 10x APM fresh, >= 20x APM on the run again.")
    return lines


if __name__ == "__main__":
    raise SystemExit(main())
