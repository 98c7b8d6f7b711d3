"""The project, the cache and the environment in states users put them in: unreadable
files, read-only folders, a file where a folder belongs, settings that make no sense.

Each ends in one clear ``error[rule]`` that names what to fix (exit 1, or 2 for a bad
setting), never a traceback, and leaves nothing behind: a failed first install does not
even create ``.metapkg/``.

Mode bits do not bind root, so as root the permission cases run the CLI through
``setpriv`` without the capabilities that override them (as reliability/faults does);
for everyone else they run in this process.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import (
    Run,
    _cli_environment,
    assert_fails_with,
    assert_ok,
    file_origin,
    make_skill,
    run_cli,
    write_manifest,
)
from ghfixtures import GH, make_gh, skill_origin

from metapkg.fetch import cachelock
from metapkg.fetch.cache import Cache

_OVERRIDES = "-dac_override,-dac_read_search,-fowner,-linux_immutable"


def run_bound(*args: str, cwd: Path, env: dict[str, str]) -> Run:
    """The CLI with file permissions binding it, whoever runs the tests."""
    if os.geteuid() != 0:
        return run_cli(*args, cwd=cwd, env=env)
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("root without setpriv: mode bits do not bind metapkg")
    done = subprocess.run(
        [setpriv, f"--bounding-set={_OVERRIDES}", "--", sys.executable, "-m", "metapkg", *args],
        cwd=cwd,
        env=_cli_environment(env),
        capture_output=True,
        text=True,
        timeout=60,
    )
    return Run(done.returncode, done.stdout, done.stderr)


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Path]:
    """A project needing one file: skill; every mode this test changes is put back."""
    skill = make_skill(tmp_path / "cat", "tool", files={"reference.md": "notes\n"})
    folder = tmp_path / "proj"
    write_manifest(folder, skills=[file_origin(skill)])
    yield folder
    for path in [tmp_path, *tmp_path.rglob("*")]:
        if not path.is_symlink():
            os.chmod(path, 0o755 if path.is_dir() else 0o644)


def _env(tmp_path: Path) -> dict[str, str]:
    return {
        "METAPKG_CACHE_DIR": str(tmp_path / "cache"),
        "METAPKG_SHARED_DIR": str(tmp_path / "shared"),
    }


def _untouched(project: Path) -> None:
    assert sorted(p.name for p in project.iterdir()) == ["metapkg.yaml"]


# -- the project -------------------------------------------------------------------------


def test_an_unreadable_manifest_is_named_and_leaves_no_state_folder(
    project: Path, tmp_path: Path
) -> None:
    os.chmod(project / "metapkg.yaml", 0)
    run = run_bound("install", cwd=project, env=_env(tmp_path))
    [found] = assert_fails_with(run, "manifest")
    assert found.path == "metapkg.yaml" and "Permission denied" in found.message
    _untouched(project)


def test_a_read_only_project_names_the_state_folder(project: Path, tmp_path: Path) -> None:
    os.chmod(project, 0o555)
    run = run_bound("install", cwd=project, env=_env(tmp_path))
    [found] = assert_fails_with(run, "state")
    assert found.path == ".metapkg" and "writable" in found.message
    _untouched(project)


def test_an_unreadable_file_of_a_file_package_is_named(project: Path, tmp_path: Path) -> None:
    unreadable = tmp_path / "cat/skills/tool/reference.md"
    os.chmod(unreadable, 0)
    run = run_bound("install", cwd=project, env=_env(tmp_path))
    [found] = assert_fails_with(run, "fetch")
    assert found.path == str(unreadable) and "Permission denied" in found.message
    _untouched(project)


def test_a_failed_first_install_creates_no_state_folder(cli, project: Path) -> None:
    (project / "metapkg.yaml").write_text("dependencies:\n  skills:\n    - file:../nowhere\n")
    assert_fails_with(cli("install", cwd=project), "missing")
    _untouched(project)


def test_a_failed_install_keeps_the_state_of_an_earlier_one(cli, project: Path) -> None:
    assert_ok(cli("install", cwd=project))
    before = sorted(p.name for p in (project / ".metapkg").iterdir())
    (project / "metapkg.yaml").write_text("dependencies:\n  skills:\n    - file:../nowhere\n")
    assert_fails_with(cli("install", cwd=project), "missing")
    assert sorted(p.name for p in (project / ".metapkg").iterdir()) == before


# -- the download cache ------------------------------------------------------------------

_REMOTE = skill_origin("acme/tools", "main", "alpha")


@pytest.mark.parametrize("shape", ["a file", "under a file", "read-only parent"])
def test_a_cache_that_cannot_be_used_is_named(tmp_path: Path, shape: str) -> None:
    """--offline: the cache is the first thing a GitHub origin needs (no network here)."""
    write_manifest(tmp_path / "proj", skills=[_REMOTE])
    blocker = tmp_path / "blocker"
    cache = {"a file": blocker, "under a file": blocker / "cache"}.get(shape)
    if cache is None:
        blocker.mkdir(mode=0o555)
        cache = blocker / "cache"
    else:
        blocker.write_text("not a folder\n")
    env = {**_env(tmp_path), "METAPKG_CACHE_DIR": str(cache)}
    runner = run_bound if shape == "read-only parent" else run_cli
    run = runner("install", "--offline", cwd=tmp_path / "proj", env=env)
    [found] = assert_fails_with(run, "cache")
    assert found.path == str(cache) and "METAPKG_CACHE_DIR" in found.message
    _untouched(tmp_path / "proj")
    os.chmod(blocker, 0o755)


@pytest.fixture
def gh(tmp_path: Path) -> Iterator[GH]:
    yield from make_gh(tmp_path)


def test_a_read_only_warm_cache_still_installs(gh: GH) -> None:
    """A cache someone else filled (a CI image): every folder and file read-only, its
    lock file too. Nothing needs writing, so nothing is written: with no lock, `main` is
    looked up again, and the cache already knows where it points."""
    gh.repo("acme/tools", {"c1": {"skills": {"alpha": {}}}})
    gh.manifest(skills=[_REMOTE])
    assert_ok(gh.install())
    gh.forget_install()
    (gh.project / "metapkg.lock").unlink()
    paths = [gh.cache, *gh.cache.rglob("*")]
    for path in reversed(paths):
        os.chmod(path, 0o555 if path.is_dir() else 0o444)
    try:
        run = run_bound("install", cwd=gh.project, env=gh.env)
    finally:
        for path in paths:
            os.chmod(path, 0o755 if path.is_dir() else 0o644)
    assert_ok(run)
    assert (gh.project / ".claude/skills/alpha/SKILL.md").is_file()


def test_stale_temporaries_in_the_cache_are_swept(tmp_path: Path) -> None:
    """What a killed install left in cache/tmp goes at the next use of the cache; what
    a running one is writing (recent) stays."""
    scratch = tmp_path / "cache" / "tmp"
    (scratch / "tree-old" / "skills").mkdir(parents=True)
    (scratch / "old.tar.gz").write_bytes(b"partial")
    (scratch / "new.tar.gz").write_bytes(b"in progress")
    two_days_ago = time.time() - 2 * 24 * 3600
    for name in ("tree-old", "old.tar.gz"):
        os.utime(scratch / name, (two_days_ago, two_days_ago))
    with cachelock.session():
        assert not Cache(tmp_path / "cache").has_tree("acme/tools", "0" * 40)
    assert sorted(p.name for p in scratch.iterdir()) == ["new.tar.gz"]


def test_the_sweep_changes_nothing_through_a_link_in_a_stale_temporary(tmp_path: Path) -> None:
    """A stale temporary folder that cannot be emptied as it is (read-only) holds a link
    to a user's file: the sweep's retry once ran ``chmod(link, 0o700)``, which follows the
    link and made the user's private file executable and group-less. The folder is made
    writable instead, the link removed, and the file left exactly as it was."""
    private = tmp_path / "home" / "private.txt"
    private.parent.mkdir()
    private.write_text("mine\n")
    os.chmod(private, 0o600)
    stale = tmp_path / "cache" / "tmp" / "tree-old"
    stale.mkdir(parents=True)
    os.symlink(private, stale / "escape")
    os.chmod(stale, 0o555)
    two_days_ago = time.time() - 2 * 24 * 3600
    os.utime(stale, (two_days_ago, two_days_ago))
    project = tmp_path / "proj"
    write_manifest(project, skills=[_REMOTE])
    try:
        run = run_bound("install", "--offline", cwd=project, env=_env(tmp_path))
    finally:
        if stale.exists():
            os.chmod(stale, 0o755)
    assert_fails_with(run, "offline")  # the sweep ran at the cache's first use
    assert oct(private.stat().st_mode & 0o7777) == oct(0o600)
    assert private.read_text() == "mine\n"
    assert not os.path.lexists(stale)


# -- settings ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "setting",
    [
        "METAPKG_HTTP_TIMEOUT=-1",
        "METAPKG_HTTP_TIMEOUT=nan",
        "METAPKG_HTTP_ATTEMPTS=0",
        "METAPKG_LARGE_REPO_BYTES=lots",
        "METAPKG_CACHE_LOCK_TIMEOUT=inf",
    ],
)
def test_a_setting_metapkg_cannot_use_is_a_usage_error(cli, project: Path, setting: str) -> None:
    name, value = setting.split("=")
    run = cli("install", cwd=project, env={name: value})
    assert run.code == 2 and "Traceback" not in run.err, run.err
    assert run.err.startswith(f"environment: error[usage]: {name}={value!r} is not a "), run.err
    _untouched(project)


def test_a_full_disk_while_staging_says_so(cli, project: Path) -> None:
    """Once "could not stage the install (None)": now the reason and what to do."""
    run = cli("install", cwd=project, env={"METAPKG_FAILPOINT": "enospc:0"})
    [found] = assert_fails_with(run, "provision")
    assert "(No space left on device)" in found.message and "make room" in found.message
    assert "None" not in run.err
    _untouched(project)


def test_what_a_killed_write_left_in_the_project_goes_at_the_next_install(
    cli, project: Path
) -> None:
    """A SIGKILL between write_atomic's write and rename leaves its temporary; the next
    install removes it, even an up-to-date one, unless its writer is still running."""
    assert_ok(cli("install", cwd=project))
    dead, alive = 999_999_999, os.getpid()  # no pid is that high; this test's own is live
    left = [
        project / f".metapkg.yaml.{dead}.1.tmp",
        project / f".metapkg.lock.{dead}.2.tmp",
        project / ".metapkg" / f".state.json.{dead}.3.tmp",
    ]
    kept = [project / f".metapkg.yaml.{alive}.4.tmp", project / f".notes.md.{dead}.5.tmp"]
    for path in left + kept:
        path.write_text("half\n")
    run = assert_ok(cli("install", cwd=project))
    assert "Already up to date" in run.err
    assert [p for p in left if p.exists()] == []
    assert all(p.exists() for p in kept)
