"""metapkg/workers.py: a job shared between this process and a worker process is done
exactly once, whoever does it, and a worker's error arrives here as itself."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import assert_ok, kill_a_worker, needs_two_cores
from ghfixtures import GH, make_gh, skill_origin

from metapkg import workers
from metapkg.provision.apply import unplace
from metapkg.provision.linkmode import place_packages

pytestmark = [needs_two_cores, pytest.mark.usefixtures("no_workers")]


def _packages(root: Path, count: int) -> list[tuple[Path, Path, str, bool]]:
    jobs = []
    for n in range(count):
        source = root / "cache" / f"p{n}"
        (source / "refs").mkdir(parents=True)
        (source / "SKILL.md").write_text(f"skill {n}\n")
        (source / "refs" / "run.sh").write_text("#!/bin/sh\n")
        os.chmod(source / "refs" / "run.sh", 0o755)
        jobs.append((source, root / "stage" / f"p{n}", "copy", False))
    (root / "stage").mkdir()
    return jobs


def test_shared_jobs_are_each_done_once_here_or_in_the_worker(tmp_path: Path) -> None:
    jobs = _packages(tmp_path, 120)
    workers.share(jobs, place_packages, batch=4, undo=unplace)
    assert workers.running()  # a worker took part
    for n in range(120):
        target = tmp_path / "stage" / f"p{n}"
        assert (target / "SKILL.md").read_text() == f"skill {n}\n"
        assert os.stat(target / "refs" / "run.sh").st_mode & 0o111


def test_a_workers_error_is_raised_here(tmp_path: Path) -> None:
    jobs = _packages(tmp_path, 40)
    (jobs[-1][1]).mkdir()  # the last batch (the worker's first) meets an existing folder
    with pytest.raises(FileExistsError) as caught:
        workers.share(jobs, place_packages, batch=4, undo=unplace)
    # raised in the worker, not by a batch done here: it carries the worker's traceback
    assert type(caught.value.__cause__).__name__ == "_RemoteTraceback"


def test_a_batch_a_dead_worker_left_half_done_is_cleaned_and_done_here(tmp_path: Path) -> None:
    kill_a_worker()
    jobs = _packages(tmp_path, 40)
    half = jobs[-1][1]  # the worker's first batch, as if it had begun writing it
    half.mkdir()
    (half / "SKILL.md").write_text("half")
    workers.share(jobs, place_packages, batch=4, undo=unplace)
    for n, (_, target, _, _) in enumerate(jobs):
        assert (target / "SKILL.md").read_text() == f"skill {n}\n"


def test_with_no_worker_everything_is_done_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("METAPKG_FAILPOINT", "enospc:999999999")  # byte counts: in-process
    jobs = _packages(tmp_path, 30)
    workers.share(jobs, place_packages, batch=4, undo=unplace)
    assert not workers.running()
    assert all((target / "SKILL.md").is_file() for _, target, _, _ in jobs)


def test_a_pool_that_cannot_take_a_job_means_doing_it_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Starting a worker can fail at submit (out of memory for the fork): that is the
    # pool's failure, not the job's, so the job is done here and the pool is stopped.
    import errno

    pool = workers.pool()
    assert pool is not None

    def cannot(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOMEM, "Cannot allocate memory")

    monkeypatch.setattr(pool, "submit", cannot)
    jobs = _packages(tmp_path, 8)
    assert isinstance(workers.run(place_packages, jobs), workers.Undone)
    assert not workers.running()
    workers.share(jobs, place_packages, batch=2, undo=unplace)  # a new pool, or here
    assert all((target / "SKILL.md").is_file() for _, target, _, _ in jobs)


def test_a_jobs_own_runtime_error_is_raised_here_and_the_pool_kept() -> None:
    # Only a dead worker or a stopped pool means "do it here": a job's RuntimeError (a
    # RecursionError, say) is the job's, and stopping the pool would cancel others' jobs.
    import asyncio

    with pytest.raises(RuntimeError, match="no running event loop"):
        workers.run(asyncio.get_running_loop)
    assert workers.running()


def test_metapkg_errors_cross_the_process_boundary_whole() -> None:
    # A worker's error arrives pickled: every MetapkgError keeps its diagnostics, its
    # class and its attributes, whatever its __init__ takes.
    import pickle

    from metapkg.diagnostics import error
    from metapkg.fetch.archive import ArchiveError
    from metapkg.fetch.source import NotFound
    from metapkg.origins import parse_origin as parse

    found = [error("archive", "src", "unsafe archive entry 'x'")]
    again = pickle.loads(pickle.dumps(ArchiveError(found)))
    assert type(again) is ArchiveError and again.diagnostics == tuple(found)
    assert str(again) == str(ArchiveError(found))
    missing = NotFound(parse("https://github.com/acme/tools/tree/main/skills/a"), "no such ref")
    back = pickle.loads(pickle.dumps(missing))
    assert type(back) is NotFound and back.why == "no such ref" and back.origin == missing.origin


@pytest.fixture
def gh(tmp_path: Path) -> Iterator[GH]:
    yield from make_gh(tmp_path)


@pytest.mark.parametrize("mode", ["copy", "clone", "hardlink"])
def test_an_install_sharing_its_copies_provisions_what_one_process_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, gh: GH, mode: str
) -> None:
    # Through a real install (provision/apply.py _place), from one download cache: with
    # the worker taking batches from the back, each link mode places the same tree, links
    # and lock as an install that copies everything in this process.
    from test_install_e2e import snapshot

    from metapkg.provision import apply

    remote: list[bool] = []
    real_run = workers.run

    def counted(job: Any, *args: object) -> object:
        done = real_run(job, *args)
        remote.append(not isinstance(done, workers.Undone))
        return done

    monkeypatch.setattr(workers, "run", counted)
    skills = {f"s{n:02}": {} for n in range(40)}  # 80 packages: 5 batches of 16
    gh.repo("acme/tools", {"c1": {"skills": skills}})
    gh.manifest(skills=[skill_origin("acme/tools", "main", name) for name in skills])
    trees = []
    for shared in (False, True):
        monkeypatch.setattr(apply, "STARTS_WORKER_FROM", 1 if shared else 10**9)
        project = tmp_path / f"shared-{shared}"
        project.mkdir()
        (project / "metapkg.yaml").write_bytes((gh.project / "metapkg.yaml").read_bytes())
        assert_ok(gh.run("install", "--link-mode", mode, cwd=project))
        trees.append(snapshot(project))
        if mode == "hardlink":  # linked to the cache, not copied
            assert os.stat(project / ".claude/skills/s39/SKILL.md").st_nlink > 1
    assert trees[0] == trees[1] and len(trees[0]) > 160
    assert any(remote), "no batch was placed by the worker"
