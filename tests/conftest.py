"""Shared test helpers: run the CLI (in process or in a subprocess), build packages in tmp dirs."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import traceback
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "registry-fixtures"
CATALOGS = FIXTURES / "catalogs"


_CONFIG_DIR = Path(tempfile.mkdtemp(prefix="metapkg-test-config-"))
# `--global` installs into METAPKG_HOME: never the real home folder, whatever a test does.
_HOME_DIR = Path(tempfile.mkdtemp(prefix="metapkg-test-home-"))


@dataclass
class Run:
    code: int
    out: str
    err: str

    @property
    def json(self) -> Any:
        return json.loads(self.out)


# Set METAPKG_TEST_CLI=subprocess to run every CLI call in a subprocess (the long mode);
# by default only tests marked `real_cli` (the end-to-end modules) do, and the rest call
# `metapkg.cli.main.main` in this process, which skips ~0.2 s of interpreter start and
# imports per call and keeps the suite inside CI's time budget.
_FORCE_SUBPROCESS = os.environ.get("METAPKG_TEST_CLI") == "subprocess"
_in_process = threading.Lock()  # one in-process call at a time (cwd, env and stdio are global)
_real_cli_test = False  # set by the autouse fixture below for tests marked `real_cli`
# Environments that only a fresh process honours: a keyring backend chosen by a variable
# (keyring caches its backend), and failpoints that kill the process.
_SUBPROCESS_ONLY = ("METAPKG_FAILPOINT", "METAPKG_TEST_KEYRING")


def _cli_environment(env: dict[str, str] | None) -> dict[str, str]:
    full_env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("METAPKG_", "GITHUB_TOKEN", "GH_TOKEN"))
    }
    full_env["NO_COLOR"] = "1"
    # Never read or write the real user's metapkg config (the keyring token marker).
    full_env["METAPKG_CONFIG_DIR"] = str(_CONFIG_DIR)
    full_env["METAPKG_HOME"] = str(_HOME_DIR)
    full_env.update(env or {})
    return full_env


def run_cli(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None, timeout: float = 60
) -> Run:
    full_env = _cli_environment(env)
    in_process = not (
        _FORCE_SUBPROCESS or _real_cli_test or any(name in full_env for name in _SUBPROCESS_ONLY)
    )
    if in_process and _in_process.acquire(blocking=False):
        try:
            return _run_in_process(args, cwd or REPO, full_env)
        finally:
            _in_process.release()
    proc = subprocess.run(
        [sys.executable, "-m", "metapkg", *args],
        cwd=cwd or REPO,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return Run(proc.returncode, proc.stdout, proc.stderr)


def _run_in_process(args: tuple[str, ...], cwd: Path, env: dict[str, str]) -> Run:
    """`python -m metapkg ARGS` without a new interpreter: same argv, cwd, env and exit code."""
    from metapkg.cli.main import main

    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    out, err = io.StringIO(), io.StringIO()
    os.environ.clear()
    os.environ.update(env)
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(args))
            except SystemExit as exc:  # argparse: --help, --version, usage errors
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            except Exception:  # what the interpreter would print before exiting 1
                traceback.print_exc()
                code = 1
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
    return Run(code, out.getvalue(), err.getvalue())


@pytest.fixture(autouse=True)
def _real_cli_marker(request: pytest.FixtureRequest) -> Iterator[None]:
    global _real_cli_test
    _real_cli_test = request.node.get_closest_marker("real_cli") is not None
    yield
    _real_cli_test = False


# -- reading what the CLI said ---------------------------------------------------------------

_DIAGNOSTIC = re.compile(
    r"^(?P<path>.*?)(?::(?P<line>\d+))?: "
    r"(?P<severity>error|warning)\[(?P<rule>[^\]]+)\]: (?P<message>.*)$"
)


@dataclass(frozen=True)
class Diag:
    path: str
    line: int | None
    severity: str
    rule: str
    message: str


def diagnostics(text: str) -> list[Diag]:
    """Every `path[:line]: severity[rule]: message` line of a command's output."""
    found = []
    for line in text.splitlines():
        match = _DIAGNOSTIC.match(line)
        if match:
            number = int(match["line"]) if match["line"] else None
            found.append(
                Diag(match["path"], number, match["severity"], match["rule"], match["message"])
            )
    return found


def show(run: Run) -> str:
    return f"exit {run.code}\nstdout:\n{run.out}\nstderr:\n{run.err}"


def assert_ok(run: Run) -> Run:
    assert run.code == 0, show(run)
    return run


def assert_fails_with(run: Run, rule: str) -> list[Diag]:
    """Exit 1, no traceback, and at least one `error[rule]` line on stderr."""
    assert run.code == 1, show(run)
    assert "Traceback" not in run.err, show(run)
    found = [d for d in diagnostics(run.err) if d.severity == "error" and d.rule == rule]
    assert found, f"no error[{rule}] in:\n{run.err}"
    return found


@pytest.fixture
def cli(tmp_path: Path) -> Any:
    """run_cli with isolated cache and shared dirs under tmp_path."""
    base_env = {
        "METAPKG_CACHE_DIR": str(tmp_path / "cache"),
        "METAPKG_SHARED_DIR": str(tmp_path / "shared"),
    }

    def run(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> Run:
        return run_cli(*args, cwd=cwd, env={**base_env, **(env or {})})

    return run


# -- building packages in temp dirs --------------------------------------------------------


def _frontmatter(
    name: str, version: str, scope: str | None, deps: dict[str, list[str]], extra: str
) -> str:
    lines = ["---", f"name: {name}"]
    if scope:
        lines.append(f"scope: {scope}")
    lines += [f"description: The {name} package.", f"version: {version}"]
    if any(deps.values()):
        lines.append("dependencies:")
        for group, items in deps.items():
            if items:
                lines.append(f"  {group}:")
                lines += [f"    - {json.dumps(item)}" for item in items]
    if extra:
        lines.append(extra.rstrip("\n"))
    lines.append("---")
    return "\n".join(lines) + f"\n# {name}\n\nInstructions for {name}.\n"


def write_changelog(folder: Path, version: str) -> None:
    (folder / "CHANGELOG.md").write_text(
        f"# Changelog\n\n## {version} (2026-01-15)\n\n- Release.\n"
    )


def _package(
    root: Path, bucket: str, filename: str, name: str, version: str, scope: str | None,
    skills: list[str] | None, mcps: list[str] | None, extra: str,
) -> Path:  # fmt: skip
    folder = root / bucket / name
    folder.mkdir(parents=True, exist_ok=True)
    deps = {"skills": skills or [], "mcps": mcps or []}
    (folder / filename).write_text(_frontmatter(name, version, scope, deps, extra))
    write_changelog(folder, version)
    return folder


def make_skill(
    root: Path,
    name: str,
    version: str = "1.0.0",
    scope: str | None = "acme",
    skills: list[str] | None = None,
    mcps: list[str] | None = None,
    extra: str = "",
    files: dict[str, str] | None = None,
) -> Path:
    folder = _package(root, "skills", "SKILL.md", name, version, scope, skills, mcps, extra)
    for relative, content in (files or {}).items():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_text(content)
    return folder


def make_agent(
    root: Path,
    name: str,
    version: str = "1.0.0",
    scope: str | None = "acme",
    skills: list[str] | None = None,
    mcps: list[str] | None = None,
) -> Path:
    return _package(root, "agents", "AGENTS.md", name, version, scope, skills, mcps, "")


THREE_MD_PLANES = (
    '@plane z=0 label="{name}" kind=identity\n# {name}\n\nRoute each request to a skill.\n\n'
    '@plane z=1 label="search" kind=skill triggers="find, search" inputs="pattern:string" '
    'tool="rg {{pattern}}"\n# Skill: search\n\nFind code by regex.\n'
)


def make_agent_3md(
    root: Path,
    name: str,
    version: str = "1.0.0",
    scope: str | None = "acme",
    skills: list[str] | None = None,
    mcps: list[str] | None = None,
    extra: str = "",
    planes: str = THREE_MD_PLANES,
) -> Path:
    """An agent.3md package: agents/<name>/<name>.3md (+ CHANGELOG.md); returns the folder."""
    folder = root / "agents" / name
    folder.mkdir(parents=True, exist_ok=True)
    lines = ["---", "3md: 1.0", "axis: skill", f"agent: {name}", f"version: {version}"]
    lines += [f"scope: {scope}"] if scope else []
    lines += [f"description: The {name} agent.", "tools: rg"]
    lines += [f"dependencies.skills: {', '.join(skills)}"] if skills else []
    lines += [f"dependencies.mcps: {', '.join(mcps)}"] if mcps else []
    lines += [extra.rstrip("\n")] if extra else []
    text = "\n".join([*lines, "---", planes.format(name=name)])
    (folder / f"{name}.3md").write_text(text)
    write_changelog(folder, version)
    return folder


def make_mcp(root: Path, fqn: str, args: list[str] | None = None, **fields: Any) -> Path:
    folder = root / "mcps"
    folder.mkdir(parents=True, exist_ok=True)
    config = {
        "_meta": {"name": fqn},
        "type": "stdio",
        "command": "npx",
        "args": args if args is not None else ["-y", f"{fqn.split('/')[-1]}@1"],
        **fields,
    }
    path = folder / (fqn.replace("/", "_") + ".json")
    path.write_text(json.dumps(config, indent=2) + "\n")
    return path


def file_origin(path: Path) -> str:
    return f"file:{path.as_posix()}"


def write_manifest(
    project: Path,
    agents: list[str] | None = None,
    skills: list[str] | None = None,
    mcps: list[str] | None = None,
    extra: str = "",
) -> Path:
    project.mkdir(parents=True, exist_ok=True)
    lines = ["dependencies:"]
    for group, items in (("agents", agents), ("skills", skills), ("mcps", mcps)):
        lines.append(f"  {group}:" + ("" if items else " []"))
        lines += [
            f"    - {json.dumps(item) if isinstance(item, str) else item}" for item in items or []
        ]
    text = "\n".join(lines) + "\n" + extra
    (project / "metapkg.yaml").write_text(text)
    return project / "metapkg.yaml"


# -- git ----------------------------------------------------------------------------------

# A fixed identity and no user or system config (signing, hooks, default branch names).
_GIT_ENV = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


def git(repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run ``git ARGS`` in ``repo`` as a test user; output captured as text."""
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=repo,
        env={**os.environ, **_GIT_ENV},
        capture_output=True,
        text=True,
        check=check,
    )


# -- worker processes (metapkg/workers.py) ---------------------------------------------------

needs_two_cores = pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="no worker on one core")


@pytest.fixture
def no_workers() -> Iterator[None]:
    """No worker pool before the test (an in-process install of another test in this
    xdist worker may have left one) and none after it."""
    from metapkg import workers

    workers.shutdown()
    yield
    workers.shutdown()


def kill_a_worker() -> None:
    """SIGKILL one worker process of the running pool (started if need be), as the
    kernel's out-of-memory killer would."""
    import signal

    from metapkg import workers

    pool = workers.pool()
    assert pool is not None
    os.kill(pool.submit(os.getpid).result(), signal.SIGKILL)
