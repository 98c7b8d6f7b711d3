"""GitHub without the REST quota (issue: performance, section 1): refs and tags from git's
smart-HTTP ref advertisement, archives by commit from the archive host, REST only as the
fallback. Through the CLI and the loopback fake GitHub's web, archive and API hosts."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import assert_ok
from ghfixtures import GH, make_gh, skill_origin

SECRET = "ghp_webTestS3cretValue"


@pytest.fixture
def gh(tmp_path: Path) -> Iterator[GH]:
    yield from make_gh(tmp_path, web=True)


def _hosts(gh: GH) -> dict[str, int]:
    counts: dict[str, int] = {}
    for record in gh.server.requests:
        counts[record.host] = counts.get(record.host, 0) + 1
    return counts


def test_a_cold_install_makes_no_rest_request(gh: GH) -> None:
    gh.repo("acme/tools", {"c1": {"skills": {"alpha": {}, "beta": {}}}})
    gh.repo("acme/more", {"c1": {"skills": {"gamma": {}}}})
    gh.manifest(
        skills=[
            skill_origin("acme/tools", "main", "alpha"),
            skill_origin("acme/tools", "main", "beta"),
            skill_origin("acme/more", "main", "gamma"),
        ]
    )
    assert_ok(gh.install())
    assert _hosts(gh).get("api", 0) == 0  # not one request against the REST quota
    assert gh.count(r"/info/refs", "web") == 2  # one advertisement per repository
    assert gh.count(r"/tar\.gz/", "download") == 2  # one archive per (repository, commit)
    assert set(gh.packages()) == {"acme/alpha", "acme/beta", "acme/gamma"}


def test_ranges_read_tags_from_the_advertisement(gh: GH) -> None:
    commits = {f"c{i}": {"skills": {"x": {"version": v}}} for i, v in enumerate(("1.2.0", "1.3.0"))}
    gh.repo("acme/x", commits, tags={"v1.2.0": "c0", "v1.3.0": "c1"})
    gh.manifest(skills=[skill_origin("acme/x", "main", "x") + "#^1.2"])
    assert_ok(gh.install())
    assert gh.packages()["acme/x"]["version"] == "1.3.0"
    assert _hosts(gh).get("api", 0) == 0


def test_a_refused_advertisement_falls_back_to_rest(gh: GH) -> None:
    gh.repo("acme/tools", {"c1": {"skills": {"alpha": {}}}})
    gh.manifest(skills=[skill_origin("acme/tools", "main", "alpha")])
    gh.server.fail(r"/info/refs", 401)  # github.com's answer for a private repository
    assert_ok(gh.install())
    assert gh.count(r"/commits/main", "api") == 1
    assert "acme/alpha" in gh.packages()


def test_the_token_goes_to_the_web_host_as_git_sends_it_and_never_to_archives(gh: GH) -> None:
    gh.repo("acme/tools", {"c1": {"skills": {"alpha": {}}}})
    gh.manifest(skills=[skill_origin("acme/tools", "main", "alpha")])
    run = assert_ok(gh.install(env={"GITHUB_TOKEN": SECRET}))
    web = [r for r in gh.server.requests if r.host == "web"]
    assert web and all(r.headers.get("authorization", "").startswith("Basic ") for r in web)
    archives = [r for r in gh.server.requests if r.host == "download"]
    assert archives and all("authorization" not in r.headers for r in archives)
    assert SECRET not in run.out + run.err


def test_offline_after_an_advertised_install(gh: GH) -> None:
    gh.repo("acme/tools", {"c1": {"skills": {"alpha": {}}}})
    gh.manifest(skills=[skill_origin("acme/tools", "main", "alpha")])
    assert_ok(gh.install())
    other = gh.tmp / "other"
    other.mkdir()
    (other / "metapkg.yaml").write_text((gh.project / "metapkg.yaml").read_text())
    gh.server.clear_log()
    assert_ok(gh.run("install", "--offline", cwd=other))
    assert gh.server.requests == []


def test_a_big_repository_fetches_only_each_package_folder_through_git(gh: GH) -> None:
    import base64
    import os as _os

    noise = base64.b64encode(_os.urandom(300_000)).decode()  # ~400 KB that does not compress
    gh.repo(
        "acme/mono",
        {"c1": {"skills": {"alpha": {}, "beta": {}}, "files": {"assets/noise.txt": noise}}},
    )
    gh.manifest(
        skills=[
            skill_origin("acme/mono", "main", "alpha"),
            skill_origin("acme/mono", "main", "beta"),
        ]
    )
    whole = assert_ok(gh.install(env={"METAPKG_CACHE_DIR": str(gh.tmp / "whole")}))
    assert whole.code == 0
    expected = {fqn: p["integrity"] for fqn, p in gh.packages().items()}
    (gh.project / "metapkg.lock").unlink()
    gh.forget_install()
    gh.server.clear_log()

    assert_ok(gh.install(env={"METAPKG_LARGE_REPO_BYTES": "100000"}))
    assert {fqn: p["integrity"] for fqn, p in gh.packages().items()} == expected
    assert gh.count(r"/git-upload-pack", "web") >= 2  # the folders, through git
    sha = gh.sha("acme/mono", "main")
    cached = sorted(p.name for p in (gh.cache / "github/acme/mono").iterdir())
    assert sha not in cached  # the archive was stopped, never extracted
    assert len([name for name in cached if name.startswith(f"{sha}-") and "." not in name]) == 2
    assert (gh.project / ".agents/skills/beta/SKILL.md").is_file()

    gh.forget_install()  # the cache now knows the repository is big: no archive at all
    gh.server.clear_log()
    assert_ok(gh.install("--reinstall", env={"METAPKG_LARGE_REPO_BYTES": "100000"}))
    assert gh.count(r"", "download") == 0 and gh.count(r"/git-upload-pack", "web") == 0


def test_a_renamed_repository_is_downloaded_and_pinned_once_under_its_new_name(
    gh: GH,
) -> None:
    """The project names acme/old (which GitHub redirects to acme/new) for alpha and
    acme/new for beta, and beta depends on acme/old's gamma: one repository, named both
    ways at two levels. The lock pinned both names at one commit; now one archive, one
    pin under the new name, and the rename recorded so the next run (--frozen, cold
    cache) finds the pin for the old name without asking GitHub."""
    gamma = skill_origin("acme/old", "main", "gamma")
    gh.repo("acme/new", {"c1": {"skills": {"alpha": {}, "beta": {"skills": [gamma]}, "gamma": {}}}})
    gh.repo("acme/old", {}, branches={}, renamed_to="acme/new")
    gh.manifest(
        skills=[skill_origin("acme/old", "main", "alpha"), skill_origin("acme/new", "main", "beta")]
    )
    run = assert_ok(gh.install())
    assert gh.count(r"/tar\.gz/", "download") == 1, "one archive for both names"
    assert {(p["repo"], p["ref"]) for p in gh.lock()["pins"]} == {("acme/new", "main")}
    assert gh.lock()["renamed"] == [{"host": "github.com", "old": "acme/old", "new": "acme/new"}]
    assert set(gh.packages()) == {"acme/alpha", "acme/beta", "acme/gamma"}
    assert "warning[repo-renamed]" in run.err and "acme/old was renamed to acme/new" in run.err
    assert sorted(p.name for p in (gh.cache / "github/acme").iterdir()) == ["new"]

    locked = gh.lock_text
    gh.forget_install()
    shutil.rmtree(gh.cache)
    gh.server.clear_log()
    assert_ok(gh.install("--frozen"))
    assert gh.lock_text == locked
    assert gh.count(r"/info/refs") == 0, "--frozen asked GitHub for refs"
    assert gh.count(r"/tar\.gz/", "download") == 1
    assert (gh.project / ".claude/skills/gamma/SKILL.md").is_file()


def test_slash_refs_and_renamed_repositories_on_the_web_path(gh: GH) -> None:
    gh.repo(
        "acme/new", {"c1": {"skills": {"alpha": {}, "beta": {}}}}, branches={"release/1.x": "c1"}
    )
    gh.repo("acme/old", {}, branches={}, renamed_to="acme/new")
    gh.manifest(
        skills=[
            skill_origin("acme/new", "release/1.x", "alpha"),
            skill_origin("acme/old", "release/1.x", "beta"),
        ]
    )
    run = assert_ok(gh.install())
    assert _hosts(gh).get("api", 0) == 0
    assert gh.count(r"/tar\.gz/", "download") == 1  # one archive for both names
    assert "warning[repo-renamed]" in run.err
    pins = {(p["repo"], p["ref"]) for p in gh.lock()["pins"]}
    assert ("acme/new", "release/1.x") in pins
