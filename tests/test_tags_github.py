"""Which tags count as a package's versions, end to end through the CLI and the loopback
fake GitHub: a tag of the package's own form that names no version never hides the
package's version tags (``tag-ignored``), and a version tagged twice at different commits
is taken from one tag, said with ``tag-duplicate`` (fetch/tags.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import assert_ok
from ghfixtures import GH, make_gh, skill_origin


@pytest.fixture
def gh(tmp_path: Path) -> Iterator[GH]:
    yield from make_gh(tmp_path)


def ranged(repo: str, name: str, spec: str) -> str:
    return f"{skill_origin(repo, 'main', name)}#{spec}"


def _warnings(text: str, rule: str) -> list[str]:
    return [line for line in text.splitlines() if f"warning[{rule}]" in line]


@pytest.mark.parametrize("junk", ["x@junk", "x@latest", "x/vnext", "x@1.9.0@"])
def test_a_non_version_tag_of_the_package_hides_none_of_its_version_tags(gh: GH, junk: str) -> None:
    """Before: one such tag made the package's own form count, and it named no version,
    so `v1.2.0` was ignored and the range locked main's untagged head."""
    commits = {
        "c0": {"skills": {"x": {"version": "1.0.0"}}},
        "c1": {"skills": {"x": {"version": "1.2.0"}}},
        "c2": {"skills": {"x": {"version": "1.3.0"}}},  # main's head: no tag
    }
    tags = {"v1.0.0": "c0", "v1.2.0": "c1", junk: "c1"}
    gh.repo("acme/x", commits, branches={"main": "c2"}, tags=tags)
    gh.manifest(skills=[ranged("acme/x", "x", "^1")])
    run = assert_ok(gh.install())
    locked = gh.packages()["acme/x"]
    assert locked["version"] == "1.2.0"
    assert locked["origin"].endswith("/tree/v1.2.0/skills/x")
    [said] = _warnings(run.err, "tag-ignored")
    assert junk in said and "acme/x (skills/x)" in said


def test_non_version_tags_beside_monorepo_tags_are_one_grouped_warning(gh: GH) -> None:
    commits = {
        "c0": {"skills": {"x": {"version": "1.1.0"}}},
        "c1": {"skills": {"x": {"version": "1.2.0"}}},
    }
    tags = {"x@1.1.0": "c0", "x/v1.2.0": "c1", "v9.0.0": "c1"}
    tags |= {f"x@nightly-{i}": "c1" for i in range(5)} | {"x/vnext": "c1"}
    gh.repo("acme/cat", commits, tags=tags)
    gh.manifest(skills=[ranged("acme/cat", "x", "^1")])
    run = assert_ok(gh.install())
    assert gh.packages()["acme/x"]["origin"].endswith("/tree/x/v1.2.0/skills/x")
    [said] = _warnings(run.err, "tag-ignored")
    assert "6 tags of acme/cat (skills/x)" in said and "and 3 more" in said


def test_v_and_bare_tags_of_one_version_at_different_commits_are_said(gh: GH) -> None:
    """Before: `1.0.0` sorted first and was taken silently; now the form the package's
    other tags use counts (here `v`), and a `tag-duplicate` warning names both."""
    commits = {
        "c0": {"skills": {"x": {"version": "0.9.0"}}},
        "c1": {"skills": {"x": {"version": "1.0.0", "files": {"which.md": "the v tag"}}}},
        "c2": {"skills": {"x": {"version": "1.0.0", "files": {"which.md": "the bare tag"}}}},
    }
    shas = gh.repo("acme/x", commits, tags={"v0.9.0": "c0", "v1.0.0": "c1", "1.0.0": "c2"})
    gh.manifest(skills=[ranged("acme/x", "x", "^1")])
    run = assert_ok(gh.install())
    assert gh.packages()["acme/x"]["origin"].endswith("/tree/v1.0.0/skills/x")
    assert gh.pins()[("acme/x", "v1.0.0")] == shas["c1"]
    [said] = _warnings(run.err, "tag-duplicate")
    assert f"v1.0.0 ({shas['c1'][:12]}) over 1.0.0 ({shas['c2'][:12]})" in said


def test_the_form_most_tags_use_wins_a_duplicate() -> None:
    from metapkg.fetch.tags import read_tags

    listed = {"1.0.0": "a", "1.1.0": "b", "v1.1.0": "c", "1.2.0": "d", "x@junk": "e"}
    read = read_tags(listed, "x")
    assert [name for _, name in read.tags] == ["1.2.0", "1.1.0", "1.0.0"]
    [dup] = read.duplicates
    assert (dup.kept, dup.other) == ("1.1.0", "v1.1.0")
    assert read.ignored == ("x@junk",)
    # A tie goes to the v form; the same commit under both names is no duplicate.
    tie = read_tags({"v1.0.0": "a", "1.0.0": "b", "v2.0.0": "c", "2.0.0": "c"}, "x")
    assert [name for _, name in tie.tags] == ["v2.0.0", "v1.0.0"]
    assert [(d.kept, d.other) for d in tie.duplicates] == [("v1.0.0", "1.0.0")]


def _mistagged(gh: GH, count: int, good: int | None = None) -> None:
    """acme/x tagged v1.0.0 .. v1.<count-1>.0, each at its own commit whose package says
    0.0.1 (a version field never bumped), but for tag v1.<good>.0, which agrees."""
    commits = {
        f"c{i}": {"skills": {"x": {"version": f"1.{i}.0" if i == good else "0.0.1"}}}
        for i in range(count)
    }
    tags = {f"v1.{i}.0": f"c{i}" for i in range(count)}
    gh.repo("acme/x", commits, tags=tags)
    gh.manifest(skills=[ranged("acme/x", "x", "^1")])


def test_many_tags_that_disagree_cost_a_bounded_number_of_downloads(gh: GH) -> None:
    """Before: one archive per tag (2,000 tags: 2,001 requests, 150 s) and one warning
    line per tag; now at most TAG_TRIES tags, then a `tag-limit` error saying which."""
    from metapkg.resolve.tagtries import TAG_TRIES

    _mistagged(gh, 200)
    run = gh.install()
    assert run.code == 1
    assert gh.count(r"/tarball/") <= TAG_TRIES + 2
    assert len(run.err.splitlines()) <= TAG_TRIES + 5  # a "Fetched" line per download
    [said] = [line for line in run.err.splitlines() if "error[tag-limit]" in line]
    assert f"tried the newest {TAG_TRIES} tags in ^1 (v1.199.0 down to v1.180.0)" in said
    assert "v1.199.0 says 0.0.1" in said and "narrow the range" in said
    assert not (gh.project / "metapkg.lock").exists()


def test_disagreeing_tags_before_a_good_one_are_one_grouped_warning(gh: GH) -> None:
    _mistagged(gh, 12, good=4)
    run = assert_ok(gh.install())
    assert gh.packages()["acme/x"]["version"] == "1.4.0"
    [said] = _warnings(run.err, "tag-version")
    assert "7 tags of skill acme/x name another version" in said
    assert "v1.11.0 says 0.0.1, v1.10.0 says 0.0.1, v1.9.0 says 0.0.1 and 4 more" in said
    assert gh.count(r"/tarball/") == 8


def test_a_few_tags_that_all_disagree_are_an_error_saying_so(gh: GH) -> None:
    """Before: `missing: dependency not found (no tagged version in ^1 loads)`, and the
    reason (each tag's version) was never printed."""
    _mistagged(gh, 3)
    run = gh.install()
    assert run.code == 1
    [said] = [line for line in run.err.splitlines() if "error[tag-version]" in line]
    assert "none of the 3 tags in ^1 (v1.2.0 down to v1.0.0) is usable" in said
    assert "v1.2.0 says 0.0.1, v1.1.0 says 0.0.1, v1.0.0 says 0.0.1" in said
