"""Version ranges end to end, through the CLI and the loopback fake GitHub (REST path):
a tagged catalog across several releases, a range that forces one backtrack, monorepo
tags, the compact `#range` form, pin reuse, `update` within a range, and `outdated`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import assert_fails_with, assert_ok
from ghfixtures import GH, make_gh, skill_origin


@pytest.fixture
def gh(tmp_path: Path) -> Iterator[GH]:
    yield from make_gh(tmp_path)


def ranged(repo: str, name: str, spec: str) -> str:
    return f"{skill_origin(repo, 'main', name)}#{spec}"


def _catalog(gh: GH) -> dict[str, str]:
    """acme/x: 1.3.0, 1.4.2, 2.0.0 (v-tags); acme/a: 1.0.0 needs x ^1, 1.1.0 needs x ^2;
    acme/b: needs x ~1.4. Installing a ^1 and b ^1 must back a off to 1.0.0."""
    x = {
        f"c{i}": {"skills": {"x": {"version": v}}}
        for i, v in enumerate(("1.3.0", "1.4.2", "2.0.0"))
    }
    gh.repo("acme/x", x, tags={"v1.3.0": "c0", "v1.4.2": "c1", "v2.0.0": "c2"})
    a = {
        "c0": {"skills": {"a": {"version": "1.0.0", "skills": [ranged("acme/x", "x", "^1")]}}},
        "c1": {"skills": {"a": {"version": "1.1.0", "skills": [ranged("acme/x", "x", "^2")]}}},
    }
    gh.repo("acme/a", a, branches={"main": "c1"}, tags={"v1.0.0": "c0", "v1.1.0": "c1"})
    b = {"c0": {"skills": {"b": {"skills": [ranged("acme/x", "x", "~1.4")]}}}}
    return gh.repo("acme/b", b, tags={"v1.0.0": "c0"})


def test_ranges_resolve_with_one_backtrack_and_pins_are_reused(gh: GH) -> None:
    _catalog(gh)
    gh.manifest(skills=[ranged("acme/a", "a", "^1"), ranged("acme/b", "b", "^1")])
    run = assert_ok(gh.install())
    versions = {fqn: p["version"] for fqn, p in gh.packages().items()}
    assert versions == {"acme/a": "1.0.0", "acme/b": "1.0.0", "acme/x": "1.4.2"}
    assert " + skill acme/x 1.4.2" in run.err
    assert gh.packages()["acme/a"]["origin"].endswith("/tree/v1.0.0/skills/a")
    requires = {r["fqn"]: r for r in gh.lock()["requires"]}
    assert requires["acme/a"]["version"] == "^1"
    assert requires["acme/a"]["origin"].endswith("/tree/main/skills/a")
    assert gh.count(r"^/repos/acme/x/tags") == 1  # one tag listing per repository
    # A second install, cold cache, with the lock: no tag listing, the same lock.
    lock_text = gh.lock_text
    gh.forget_install()
    gh.server.clear_log()
    assert_ok(gh.install(env={"METAPKG_CACHE_DIR": str(gh.tmp / "cold")}))
    assert gh.lock_text == lock_text
    assert gh.count(r"/tags") == 0 and gh.count(r"/commits/") == 0


def test_update_moves_within_the_range_and_outdated_says_so(gh: GH) -> None:
    gh.repo("acme/x", {"c0": {"skills": {"x": {}}}}, tags={"v1.0.0": "c0"})
    gh.manifest(skills=[ranged("acme/x", "x", "^1")])
    assert_ok(gh.install())
    gh.commit("acme/x", "c1", {"skills": {"x": {"version": "1.1.0"}}})
    gh.commit("acme/x", "c2", {"skills": {"x": {"version": "2.0.0"}}})
    _tag(gh, "acme/x", {"v1.1.0": "c1", "v2.0.0": "c2"})
    assert_ok(gh.install())
    assert gh.packages()["acme/x"]["version"] == "1.0.0"  # a lock's pin holds
    run = gh.run("outdated", "--json")
    assert run.code == 1
    [item] = json.loads(run.out)
    assert (item["current"].split()[0], item["wanted"].split()[0], item["latest"]) == (
        "1.0.0",
        "1.1.0",
        "2.0.0",
    )
    assert item["why"] == "newer in range"
    run = assert_ok(gh.run("update"))
    assert "1.0.0 -> 1.1.0" in run.err
    assert gh.packages()["acme/x"]["version"] == "1.1.0"  # the newest in ^1, not 2.0.0


def test_monorepo_tags_and_an_unsatisfiable_range(gh: GH) -> None:
    commits = {
        "c0": {"skills": {"x": {"version": "1.2.0"}, "y": {"version": "5.0.0"}}},
        "c1": {"skills": {"x": {"version": "1.3.0"}, "y": {"version": "5.0.0"}}},
    }
    tags = {"x@1.2.0": "c0", "x/v1.3.0": "c1", "y@5.0.0": "c0", "v9.0.0": "c1"}
    gh.repo("acme/cat", commits, tags=tags)
    gh.manifest(skills=[ranged("acme/cat", "x", "^1"), ranged("acme/cat", "y", "^5")])
    assert_ok(gh.install())
    assert gh.packages()["acme/x"]["origin"].endswith("/tree/x/v1.3.0/skills/x")
    assert gh.packages()["acme/y"]["version"] == "5.0.0"
    gh.manifest(skills=[ranged("acme/cat", "x", "^2")])
    found = assert_fails_with(gh.install(), "constraint")
    assert "^2" in found[0].message and "newest tags: 1.3.0, 1.2.0" in found[0].message


def _tag(gh: GH, repo: str, tags: dict[str, str]) -> None:
    owner, name = repo.split("/")
    for tag, label in tags.items():
        gh.server.set_tag(owner, name, tag, label)
