"""``python -m bench.realdiff GITDIR OLD [NEW] [--skill NAME ...]``: a real update as a
reviewer sees it.

GITDIR is a local git copy of a public repository named ``<owner>+<repo>[.git]`` (as for
``bench.realrepos``). Its commits OLD and NEW (default HEAD) are served by the loopback
fixture GitHub as ``github.com/<owner>/<repo>``, branch ``main`` at OLD. A fresh project
adds the repository's skills (``--skill``, else ``--all``) and installs; ``main`` then
moves to NEW, ``metapkg update --pr-body`` runs, and this prints ``metapkg diff`` of the
two locks (``--format``, default text) and the pull-request body's length. Nothing of the
repository is kept. By hand only: the repositories are not ours to commit.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
from pathlib import Path

from bench.realrepos import REPO_ROOT, export_tree, git_dir
from fixture_server import FixtureGitHub


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.realdiff", description=__doc__)
    parser.add_argument("gitdir", type=Path)
    parser.add_argument("old")
    parser.add_argument("new", nargs="?", default="HEAD")
    parser.add_argument("--skill", action="append", default=[])
    parser.add_argument("--format", default="text", choices=("text", "markdown", "json"))
    parser.add_argument("--max-lines", default="400")
    args = parser.parse_args(argv)
    owner, _, repo = args.gitdir.name.removesuffix(".git").partition("+")
    work = Path(tempfile.mkdtemp(prefix="metapkg-realdiff."))
    try:
        trees = {}
        for label, revision in (("old", args.old), ("new", args.new)):
            trees[label] = work / "commits" / label
            trees[label].mkdir(parents=True)
            export_tree(git_dir(args.gitdir), trees[label], revision)
        with FixtureGitHub() as server:
            server.add_repo(owner, repo, trees, {"main": "old"}, {})
            _review(server, owner, repo, work, args)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


def _review(
    server: FixtureGitHub, owner: str, repo: str, work: Path, args: argparse.Namespace
) -> None:
    project = work / "project"
    project.mkdir()
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(work),
        "METAPKG_GITHUB_API_URL": server.api_url,
        "METAPKG_GITHUB_URL": server.web_url,
        "METAPKG_GITHUB_ARCHIVE_URL": server.download_url,
        "METAPKG_CACHE_DIR": str(work / "cache"),
    }
    metapkg = str(REPO_ROOT / ".venv" / "bin" / "metapkg")

    def run(*command: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [metapkg, "-C", str(project), *command], capture_output=True, text=True, env=env
        )

    run("init")
    chosen = [a for name in args.skill for a in ("--skill", name)] or ["--all"]
    added = run("add", f"{owner}/{repo}", *chosen)
    print(f"$ metapkg add {owner}/{repo} {' '.join(chosen)}  -> exit {added.returncode}")
    if added.returncode != 0:
        raise SystemExit(added.stderr)
    shutil.copy(project / "metapkg.lock", work / "before.lock")
    server.set_branch(owner, repo, "main", "new")
    body = work / "pr-body.md"
    updated = run("update", "--pr-body", str(body))
    print(f"$ metapkg update --pr-body pr-body.md  -> exit {updated.returncode}")
    shown = run(
        "diff", str(work / "before.lock"), str(project / "metapkg.lock"),
        "--format", args.format, "--max-lines", args.max_lines,
    )  # fmt: skip
    print(shown.stdout, end="")
    if body.exists():
        print(f"(pull-request body: {len(body.read_text())} characters)")


if __name__ == "__main__":
    raise SystemExit(main())
