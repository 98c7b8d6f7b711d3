"""Repository scale: `metapkg add OWNER/REPO --all` of one repository holding many skills.

    .venv/bin/python -m bench.repo_scale                 # the three figures (~1-2 minutes)
    .venv/bin/python -m bench.repo_scale --runs 1        # a quick look

Real repositories of skills hold hundreds of them in one tree (issue 29: 864 in one
community collection, 400 in a 70 MiB one). The repository is generated at run time
(``flat_repository``: plain Agent Skills, ``name`` and ``description`` only, as people
publish them), served by the loopback fixture server with ``--latency`` seconds before
every answer, and added to a fresh project (``targets: [agents, claude]``) with the real
CLI in a subprocess:

* cold: an empty download cache;
* warm: the cache of a cold run (the archive is not downloaded again; the default branch
  and its commit are still asked, as a fresh ``add`` must).

The padded repository reaches its size with incompressible files inside the skills
(``assets/``), so every byte is downloaded, extracted and provisioned. Not run by CI:
figures are printed, never asserted (``python -m bench`` prints them too).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
from dataclasses import dataclass
from pathlib import Path

from bench.floors import copy_floor, extract_floor
from bench.timing import clean_environment, metapkg_command, run_once
from fixture_server import FixtureGitHub

OWNER = "bench"
_MIB = 1024 * 1024


def flat_repository(root: Path, count: int, total_bytes: int = 0) -> Path:
    """``root`` with ``skills/skill-NNNN`` for ``count`` plain skills, each with a
    reference file; with ``total_bytes``, incompressible ``assets/`` files spread over
    the skills bring the tree to about that size. Returns ``root``."""
    pad = max(0, total_bytes // count) if total_bytes else 0
    for index in range(count):
        name = f"skill-{index:04d}"
        folder = root / "skills" / name
        (folder / "references").mkdir(parents=True)
        (folder / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: Generated skill {index} of {count}; "
            f"use it when the benchmark asks for {name}.\n---\n# {name}\n\nDo the thing.\n"
        )
        (folder / "references" / "guide.md").write_text(f"# {name} guide\n" + "Step.\n" * 40)
        if pad:
            (folder / "assets").mkdir()
            (folder / "assets" / "blob.bin").write_bytes(os.urandom(pad))
    return root


@dataclass(frozen=True)
class Figure:
    title: str
    measured: tuple[float, float]  # wall, CPU seconds (metapkg's process, wait4: not its workers)
    target: float
    floor: str = ""

    @property
    def seconds(self) -> float:
        return self.measured[0]

    @property
    def met(self) -> str:
        return "met" if self.seconds <= self.target else "MISSED"


class RepoBench:
    """One generated repository on a fixture server, and fresh projects to add it to."""

    def __init__(self, work: Path, name: str, count: int, total_bytes: int, latency: float):
        self.work = work
        self.name = name
        self.count = count
        source = flat_repository(work / f"src-{name}", count, total_bytes)
        self.server = FixtureGitHub(latency=latency)
        self.server.add_repo(OWNER, name, {"c1": source}, branches={"main": "c1"})
        self.server.start()
        self.counter = 0
        self.source = source
        self.last = work  # the project of the last run

    def close(self) -> None:
        self.server.stop()

    def env(self, cache: Path) -> dict[str, str]:
        return clean_environment(
            METAPKG_GITHUB_API_URL=self.server.api_url,
            METAPKG_GITHUB_URL=self.server.web_url,
            METAPKG_GITHUB_ARCHIVE_URL=self.server.download_url,
            METAPKG_CACHE_DIR=str(cache),
            METAPKG_SHARED_DIR=str(self.work / "shared"),
        )

    def project(self) -> Path:
        self.counter += 1
        folder = self.work / f"project-{self.name}-{self.counter}"
        folder.mkdir()
        (folder / "metapkg.yaml").write_text("targets: [agents, claude]\n")
        return folder

    def add_all(self, cache: Path) -> tuple[float, float]:
        """One `add --all` into a fresh project, the file system synced first (not timed),
        as bench/harness.py does: the previous run's dirty pages are not this one's cost."""
        command = [*metapkg_command(), "-q", "add", f"{OWNER}/{self.name}", "--all"]
        project = self.last = self.project()
        os.sync()
        wall, cpu = run_once(command, project, self.env(cache))
        installed = len(list((project / ".claude" / "skills").iterdir()))
        if installed != self.count:
            raise SystemExit(f"add --all installed {installed} of {self.count} skills")
        return wall, cpu

    def cold(self, runs: int) -> tuple[tuple[float, float], Path]:
        caches = [self.work / f"cache-{self.name}-{i}" for i in range(runs)]
        return _medians([self.add_all(cache) for cache in caches]), caches[-1]

    def warm(self, runs: int, cache: Path) -> tuple[float, float]:
        return _medians([self.add_all(cache) for _ in range(runs)])


def _medians(runs: list[tuple[float, float]]) -> tuple[float, float]:
    """(wall, CPU) seconds: the median of each over ``runs``."""
    return statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs)


def figures(
    work: Path, runs: int, latency: float, count: int = 864, padded: int = 400, mib: int = 70
) -> list[Figure]:
    """The three figures of issue 29: `add --all` of ``count`` skills cold and warm, and
    of ``padded`` skills from a ``mib`` MiB repository warm; each with the machine's
    floors measured in the same run (bench/floors.py)."""
    result = []
    work.mkdir(parents=True, exist_ok=True)
    many = RepoBench(work, "many", count, 0, latency)
    try:
        cold, cache = many.cold(runs)
        unpacking = extract_floor({f"{OWNER}/many": many.source}, work / "floors", runs)
        warm = many.warm(runs, cache)
        copying = copy_floor(many.last, work / "floors", runs)
    finally:
        many.close()
    result.append(Figure(f"add --all, {count} skills, cold", cold, 10.0, f"unpack {unpacking}"))
    result.append(Figure(f"add --all, {count} skills, warm", warm, 3.0, f"disk {copying}"))
    big = RepoBench(work, "big", padded, mib * _MIB, latency)
    try:
        _, cache = big.cold(1)
        warm = big.warm(runs, cache)
        copying = copy_floor(big.last, work / "floors", runs)
    finally:
        big.close()
    title = f"add --all, {padded} skills of a {mib} MiB repository, warm"
    result.append(Figure(title, warm, 5.0, f"disk {copying}"))
    return result


def render(found: list[Figure], latency: float, runs: int) -> str:
    lines = [
        f"Repository scale (`add OWNER/REPO --all`, {latency * 1000:.0f} ms per request, "
        f"median of {runs}; floors: `tar xzf` of the repository's archive, `cp -r` of the "
        f"folders provisioned):",
        "",
        "| figure | value | CPU | target | met | machine floor |",
        "|---|---|---|---|---|---|",
        *(
            f"| {f.title} | {f.seconds:.2f} s | {f.measured[1]:.2f} s | <= {f.target:.0f} s "
            f"| {f.met} | {f.floor} |"
            for f in found
        ),
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.repo_scale", description=__doc__)
    parser.add_argument("--skills", type=int, default=864)
    parser.add_argument("--padded-skills", type=int, default=400)
    parser.add_argument("--mib", type=int, default=70, help="size of the padded repository")
    parser.add_argument("--latency", type=float, default=0.03, help="seconds per request")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="metapkg-bench-scale-") as scratch:
        found = figures(
            Path(scratch), args.runs, args.latency, args.skills, args.padded_skills, args.mib
        )
    print(render(found, args.latency, args.runs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
