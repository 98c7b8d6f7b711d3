"""``python -m bench.realrepos GITDIR...``: metapkg on repositories people publish.

Each GITDIR is a local git repository (bare or not) named ``<owner>+<repo>[.git]``, e.g. a
copy brought with ``git clone --mirror``. Its HEAD is exported into a temporary fixture
root and served by the loopback fixture server as ``github.com/<owner>/<repo>`` (branch
``main``), then, in a fresh project and an empty cache, this runs
``metapkg add <owner>/<repo> --all`` and prints, per repository: the SKILL.md files in
the tree, the skills metapkg installed, the exit code, the time, and the first lines of
what it reported. Nothing of the repositories is kept: the folder is removed at the end
(``--keep`` keeps it and prints where).

This is the proof the real-repositories issue asks for, run by hand: the repositories
are not ours to commit, so CI never runs it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Outcome:
    name: str
    in_tree: int
    installed: int
    exit: int
    seconds: float
    report: str


def export(gitdir: Path, root: Path) -> str:
    """Export ``gitdir``'s HEAD as a fixture repository under ``root``; its owner/repo."""
    stem = gitdir.name.removesuffix(".git")
    owner, _, repo = stem.partition("+")
    if not repo:
        raise SystemExit(f"{gitdir}: name it <owner>+<repo>[.git]")
    target = root / owner / repo
    tree = target / "head"
    tree.mkdir(parents=True)
    export_tree(git_dir(gitdir), tree)
    (target / "repo.yaml").write_text("commits:\n  head: head\nbranches:\n  main: head\n")
    return f"{owner}/{repo}"


def export_tree(git_dir: Path, tree: Path, revision: str = "HEAD") -> None:
    """``revision``'s files into ``tree``, links and exec bits kept. A fetched snapshot may
    lack its largest files; those are left out (``git archive`` would refuse the tree)."""
    git = ["git", f"--git-dir={git_dir}"]
    listing = subprocess.run(
        [*git, "ls-tree", "-r", "-z", revision], check=True, capture_output=True
    ).stdout
    entries = []
    for record in listing.split(b"\0"):
        if record:
            meta, _, path = record.partition(b"\t")
            mode, kind, sha = meta.split()
            if kind == b"blob":
                entries.append((mode, sha.decode(), os.fsdecode(path)))
    batch = subprocess.run(
        [*git, "cat-file", "--batch"],
        input=b"".join(sha.encode() + b"\n" for _, sha, _ in entries),
        check=True,
        capture_output=True,
    ).stdout
    offset = 0
    for mode, _sha, path in entries:
        end = batch.index(b"\n", offset)
        header = batch[offset:end].split()
        offset = end + 1
        if header[-1] == b"missing":
            continue
        size = int(header[2])
        data = batch[offset : offset + size]
        offset += size + 1
        target = tree / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if mode == b"120000":
            target.symlink_to(os.fsdecode(data))
        else:
            target.write_bytes(data)
            if mode == b"100755":
                target.chmod(0o755)


def git_dir(path: Path) -> Path:
    return path / ".git" if (path / ".git").exists() else path


def count_skills(tree: Path) -> int:
    return sum(1 for path in tree.rglob("SKILL.md") if ".git" not in path.parts)


def run_one(name: str, tree: Path, work: Path, env: dict[str, str]) -> Outcome:
    project = work / "projects" / name.replace("/", "+")
    project.mkdir(parents=True)
    env = {**env, "METAPKG_CACHE_DIR": str(work / "caches" / name.replace("/", "+"))}
    metapkg = str(REPO_ROOT / ".venv" / "bin" / "metapkg")
    subprocess.run([metapkg, "-C", str(project), "init"], capture_output=True, env=env, check=True)
    start = time.perf_counter()
    done = subprocess.run(
        [metapkg, "-C", str(project), "add", name, "--all"],
        capture_output=True,
        text=True,
        env=env,
        timeout=1800,
    )
    seconds = time.perf_counter() - start
    installed = len(list((project / ".agents" / "skills").glob("*/SKILL.md")))
    report = (done.stdout + done.stderr).strip()
    return Outcome(name, count_skills(tree), installed, done.returncode, seconds, report)


def start_server(
    root: Path, latency: float, work: Path
) -> tuple[subprocess.Popen[str], dict[str, str]]:
    server = subprocess.Popen(
        [sys.executable, "-m", "fixture_server", "--root", str(root), "--latency", str(latency)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO_ROOT,
    )
    assert server.stdout is not None
    env = dict(os.environ)
    for _ in range(3):
        key, _, value = server.stdout.readline().strip().partition("=")
        env[key] = value
    env.pop("GITHUB_TOKEN", None)
    env.pop("GH_TOKEN", None)
    return server, env


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.realrepos", description=__doc__)
    parser.add_argument("gitdirs", nargs="+", type=Path)
    parser.add_argument("--latency", type=float, default=0.03, help="seconds per request")
    parser.add_argument("--lines", type=int, default=12, help="report lines shown per repo")
    parser.add_argument("--keep", action="store_true", help="keep the work folder")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="metapkg-realrepos."))
    root = work / "github"
    names = [(export(gitdir, root), gitdir) for gitdir in args.gitdirs]
    server, env = start_server(root, args.latency, work)
    try:
        outcomes = [run_one(name, root / name / "head", work, env) for name, _ in names]
    finally:
        server.terminate()
        server.wait(timeout=30)
    for outcome in outcomes:
        print(f"\n## {outcome.name}: exit {outcome.exit}, {outcome.seconds:.2f} s")
        lines = outcome.report.splitlines()
        for line in lines[: args.lines]:
            print(f"    {line[:240]}")
        if len(lines) > args.lines:
            print(f"    ... ({len(lines) - args.lines} more lines)")
    print("\n| repository | SKILL.md in tree | installed | exit | seconds |")
    print("|---|---:|---:|---:|---:|")
    for o in outcomes:
        print(f"| {o.name} | {o.in_tree} | {o.installed} | {o.exit} | {o.seconds:.2f} |")
    if args.keep:
        print(f"\nkept: {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
