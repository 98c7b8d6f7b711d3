"""Version-range benchmark: `python -m bench.ranges` (see bench/README.md, "Ranges").

10 repositories of 10 skills, each repository released 20 times (tags v1.0.0..v1.9.0,
v2.0.0..v2.9.0; every skill of a repository carries its release's version). Skill r<r>-s<k>
depends on r<r+1>-s<k> with ``^1`` in 1.x releases and ``^2`` in 2.x
ones. The project wants every skill of repository 0 at ``*`` and, directly, repository
1's s0 at ``^1``: so s0 of repository 0 cannot take its newest release (2.9.0 wants ^2)
and resolvelib backtracks it to 1.9.0. Served by the loopback fixture server at 50 ms per
request; prints wall times and request counts for a cold install and a cold-cache
install from the lock.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.catalog import write_skill
from fixture_server import FixtureGitHub

REPOS, SKILLS = 10, 10
RELEASES = [f"1.{i}.0" for i in range(10)] + [f"2.{i}.0" for i in range(10)]


def origin(repo: int, skill: int, spec: str) -> str:
    return f"https://github.com/bench/r{repo}/tree/main/skills/r{repo}-s{skill}#{spec}"


def build(root: Path, server: FixtureGitHub) -> None:
    for repo in range(REPOS):
        commits: dict[str, Path] = {}
        for release in RELEASES:
            folder = root / f"r{repo}" / release
            major = release.split(".")[0]
            for skill in range(SKILLS):
                deps = [origin(repo + 1, skill, f"^{major}")] if repo + 1 < REPOS else []
                name = f"r{repo}-s{skill}"
                write_skill(folder / "skills" / name, name, release, deps)
            commits[release] = folder
        tags = {f"v{release}": release for release in RELEASES}
        server.add_repo("bench", f"r{repo}", commits, {"main": RELEASES[-1]}, tags)


def run(project: Path, env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "metapkg", "-q", "install"], cwd=project, env=env, text=True,
        capture_output=True,
    )  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(done.stderr)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="metapkg-bench-ranges-") as tmp:
        work = Path(tmp)
        server = FixtureGitHub(latency=args.latency)
        build(work / "catalog", server)
        server.start()
        try:
            _measure(work, server, args.runs, args.latency)
        finally:
            server.stop()


def _measure(work: Path, server: FixtureGitHub, runs: int, latency: float) -> None:
    wanted = [origin(0, skill, "*") for skill in range(SKILLS)] + [origin(1, 0, "^1")]
    manifest = "dependencies:\n  skills:\n" + "".join(f'    - "{o}"\n' for o in wanted)
    base = {k: v for k, v in os.environ.items() if not k.startswith("METAPKG_")}
    base |= {"METAPKG_GITHUB_API_URL": server.api_url, "METAPKG_SHARED_DIR": str(work / "s")}
    rows = []
    lock = None
    for label, with_lock in (("cold install, no lock", False), ("cold cache, with the lock", True)):
        times, listings, archives, refs = [], 0, 0, 0
        for attempt in range(runs):
            project = work / f"{label[:4]}-{with_lock}-{attempt}"
            project.mkdir()
            (project / "metapkg.yaml").write_text(manifest)
            if with_lock and lock is not None:
                (project / "metapkg.lock").write_text(lock)
            server.clear_log()
            env = base | {"METAPKG_CACHE_DIR": str(project / "cache")}
            times.append(run(project, env))
            listings = server.count(r"/tags\?", host="api")
            refs = server.count(r"/commits/", host="api")
            archives = server.count(r"legacy\.tar\.gz", host="download")
            lock = (project / "metapkg.lock").read_text()
        rows.append((label, statistics.median(times), listings, refs, archives))
    from ruamel.yaml import YAML

    packages = YAML(typ="safe").load(lock or "")["packages"]
    chosen = sorted({f"{p['fqn']} {p['version']}" for p in packages if p["fqn"].endswith("-s0")})
    lines = [
        "# Version ranges: resolution benchmark",
        "",
        f"{REPOS} repositories x {SKILLS} skills, {len(RELEASES)} tags each, "
        f"{latency * 1000:.0f} ms per request, median of {runs}. Produced by "
        f"`python -m bench.ranges`.",
        "",
        "| figure | wall time | tag listings | ref lookups | archives |",
        "|---|---|---|---|---|",
        *(f"| {a} | {b:.2f} s | {c} | {d} | {e} |" for a, b, c, d, e in rows),
        "",
        f"Chosen along the backtracked chain: {', '.join(chosen)}.",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    (Path(__file__).resolve().parent / "results-ranges.md").write_text(text)


if __name__ == "__main__":
    main()
