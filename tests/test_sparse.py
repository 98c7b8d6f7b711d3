"""One package folder of a big repository through git's partial clone (metapkg/fetch/sparse.py),
with the real `git` binary against the fixture server's web host."""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from fixture_server import FixtureGitHub
from metapkg.fetch.archive import ArchiveError
from metapkg.fetch.sparse import (
    SparseError,
    TreeEntry,
    check_entries,
    fetch_subtree,
    find_git,
    git_environment,
    is_large,
)
from metapkg.fetch.webhost import WebHost, basic_authorization
from metapkg.integrity import SEALED_MTIME_NS

needs_git = pytest.mark.skipif(find_git() is None, reason="needs git 2.29 or newer")
BIG = 3 * 1024 * 1024


@pytest.fixture
def gh(tmp_path: Path) -> Iterator[FixtureGitHub]:
    root = tmp_path / "c1"
    skill = root / "skills" / "small"
    (skill / "scripts").mkdir(parents=True)
    (skill / "SKILL.md").write_text("# small\n")
    (skill / "scripts" / "run.sh").write_text("#!/bin/sh\necho hi\n")
    (skill / "scripts" / "run.sh").chmod(0o755)
    (root / "skills" / "small-other").mkdir()
    (root / "skills" / "small-other" / "SKILL.md").write_text("# not this one\n")
    (root / "mcps").mkdir()
    (root / "mcps" / "io.acme_srv.json").write_text("{}\n")
    (root / "data").mkdir()
    (root / "data" / "huge.bin").write_bytes(os.urandom(BIG))
    linked = tmp_path / "c2" / "skills" / "linked"
    linked.mkdir(parents=True)
    (linked / "SKILL.md").write_text("# linked\n")
    (linked / "escape").symlink_to("../../../etc/passwd")
    server = FixtureGitHub()
    server.add_repo("acme", "mono", {"c1": root, "c2": tmp_path / "c2"}, branches={"main": "c1"})
    with server:
        yield server


def _fetch(
    gh: FixtureGitHub, label: str, path: str, into: Path, auth: str | None = None
) -> dict[str, tuple[int, bool, str]]:
    into.mkdir()
    url = WebHost(gh.web_url).clone_url("acme/mono")
    return fetch_subtree(url, gh.sha("acme", "mono", label), path, into, "test", auth)


@needs_git
def test_only_the_package_folder_is_fetched(gh: FixtureGitHub, tmp_path: Path) -> None:
    record = _fetch(gh, "c1", "skills/small", tmp_path / "out")
    script = b"#!/bin/sh\necho hi\n"
    assert record == {
        "skills/small/SKILL.md": (8, False, hashlib.sha256(b"# small\n").hexdigest()),
        "skills/small/scripts/run.sh": (len(script), True, hashlib.sha256(script).hexdigest()),
    }
    written = tmp_path / "out" / "skills" / "small" / "scripts" / "run.sh"
    assert written.read_bytes() == script
    assert stat.S_IMODE(written.stat().st_mode) == 0o555  # sealed like an extracted file
    assert written.stat().st_mtime_ns == SEALED_MTIME_NS
    assert not (tmp_path / "out" / "skills" / "small-other").exists()
    # Two fetches (commit + trees, then the folder's blobs), and the big file never moved.
    posts = [r for r in gh.requests if r.method == "POST"]
    assert len(posts) == 2 and all(r.host == "web" for r in gh.requests)
    assert sum(r.body_bytes for r in gh.requests) < BIG // 10

    one_file = _fetch(gh, "c1", "mcps/io.acme_srv.json", tmp_path / "file")
    assert list(one_file) == ["mcps/io.acme_srv.json"]


@needs_git
def test_links_are_refused(gh: FixtureGitHub, tmp_path: Path) -> None:
    with pytest.raises(ArchiveError, match="symbolic link"):
        _fetch(gh, "c2", "skills/linked", tmp_path / "out")
    assert not (tmp_path / "out" / "skills" / "linked" / "escape").exists()


@needs_git
def test_a_private_repository_takes_the_token_from_the_environment(
    gh: FixtureGitHub, tmp_path: Path
) -> None:
    gh.require_token("s3cret")
    with pytest.raises(SparseError, match="git fetch failed: the web host asked for credentials"):
        _fetch(gh, "c1", "skills/small", tmp_path / "anonymous")
    record = _fetch(gh, "c1", "skills/small", tmp_path / "out", basic_authorization("s3cret"))
    assert "skills/small/SKILL.md" in record


@pytest.mark.parametrize(
    ("mode", "path", "why"),
    [
        ("100644", "skills/x/../../../etc/passwd", "not a plain relative path"),
        ("100644", "skills/x//SKILL.md", "not a plain relative path"),
        ("100644", "skills/x/..\\..\\evil", "not a plain relative path"),
        ("120000", "skills/x/link", "symbolic link"),
        ("040000", "skills/x/dir", "not a regular file"),
    ],
)
def test_unsafe_tree_entries_are_refused(mode: str, path: str, why: str) -> None:
    """What a malicious server could put in a tree, refused before anything is written."""
    with pytest.raises(ArchiveError, match=why):
        check_entries([TreeEntry(mode, "a" * 40, path)], "test")
    with pytest.raises(ArchiveError, match="the same path twice"):
        check_entries([TreeEntry("100644", "a" * 40, "x")] * 2, "test")


def test_the_token_goes_only_into_gits_environment_for_the_web_host() -> None:
    auth = basic_authorization("s3cret")
    env = git_environment("https://github.com/acme/mono.git", auth)
    config = {
        env[f"GIT_CONFIG_KEY_{i}"]: env[f"GIT_CONFIG_VALUE_{i}"]
        for i in range(int(env["GIT_CONFIG_COUNT"]))
    }
    assert [name for name in env if auth in env[name]] == [
        f"GIT_CONFIG_VALUE_{list(config).index('http.https://github.com/.extraHeader')}"
    ]
    assert config["credential.helper"] == "" and config["protocol.allow"] == "never"
    assert env["GIT_TERMINAL_PROMPT"] == "0"
    anonymous = git_environment("https://github.com/acme/mono.git", None)
    assert not any("extraHeader" in value for value in anonymous.values())


def test_large_means_past_the_threshold_announced_or_received() -> None:
    assert not is_large(None, 10, threshold=100)
    assert is_large(101, 0, threshold=100)  # Content-Length, when the host sends one
    assert is_large(None, 101, threshold=100)  # else the bytes that arrived so far
    assert not is_large(100, 100, threshold=100)
