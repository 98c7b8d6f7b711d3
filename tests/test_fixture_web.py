"""The fixture server's web host (github.com's role) and codeload's tar.gz shape, through a
real HTTP client and, for one cross-check, the real `git` binary."""

from __future__ import annotations

import base64
import io
import os
import shutil
import subprocess
import tarfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from fixture_server import FixtureGitHub
from metapkg.fetch.gitrefs import AdvertisementError, parse_advertisement
from metapkg.fetch.webhost import basic_authorization

REFS = "info/refs?service=git-upload-pack"


@pytest.fixture
def gh(tmp_path: Path) -> Iterator[FixtureGitHub]:
    for label in ("v1", "v2"):
        (tmp_path / label / "skills" / "x").mkdir(parents=True)
        (tmp_path / label / "skills" / "x" / "SKILL.md").write_text(f"# {label}\n")
    server = FixtureGitHub()
    server.add_repo(
        "acme",
        "tools",
        {"v1": tmp_path / "v1", "v2": tmp_path / "v2"},
        branches={"main": "v2", "release/1.x": "v1"},
        tags={"v1.0.0": "v1", "v2.0.0": "v2"},
        annotated=["v1.0.0"],
    )
    server.add_repo("old", "tools", {}, renamed_to="acme/tools")
    with server:
        yield server


@pytest.fixture(scope="module")
def client() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=5.0) as http:
        yield http


def _refs(gh: FixtureGitHub, client: httpx.Client, repo: str, **headers: str) -> httpx.Response:
    return client.get(f"{gh.web_url}/{repo}.git/{REFS}", headers=headers)


def test_ref_advertisement_agrees_with_the_rest_api(
    gh: FixtureGitHub, client: httpx.Client
) -> None:
    response = _refs(gh, client, "acme/tools")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/x-git-upload-pack-advertisement"
    parsed = parse_advertisement(response.content, "test")
    v1, v2 = gh.sha("acme", "tools", "v1"), gh.sha("acme", "tools", "v2")
    assert parsed.branches() == {"main": v2, "release/1.x": v1}
    assert parsed.tags() == {"v1.0.0": v1, "v2.0.0": v2}
    assert parsed.head == v2 and parsed.head_target == "refs/heads/main"
    # The annotated tag is a tag object in the listing, peeled on the next line.
    assert b"refs/tags/v1.0.0^{}" in response.content
    # `.git` is optional, owner and repository match case-insensitively, as on github.com.
    plain = client.get(f"{gh.web_url}/ACME/Tools/{REFS}")
    assert plain.content == response.content
    assert [(r.host, r.status) for r in gh.requests] == [("web", 200), ("web", 200)]


def test_renamed_missing_and_private_repositories(gh: FixtureGitHub, client: httpx.Client) -> None:
    moved = _refs(gh, client, "old/tools")
    assert moved.status_code == 301
    assert moved.headers["location"] == f"{gh.web_url}/acme/tools.git/{REFS}"

    # github.com cannot tell an anonymous client whether a repository is missing or
    # private: it asks for credentials. With credentials, a missing one is a 404.
    missing = _refs(gh, client, "acme/nope")
    assert missing.status_code == 401 and "Basic" in missing.headers["www-authenticate"]
    authorized = _refs(gh, client, "acme/nope", Authorization=basic_authorization("any"))
    assert authorized.status_code == 404

    gh.require_token("s3cret")
    assert _refs(gh, client, "acme/tools").status_code == 401
    assert _refs(gh, client, "acme/tools", Authorization="Bearer s3cret").status_code == 401
    wrong = basic_authorization("wrong")
    assert _refs(gh, client, "acme/tools", Authorization=wrong).status_code == 401
    for user in ("x-access-token", "someone"):
        value = "Basic " + base64.b64encode(f"{user}:s3cret".encode()).decode()
        assert _refs(gh, client, "acme/tools", Authorization=value).status_code == 200


def test_faults_apply_to_the_web_host(gh: FixtureGitHub, client: httpx.Client) -> None:
    gh.fail(r"/info/refs", 503)
    gh.rate_limit(r"/info/refs", kind="429")
    gh.truncate_archive(r"/info/refs")
    assert _refs(gh, client, "acme/tools").status_code == 503
    assert _refs(gh, client, "acme/tools").headers["retry-after"] == "1"
    with pytest.raises(AdvertisementError, match="cut short"):
        parse_advertisement(_refs(gh, client, "acme/tools").content, "test")
    parse_advertisement(_refs(gh, client, "acme/tools").content, "test")


def test_archive_links_redirect_to_codeloads_shape(gh: FixtureGitHub, client: httpx.Client) -> None:
    sha = gh.sha("acme", "tools", "v1")
    link = client.get(f"{gh.web_url}/acme/tools/archive/{sha}.tar.gz")
    assert link.status_code == 302
    assert link.headers["location"] == f"{gh.download_url}/acme/tools/tar.gz/{sha}"
    archive = client.get(link.headers["location"])
    assert archive.status_code == 200
    assert "content-length" not in archive.headers  # codeload streams: chunked
    with tarfile.open(fileobj=io.BytesIO(archive.content), mode="r:gz") as tar:
        assert tar.pax_headers["comment"] == sha
        assert tar.getnames() == [f"tools-{sha}", f"tools-{sha}/skills", *_skill(f"tools-{sha}")]
    by_tag = client.get(f"{gh.download_url}/acme/tools/tar.gz/refs/tags/v1.0.0")
    with tarfile.open(fileobj=io.BytesIO(by_tag.content), mode="r:gz") as tar:
        assert tar.getnames()[0] == "tools-1.0.0"
    assert client.get(f"{gh.web_url}/acme/tools/archive/{'1' * 40}.tar.gz").status_code == 404
    assert client.get(f"{gh.download_url}/acme/tools/tar.gz/nope").status_code == 404


def _skill(top: str) -> list[str]:
    return [f"{top}/skills/x", f"{top}/skills/x/SKILL.md"]


@pytest.mark.skipif(shutil.which("git") is None, reason="needs the git binary")
def test_real_git_reads_both_protocols(gh: FixtureGitHub) -> None:
    """git's own parser accepts the v0 advertisement written in Python, and the v2 path
    (git http-backend over the fixture's bare repository) lists the same refs."""
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_CONFIG_NOSYSTEM": "1"}
    outputs = []
    for version in ("0", "2"):
        done = subprocess.run(
            ["git", "-c", f"protocol.version={version}", "ls-remote", f"{gh.web_url}/old/tools"],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1]
    assert f"{gh.sha('acme', 'tools', 'v1')}\trefs/tags/v1.0.0^{{}}" in outputs[0]
    posts = [r for r in gh.requests if r.method == "POST"]
    assert [(r.path, r.headers.get("git-protocol")) for r in posts] == [
        ("/acme/tools/git-upload-pack", "version=2")
    ]
