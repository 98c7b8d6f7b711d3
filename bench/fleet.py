"""A fleet of CI runners installing from an OCI mirror: ``python -m bench.fleet``.

Starts the loopback fixture GitHub and a real registry (Debian's docker-registry),
generates a 300-package lock (bench/catalog.py), mirrors it (``metapkg mirror``), then
runs ``--runners`` (20) ``metapkg install --frozen`` at once, each in its own project
with an empty download cache and ``METAPKG_MIRROR`` set. Prints the requests each host
received while the fleet ran (the target is 0 to GitHub), each runner's wall time, and
whether ``metapkg verify`` passes in every runner. The table also goes to
bench/results-fleet.md.
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
import threading
import time
from pathlib import Path

from bench.catalog import Shape, generate, manifest
from bench.timing import clean_environment
from fixture_server import FixtureGitHub
from fixture_server.oci import RunningRegistry, start_registry, unavailable

HERE = Path(__file__).resolve().parent


def _metapkg(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "metapkg", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def _must(done: subprocess.CompletedProcess[str], what: str) -> None:
    if done.returncode != 0:
        sys.exit(f"{what} failed (exit {done.returncode}):\n{done.stderr[-3000:]}")


def _locked_packages(lock: Path) -> int:
    from ruamel.yaml import YAML

    return len(YAML(typ="safe").load(lock.read_text())["packages"])


def _load() -> str:
    try:
        return ", load average {:.1f} / {:.1f} / {:.1f}".format(*os.getloadavg())
    except OSError:
        return ""


def _runner(
    index: int, project: Path, env: dict[str, str], results: list[tuple[float, float, int, str]]
) -> None:
    """One runner's `install --frozen`: (wall, CPU seconds of its process, exit, stderr)."""
    command = [sys.executable, "-m", "metapkg", "-q", "install", "--frozen"]
    with tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        child = subprocess.Popen(
            command, cwd=project, env=env, stdout=subprocess.DEVNULL, stderr=err
        )
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - started
        err.seek(0)
        text = err.read().decode(errors="replace")
    code = os.waitstatus_to_exitcode(status)
    results[index] = (wall, usage.ru_utime + usage.ru_stime, code, text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.fleet", description=__doc__)
    parser.add_argument("--packages", type=int, default=300)
    parser.add_argument("--runners", type=int, default=20)
    parser.add_argument("--latency", type=float, default=0.02, help="GitHub's, seconds")
    parser.add_argument("--keep", action="store_true", help="keep the work folder")
    args = parser.parse_args(argv)
    why = unavailable()
    if why is not None:
        sys.exit(why)
    work = Path(tempfile.mkdtemp(prefix="metapkg-fleet-"))
    try:
        lines = run(work, args)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    text = "\n".join(lines) + "\n"
    print(text, end="")
    (HERE / "results-fleet.md").write_text(text)
    return 0


def run(work: Path, args: argparse.Namespace) -> list[str]:
    shape = Shape(packages=args.packages, repos=max(6, args.packages // 10))
    catalog = generate(work / "catalog", shape)
    server = FixtureGitHub(latency=args.latency)
    for repo, folder in catalog.repos.items():
        owner, name = repo.split("/")
        server.add_repo(owner, name, {"c1": folder}, branches={"main": "c1"})
    server.start()
    try:
        with start_registry(work / "registry") as registry:
            return _fleet(work, args, catalog.roots, server, registry)
    finally:
        server.stop()


def _fleet(
    work: Path,
    args: argparse.Namespace,
    roots: list[str],
    server: FixtureGitHub,
    registry: RunningRegistry,
) -> list[str]:
    base = clean_environment(
        METAPKG_GITHUB_API_URL=server.api_url,
        METAPKG_GITHUB_URL=server.web_url,
        METAPKG_GITHUB_ARCHIVE_URL=server.download_url,
        METAPKG_SHARED_DIR=str(work / "shared"),
        METAPKG_CONFIG_DIR=str(work / "config"),
    )
    seed = work / "seed"
    seed.mkdir()
    (seed / "metapkg.yaml").write_text(manifest(roots))
    seeding = {**base, "METAPKG_CACHE_DIR": str(work / "seed-cache")}
    _must(_metapkg("-q", "install", cwd=seed, env=seeding), "the seed install")
    mirror = f"oci://{registry.host}/fleet"
    started = time.perf_counter()
    _must(_metapkg("-q", "mirror", mirror, cwd=seed, env=seeding), "metapkg mirror")
    mirrored_in = time.perf_counter() - started
    locked = _locked_packages(seed / "metapkg.lock")
    runners = []
    for index in range(args.runners):
        project = work / f"runner-{index:02d}"
        project.mkdir()
        shutil.copy(seed / "metapkg.yaml", project)
        shutil.copy(seed / "metapkg.lock", project)
        env = {**base, "METAPKG_CACHE_DIR": str(project / ".cache"), "METAPKG_MIRROR": mirror}
        runners.append((project, env))
    server.clear_log()
    registry_before = registry.requests()
    results: list[tuple[float, float, int, str]] = [(0.0, 0.0, 0, "")] * len(runners)
    begun = time.perf_counter()
    threads = [
        threading.Thread(target=_runner, args=(index, project, env, results))
        for index, (project, env) in enumerate(runners)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    times = [wall for wall, _, _, _ in results]
    cpu = [seconds for _, seconds, _, _ in results]
    failures = [
        f"{project.name}: exit {code}: {err[-500:]}"
        for (project, _), (_, _, code, err) in zip(runners, results, strict=True)
        if code != 0 or "warning" in err
    ]
    fleet_wall = time.perf_counter() - begun
    github = {host: server.count(r"", host=host) for host in ("api", "web", "download")}
    registry_requests = registry.requests() - registry_before
    verified = sum(
        _metapkg("-q", "verify", cwd=project, env=env).returncode == 0 for project, env in runners
    )
    lines = [
        "# Fleet benchmark: installs from an OCI mirror",
        "",
        f"`python -m bench.fleet` on {platform.system()} {platform.machine()}, "
        f"{os.cpu_count()} cores, Python {platform.python_version()}; "
        f"{locked} locked packages, {args.runners} runners at once, GitHub latency "
        f"{args.latency * 1000:.0f} ms, registry: docker-registry on loopback{_load()}.",
        "",
        "| figure | value |",
        "|---|---|",
        f"| `metapkg mirror` (push {locked} packages) | {mirrored_in:.2f} s |",
        f"| requests to GitHub's API / web / archive hosts during the fleet | "
        f"{github['api']} / {github['web']} / {github['download']} |",
        f"| requests to the registry during the fleet | {registry_requests} "
        f"({registry_requests / max(1, args.runners):.0f} per runner) |",
        f"| fleet wall time ({args.runners} concurrent `install --frozen`) | {fleet_wall:.2f} s |",
        f"| time per runner: min / median / max | {min(times):.2f} / "
        f"{statistics.median(times):.2f} / {max(times):.2f} s |",
        f"| CPU per runner (its process, user + system): median | {statistics.median(cpu):.2f} s |",
        f"| `metapkg verify` passes | {verified} of {args.runners} |",
        "",
        "| runner | wall time | CPU |",
        "|---|---|---|",
        *(
            f"| {project.name} | {wall:.2f} s | {seconds:.2f} s |"
            for (project, _), wall, seconds in zip(runners, times, cpu, strict=True)
        ),
    ]
    if failures:
        lines += ["", "Failures:", *failures]
    return lines


if __name__ == "__main__":
    raise SystemExit(main())
