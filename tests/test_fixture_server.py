"""Tests of the loopback fake GitHub (fixture_server) through a real HTTP client."""

from __future__ import annotations

import gzip
import http.client
import io
import re
import signal
import subprocess
import sys
import tarfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from fixture_server import FixtureGitHub

SHA_MEDIA = {"Accept": "application/vnd.github.sha"}
TAGS = ["v0.1.0", "v0.2.0", "v1.0.0", "v1.1.0", "v2.0.0"]


def _write(path: Path, text: str, executable: bool = False) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755 if executable else 0o644)


@pytest.fixture
def commits(tmp_path: Path) -> dict[str, Path]:
    v1, v2 = tmp_path / "v1", tmp_path / "v2"
    _write(v1 / "agent.md", "# agent v1\n")
    _write(v1 / "bin" / "run.sh", "#!/bin/sh\necho hi\n", executable=True)
    _write(v2 / "agent.md", "# agent v2\n")
    return {"v1": v1, "v2": v2}


@pytest.fixture
def gh(commits: dict[str, Path]) -> Iterator[FixtureGitHub]:
    server = FixtureGitHub()
    server.add_repo(
        "acme",
        "tools",
        commits,
        branches={"main": "v2", "release/1.x": "v1"},
        tags={tag: ("v2" if tag.startswith("v2") else "v1") for tag in TAGS},
    )
    server.add_repo("old-owner", "old-tools", {}, renamed_to="acme/tools")
    with server:
        yield server


@pytest.fixture(scope="module")
def client() -> Iterator[httpx.Client]:
    """Shared: creating an httpx client costs tens of milliseconds (SSL context)."""
    with httpx.Client(timeout=5.0) as http:
        yield http


def _tar_members(data: bytes) -> dict[str, tarfile.TarInfo]:
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        return {member.name: member for member in tar.getmembers()}


def _download(gh: FixtureGitHub, client: httpx.Client, ref: str) -> httpx.Response:
    redirect = client.get(f"{gh.api_url}/repos/acme/tools/tarball/{ref}")
    assert redirect.status_code == 302
    return client.get(redirect.headers["location"])


# -- commits -----------------------------------------------------------------------------


def test_sha_lookup_with_sha_media_type_and_as_json(
    gh: FixtureGitHub, client: httpx.Client
) -> None:
    main_sha = gh.sha("acme", "tools", "main")
    assert re.fullmatch(r"[0-9a-f]{40}", main_sha)
    assert main_sha == gh.sha("acme", "tools", "v2") != gh.sha("acme", "tools", "v1")

    plain = client.get(f"{gh.api_url}/repos/acme/tools/commits/main", headers=SHA_MEDIA)
    assert plain.status_code == 200
    assert plain.headers["content-type"].startswith("text/plain")
    assert plain.text == main_sha

    as_json = client.get(f"{gh.api_url}/repos/ACME/Tools/commits/v1.0.0")
    assert as_json.status_code == 200
    assert as_json.json()["sha"] == gh.sha("acme", "tools", "v1")

    by_sha = client.get(f"{gh.api_url}/repos/acme/tools/commits/{main_sha}", headers=SHA_MEDIA)
    assert by_sha.text == main_sha


def test_ref_with_slash_accepted_encoded_and_raw(gh: FixtureGitHub, client: httpx.Client) -> None:
    expected = gh.sha("acme", "tools", "release/1.x")
    assert expected == gh.sha("acme", "tools", "v1")
    for ref in ("release%2F1.x", "release/1.x"):
        response = client.get(f"{gh.api_url}/repos/acme/tools/commits/{ref}", headers=SHA_MEDIA)
        assert response.status_code == 200, ref
        assert response.text == expected


def test_unknown_repo_is_404_and_unknown_ref_is_422(
    gh: FixtureGitHub, client: httpx.Client
) -> None:
    missing = client.get(f"{gh.api_url}/repos/acme/nope/commits/main", headers=SHA_MEDIA)
    assert missing.status_code == 404
    assert missing.json()["message"] == "Not Found"

    bad_ref = client.get(f"{gh.api_url}/repos/acme/tools/commits/release", headers=SHA_MEDIA)
    assert bad_ref.status_code == 422
    assert bad_ref.json()["message"] == "No commit found for SHA: release"

    unknown_sha = client.get(f"{gh.api_url}/repos/acme/tools/commits/{'0' * 40}")
    assert unknown_sha.status_code == 422


def test_sha_is_deterministic_and_follows_content(commits: dict[str, Path]) -> None:
    first, second = FixtureGitHub(), FixtureGitHub()
    first.add_repo("acme", "tools", commits)
    second.add_repo("acme", "tools", commits)
    assert first.sha("acme", "tools", "v1") == second.sha("acme", "tools", "v1")

    (commits["v1"] / "bin" / "run.sh").chmod(0o644)
    second.add_repo("acme", "tools", commits)
    assert first.sha("acme", "tools", "v1") != second.sha("acme", "tools", "v1")
    assert first.sha("acme", "tools", "v2") == second.sha("acme", "tools", "v2")


def test_set_branch_moves_the_ref(gh: FixtureGitHub, client: httpx.Client) -> None:
    gh.set_branch("acme", "tools", "main", "v1")
    response = client.get(f"{gh.api_url}/repos/acme/tools/commits/main", headers=SHA_MEDIA)
    assert response.text == gh.sha("acme", "tools", "v1")


# -- archives ----------------------------------------------------------------------------


def test_tarball_redirects_to_download_host_serving_github_layout(
    gh: FixtureGitHub, client: httpx.Client
) -> None:
    sha = gh.sha("acme", "tools", "v1")
    redirect = client.get(f"{gh.api_url}/repos/acme/tools/tarball/{sha}")
    assert redirect.status_code == 302
    location = redirect.headers["location"]
    assert location == f"{gh.download_url}/acme/tools/legacy.tar.gz/{sha}"
    assert urlsplit(location).hostname != urlsplit(gh.api_url).hostname

    archive = client.get(location)
    assert archive.status_code == 200
    assert archive.headers["content-type"] == "application/x-gzip"
    top = f"acme-tools-{sha[:7]}"
    members = _tar_members(archive.content)
    assert set(members) == {top, f"{top}/agent.md", f"{top}/bin", f"{top}/bin/run.sh"}
    assert members[f"{top}/bin/run.sh"].mode == 0o755
    assert members[f"{top}/agent.md"].mode == 0o644
    with tarfile.open(fileobj=io.BytesIO(archive.content), mode="r:gz") as tar:
        assert tar.pax_headers["comment"] == sha
        extracted = tar.extractfile(f"{top}/agent.md")
        assert extracted is not None and extracted.read() == b"# agent v1\n"

    # A branch is accepted too, and the archive is byte-identical on every request.
    assert _download(gh, client, "release/1.x").content == archive.content


def test_unknown_tarball_is_404_on_both_hosts(gh: FixtureGitHub, client: httpx.Client) -> None:
    assert client.get(f"{gh.api_url}/repos/acme/tools/tarball/{'1' * 40}").status_code == 404
    assert client.get(f"{gh.api_url}/repos/acme/nope/tarball/main").status_code == 404
    missing = client.get(f"{gh.download_url}/acme/tools/legacy.tar.gz/{'1' * 40}")
    assert missing.status_code == 404


def test_set_archive_serves_exact_bytes(gh: FixtureGitHub, client: httpx.Client) -> None:
    sha = gh.sha("acme", "tools", "v2")
    crafted = gzip.compress(b"not really a tar")
    gh.set_archive("acme", "tools", sha, crafted)
    assert _download(gh, client, sha).content == crafted


# -- tags --------------------------------------------------------------------------------


def test_tags_paginate_with_github_link_header(gh: FixtureGitHub, client: httpx.Client) -> None:
    url: str | None = f"{gh.api_url}/repos/acme/tools/tags?per_page=2"
    names: list[str] = []
    links: list[str] = []
    while url is not None:
        response = client.get(url)
        assert response.status_code == 200
        names += [tag["name"] for tag in response.json()]
        for tag in response.json():
            assert tag["commit"]["sha"] == gh.sha("acme", "tools", tag["name"])
        links.append(response.headers.get("link", ""))
        url = response.links.get("next", {}).get("url")
    assert names == sorted(TAGS, reverse=True)
    assert len(links) == 3
    base = f"{gh.api_url}/repos/acme/tools/tags?per_page=2&page="
    assert links[0] == f'<{base}2>; rel="next", <{base}3>; rel="last"'
    assert links[2] == f'<{base}2>; rel="prev", <{base}1>; rel="first"'

    single = client.get(f"{gh.api_url}/repos/acme/tools/tags")
    assert len(single.json()) == len(TAGS)
    assert "link" not in single.headers


# -- renames -----------------------------------------------------------------------------


def test_renamed_repository_answers_301_to_new_name(
    gh: FixtureGitHub, client: httpx.Client
) -> None:
    moved = client.get(f"{gh.api_url}/repos/old-owner/old-tools/commits/release%2F1.x?x=1")
    assert moved.status_code == 301
    assert moved.headers["location"] == f"{gh.api_url}/repos/acme/tools/commits/release%2F1.x?x=1"

    followed = client.get(
        f"{gh.api_url}/repos/old-owner/old-tools/commits/main",
        headers=SHA_MEDIA,
        follow_redirects=True,
    )
    assert followed.status_code == 200
    assert followed.text == gh.sha("acme", "tools", "main")


# -- faults ------------------------------------------------------------------------------


def test_fail_applies_exactly_times(gh: FixtureGitHub, client: httpx.Client) -> None:
    gh.fail(r"/commits/main$", 503, times=2, headers={"X-Fault": "yes"}, body=b"boom")
    url = f"{gh.api_url}/repos/acme/tools/commits/main"
    # A request the pattern doesn't match leaves the rule untouched.
    assert client.get(f"{gh.api_url}/repos/acme/tools/commits/v1.0.0").status_code == 200
    statuses = []
    for _ in range(3):
        response = client.get(url, headers=SHA_MEDIA)
        statuses.append(response.status_code)
        if response.status_code == 503:
            assert response.headers["x-fault"] == "yes"
            assert response.content == b"boom"
    assert statuses == [503, 503, 200]


def test_rate_limit_403_reports_reset_time(gh: FixtureGitHub, client: httpx.Client) -> None:
    gh.rate_limit(r"/commits/", times=1, kind="403", reset_after=2.0)
    url = f"{gh.api_url}/repos/acme/tools/commits/main"
    before = time.time()
    limited = client.get(url)
    assert limited.status_code == 403
    assert limited.headers["x-ratelimit-remaining"] == "0"
    assert before + 1 <= int(limited.headers["x-ratelimit-reset"]) <= time.time() + 3
    assert client.get(url).status_code == 200


def test_rate_limit_429_sends_retry_after(gh: FixtureGitHub, client: httpx.Client) -> None:
    gh.rate_limit(r"/tags", times=2, kind="429", reset_after=1.0)
    url = f"{gh.api_url}/repos/acme/tools/tags"
    first, second, third = (client.get(url) for _ in range(3))
    assert first.status_code == second.status_code == 429
    assert first.headers["retry-after"] == "1"
    assert third.status_code == 200


def test_truncate_archive_corrupts_exactly_times(gh: FixtureGitHub, client: httpx.Client) -> None:
    full = _download(gh, client, "main").content
    gh.truncate_archive(r"legacy\.tar\.gz", times=1)
    # The API redirect matches nothing and the rule only fires on archive bodies.
    short = _download(gh, client, "main")
    assert short.status_code == 200
    assert len(short.content) == len(full) // 2 == int(short.headers["content-length"])
    with pytest.raises((tarfile.TarError, EOFError, OSError)):
        _tar_members(short.content)
    assert _download(gh, client, "main").content == full


def test_slow_body_trickles_exactly_times(gh: FixtureGitHub, client: httpx.Client) -> None:
    gh.slow_body(r"legacy\.tar\.gz", seconds=0.4, times=1)
    started = time.monotonic()
    slow = _download(gh, client, "main")
    slow_elapsed = time.monotonic() - started
    started = time.monotonic()
    fast = _download(gh, client, "main")
    fast_elapsed = time.monotonic() - started
    assert slow.content == fast.content
    assert 0.35 <= slow_elapsed < 3.0
    assert fast_elapsed < 0.3


def test_slow_body_trips_a_per_read_timeout(gh: FixtureGitHub, client: httpx.Client) -> None:
    gh.slow_body(r"/commits/", seconds=0.6, times=1, chunks=2)
    url = f"{gh.api_url}/repos/acme/tools/commits/main"
    with pytest.raises(httpx.ReadTimeout):
        client.get(url, timeout=httpx.Timeout(5.0, read=0.1))
    assert gh.count(r"/commits/main") == 1


def test_latency_applies_to_both_hosts(gh: FixtureGitHub, client: httpx.Client) -> None:
    sha = gh.sha("acme", "tools", "main")
    urls = [
        f"{gh.api_url}/repos/acme/tools/commits/main",
        f"{gh.download_url}/acme/tools/legacy.tar.gz/{sha}",
    ]
    for url in urls:
        client.get(url)  # warm connection and archive cache
    gh.latency = 0.2
    for url in urls:
        started = time.monotonic()
        assert client.get(url).status_code == 200
        assert 0.19 <= time.monotonic() - started < 2.0, url
    gh.latency = 0.0
    started = time.monotonic()
    client.get(urls[0])
    assert time.monotonic() - started < 0.15


# -- log and auth ------------------------------------------------------------------------


def test_request_log_records_host_path_headers_status(
    gh: FixtureGitHub, client: httpx.Client
) -> None:
    _download(gh, client, "release%2F1.x")
    client.get(f"{gh.api_url}/repos/acme/tools/commits/nope", headers={"X-Probe": "1"})
    assert gh.count(r"/tarball/") == 1
    assert gh.count(r"legacy\.tar\.gz", host="download") == 1
    assert gh.count(r"legacy\.tar\.gz", host="api") == 0
    assert gh.count(r"release%2F1\.x") == 1
    last = gh.requests[-1]
    assert (last.host, last.method, last.status) == ("api", "GET", 422)
    assert last.path == "/repos/acme/tools/commits/nope"
    assert last.headers["x-probe"] == "1"
    assert [record.status for record in gh.requests] == [302, 200, 422]
    gh.clear_log()
    assert gh.requests == []


def test_require_token_guards_api_but_not_downloads(
    gh: FixtureGitHub, client: httpx.Client
) -> None:
    gh.require_token("s3cret")
    url = f"{gh.api_url}/repos/acme/tools/commits/main"
    assert client.get(url).status_code == 401
    assert client.get(url, headers={"Authorization": "Bearer wrong"}).status_code == 401
    assert client.get(url, headers={"Authorization": "Bearer s3cret"}).status_code == 200
    assert client.get(url, headers={"Authorization": "token s3cret"}).status_code == 200

    sha = gh.sha("acme", "tools", "main")
    assert client.get(f"{gh.download_url}/acme/tools/legacy.tar.gz/{sha}").status_code == 200
    gh.require_token(None)
    assert client.get(url).status_code == 200


def test_stop_is_quick_with_idle_keep_alive_connections(commits: dict[str, Path]) -> None:
    server = FixtureGitHub()
    server.add_repo("acme", "tools", commits, branches={"main": "v1"})
    server.start()
    with httpx.Client(timeout=5.0) as http:
        first = http.get(f"{server.api_url}/repos/acme/tools/commits/main")
        second = http.get(f"{server.api_url}/repos/acme/tools/commits/main")
        assert first.status_code == second.status_code == 200
        assert second.headers.get("connection", "").lower() != "close"
        started = time.monotonic()
        server.stop()
        assert time.monotonic() - started < 1.0
        with pytest.raises(httpx.TransportError):
            http.get(f"{server.api_url}/repos/acme/tools/commits/main")


# -- root folder and command line ----------------------------------------------------------


def test_command_line_serves_a_root_folder_until_sigterm(tmp_path: Path) -> None:
    repo_dir = tmp_path / "github" / "acme" / "tools"
    _write(repo_dir / "commits" / "v1" / "agent.md", "# agent\n")
    (repo_dir / "repo.yaml").write_text(
        "commits: {v1: commits/v1}\nbranches: {main: v1, release/1.x: v1}\ntags: {v1.0.0: v1}\n"
    )
    old = tmp_path / "github" / "old" / "tools"
    old.mkdir(parents=True)
    (old / "repo.yaml").write_text("renamed_to: acme/tools\n")
    env_file = tmp_path / "server.env"
    command = [sys.executable, "-m", "fixture_server", "--root", str(tmp_path / "github")]
    process = subprocess.Popen(
        [*command, "--env-file", str(env_file)],
        cwd=Path(__file__).resolve().parents[1],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline().strip()
        name, _, api_url = line.partition("=")
        assert name == "METAPKG_GITHUB_API_URL"
        assert env_file.read_text() == line + "\n"
        expected = FixtureGitHub(tmp_path / "github").sha("acme", "tools", "v1")
        with httpx.Client(timeout=5.0, follow_redirects=True) as http:
            response = http.get(f"{api_url}/repos/old/tools/commits/release/1.x", headers=SHA_MEDIA)
        assert response.text == expected
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=5) == 0


def test_root_loader_rejects_refs_to_unknown_commits(tmp_path: Path) -> None:
    repo_dir = tmp_path / "acme" / "tools"
    _write(repo_dir / "v1" / "a.md", "a\n")
    (repo_dir / "repo.yaml").write_text("commits: {v1: v1}\nbranches: {main: v9}\n")
    with pytest.raises(ValueError, match="unknown commit 'v9'"):
        FixtureGitHub(tmp_path)


def test_burst_of_parallel_connections_is_not_stalled(gh: FixtureGitHub) -> None:
    """A small listen backlog would drop SYNs in a burst and stall clients for ~1 s."""
    host, port = urlsplit(gh.api_url).hostname, urlsplit(gh.api_url).port
    assert host is not None
    barrier = threading.Barrier(48)

    def one(_: int) -> int:
        conn = http.client.HTTPConnection(host, port, timeout=5)
        barrier.wait()
        conn.request("GET", "/repos/acme/tools/commits/main", headers=SHA_MEDIA)
        status = conn.getresponse().status
        conn.close()
        return status

    started = time.monotonic()
    with ThreadPoolExecutor(48) as pool:
        statuses = list(pool.map(one, range(48)))
    assert statuses == [200] * 48
    assert time.monotonic() - started < 0.9
