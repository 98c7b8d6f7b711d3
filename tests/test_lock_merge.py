"""A metapkg.lock with git merge conflicts (two branches each added a package) installs
with every pin either branch had, unmoved, and a clean lock is written (pnpm and yarn
resolve such conflicts from both sides too)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import assert_fails_with, assert_ok, git
from ghfixtures import GH, make_gh, skill_origin

from metapkg.lock.merge import has_conflicts, merge, sides


@pytest.fixture
def gh(tmp_path: Path) -> Iterator[GH]:
    yield from make_gh(tmp_path)


def _conflicted_project(gh: GH) -> dict[str, str]:
    """main has alpha; branch one adds beta, branch two adds gamma; merging them
    conflicts in metapkg.lock. Returns the commits each skill was pinned at."""
    tools = gh.repo("acme/tools", {"c1": {"skills": {"alpha": {}, "beta": {}, "gamma": {}}}})
    gh.manifest(skills=[skill_origin("acme/tools", "main", "alpha")])
    assert_ok(gh.install())
    git(gh.project, "init", "-q", "-b", "main")
    (gh.project / ".gitignore").write_text(".metapkg/\n.agents/\n.claude/\n")
    git(gh.project, "add", "-A")
    git(gh.project, "commit", "-qm", "alpha")
    for branch, name in (("one", "beta"), ("two", "gamma")):
        git(gh.project, "checkout", "-q", "-b", branch, "main")
        gh.manifest(
            skills=[
                skill_origin("acme/tools", "main", "alpha"),
                skill_origin("acme/tools", "main", name),
            ]
        )
        assert_ok(gh.install())
        git(gh.project, "commit", "-qam", name)
    merged = git(gh.project, "merge", "one", check=False)
    assert merged.returncode != 0  # a conflict, as in real life
    # The person resolves metapkg.yaml by hand; the lock is left to metapkg.
    gh.manifest(skills=[skill_origin("acme/tools", "main", n) for n in ("alpha", "beta", "gamma")])
    assert has_conflicts(gh.lock_text)
    return tools


def test_a_conflicted_lock_keeps_every_pin_both_branches_had(gh: GH) -> None:
    tools = _conflicted_project(gh)
    moved = gh.commit("acme/tools", "c2", {"skills": {"alpha": {"version": "9.0.0"}}})
    gh.server.set_branch("acme", "tools", "main", "c2")  # `main` moved since: must not matter
    assert moved
    frozen = gh.install("--frozen")
    assert_fails_with(frozen, "lock")
    assert "merge conflicts" in frozen.err
    check = gh.run("lock", "--check")
    assert check.code == 1 and "merge conflicts" in check.err
    gh.server.clear_log()
    run = assert_ok(gh.install())
    assert "warning[lock-merge]" in run.err
    assert not has_conflicts(gh.lock_text)
    assert gh.pins() == {("acme/tools", "main"): tools["c1"]}  # not the moved main
    assert set(gh.packages()) == {"acme/alpha", "acme/beta", "acme/gamma"}
    assert gh.count(r"/commits/") == 0  # nothing resolved again
    assert_ok(gh.run("lock", "--check"))


def test_sides_and_a_pin_both_branches_moved() -> None:
    def lock(commit: str) -> str:
        return (
            "lock-version: 2\n\ntargets:\n  - claude\n\nrequires: []\n\noverrides: []\n\n"
            "pins:\n  - host: github.com\n    repo: acme/tools\n    ref: main\n"
            f"    commit: {commit}\n"
            "\npackages: []\n\nprovisioned:\n  paths: []\n  mcp-servers: {}\n"
        )

    ours, base, theirs = lock("a" * 40), lock("b" * 40), lock("c" * 40)
    head = ours.split("    commit:")[0]
    text = (
        f"{head}<<<<<<< HEAD\n    commit: {'a' * 40}\n||||||| base\n    commit: {'b' * 40}\n"
        f"=======\n    commit: {'c' * 40}\n>>>>>>> other\n"
        + ours.split("\n", 1)[1].split(f"{'a' * 40}\n", 1)[1]
    )
    assert sides(text) == (ours, base, theirs)
    # with the base: theirs moved it, ours did not -> theirs
    assert merge(text.replace("b" * 40, "a" * 40)).lock.pins[0].commit == "c" * 40
    # both moved it: ours, and the note says so
    both = merge(text)
    assert both.lock.pins[0].commit == "a" * 40 and "both branches moved it" in both.notes[0]


def test_a_pin_is_compared_with_the_base_pin_of_its_own_host() -> None:
    """The base pins acme/tools@main on two hosts; only the other branch moved the
    git.example.com one, so the merge takes it (not 'both moved it': the github.com pin
    of the same repo and ref is another pin)."""

    def lock(example_commit: str) -> str:
        pins = "".join(
            f"  - host: {host}\n    repo: acme/tools\n    ref: main\n    commit: {commit}\n"
            for host, commit in (("github.com", "d" * 40), ("git.example.com", example_commit))
        )
        return (
            "lock-version: 2\n\ntargets:\n  - claude\n\nrequires: []\n\noverrides: []\n\n"
            f"pins:\n{pins}\npackages: []\n\nprovisioned:\n  paths: []\n  mcp-servers: {{}}\n"
        )

    text = (
        f"<<<<<<< HEAD\n{lock('a' * 40)}||||||| base\n{lock('a' * 40)}"
        f"=======\n{lock('c' * 40)}>>>>>>> other\n"
    )
    merged = merge(text)
    commits = {pin.host: pin.commit for pin in merged.lock.pins}
    assert commits == {"git.example.com": "c" * 40, "github.com": "d" * 40}
    assert not any("both branches moved it" in note for note in merged.notes)
