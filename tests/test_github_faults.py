"""GitHub origins under faults: unsafe or truncated archives, rate limits, 5xx, timeouts,
missing dependencies deep in the graph, refused tokens. The real CLI in a subprocess
against a loopback fake GitHub (see ghfixtures.py); retries are made fast through
METAPKG_HTTP_BACKOFF and METAPKG_RATE_LIMIT_WAIT.

Every failure must be all-or-nothing: exit 1 with one clear `error[rule]`, no traceback,
no lock written, nothing provisioned, and no half tree in the cache.
"""

from __future__ import annotations

import math
import os
import tarfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import assert_fails_with, assert_ok
from ghfixtures import (
    GH,
    Entry,
    cut_archive,
    make_gh,
    raw_reg,
    reg,
    skill_entries,
    skill_origin,
    special,
    tarball,
)

SECRET = "ghp_faultTestS3cret0987654321"


def _nothing_installed(gh: GH) -> None:
    assert not (gh.project / "metapkg.lock").exists()
    assert not (gh.project / ".agents").exists()
    assert not (gh.project / ".claude").exists()
    assert not (gh.project / ".mcp.json").exists()


def _no_tree(gh: GH, repo: str, sha: str) -> None:
    assert not (gh.cache / "github" / repo / sha).exists()
    leftovers = [p for p in (gh.cache / "tmp").rglob("*")] if (gh.cache / "tmp").exists() else []
    assert leftovers == [], leftovers


@pytest.fixture
def gh(tmp_path: Path) -> Iterator[GH]:
    """A fresh fake GitHub and an empty project wired to it."""
    yield from make_gh(tmp_path)


# -- unsafe archives -----------------------------------------------------------------------


def _bad_entry(kind: str, top: str, tmp: Path) -> tuple[Entry, str]:
    """(entry, the name the error must mention)."""
    if kind == "dotdot":
        name = "skills/alpha/../../../../escaped.txt"
        return reg(name), f"{top}/{name}"
    if kind == "absolute":
        name = str(tmp / "absolute-escape.txt")
        return raw_reg(name), name
    if kind == "symlink":
        return special(
            "skills/alpha/passwd", tarfile.SYMTYPE, "/etc/passwd"
        ), f"{top}/skills/alpha/passwd"
    if kind == "symlink-elsewhere":
        return special("docs/link", tarfile.SYMTYPE, "../skills"), f"{top}/docs/link"
    if kind == "hardlink":
        target = f"{top}/skills/alpha/SKILL.md"
        return special("skills/alpha/hard", tarfile.LNKTYPE, target), f"{top}/skills/alpha/hard"
    if kind == "device":
        return special("skills/alpha/null", tarfile.CHRTYPE), f"{top}/skills/alpha/null"
    if kind == "fifo":
        return special("skills/alpha/pipe", tarfile.FIFOTYPE), f"{top}/skills/alpha/pipe"
    if kind == "outside-top":
        return raw_reg("another-top/skills/alpha/x.md"), "another-top/skills/alpha/x.md"
    raise AssertionError(kind)


@pytest.mark.parametrize("kind", ["dotdot", "absolute", "outside-top"])
def test_malformed_archive_is_rejected_and_nothing_is_installed(gh: GH, kind: str) -> None:
    shas = gh.repo("acme/tools", {"c1": {"skills": {"alpha": {}}}})
    sha = shas["c1"]
    top = f"acme-tools-{sha[:7]}"
    good = skill_entries(gh.tmp / "commits/c1/skills/alpha", "skills/alpha")
    bad, named = _bad_entry(kind, top, gh.tmp)
    # The bad entry sits between good ones, so a partial extraction would have begun.
    gh.server.set_archive("acme", "tools", sha, tarball([*good[:1], bad, *good[1:]], top=top))
    gh.manifest(skills=[skill_origin("acme/tools", "main", "alpha")])

    run = gh.install()
    found = assert_fails_with(run, "archive")
    assert any(named in d.message for d in found), run.err
    _nothing_installed(gh)
    _no_tree(gh, "acme/tools", sha)
    assert not (gh.tmp / "absolute-escape.txt").exists()
    assert not list(gh.tmp.rglob("escaped.txt"))


@pytest.mark.parametrize("kind", ["symlink", "hardlink", "device", "fifo"])
def test_a_link_or_device_inside_the_package_refuses_it_by_name(gh: GH, kind: str) -> None:
    shas = gh.repo("acme/tools", {"c1": {"skills": {"alpha": {}, "beta": {}}}})
    sha = shas["c1"]
    top = f"acme-tools-{sha[:7]}"
    good = skill_entries(gh.tmp / "commits/c1/skills/alpha", "skills/alpha")
    good += skill_entries(gh.tmp / "commits/c1/skills/beta", "skills/beta")
    bad, named = _bad_entry(kind, top, gh.tmp)
    gh.server.set_archive("acme", "tools", sha, tarball([*good[:1], bad, *good[1:]], top=top))
    gh.manifest(skills=[skill_origin("acme/tools", "main", "alpha")])

    found = assert_fails_with(gh.install(), "archive")
    assert any(named.rsplit("/", 1)[-1] in d.message for d in found)
    _nothing_installed(gh)
    # The entry was never written, and the rest of the repository still installs.
    assert not os.path.lexists(gh.cache / "github/acme/tools" / sha / named.split("/", 1)[1])
    gh.manifest(skills=[skill_origin("acme/tools", "main", "beta")])
    assert_ok(gh.install())


def test_a_link_elsewhere_in_the_repository_does_not_stop_a_package(gh: GH) -> None:
    # Common in published repositories: a root AGENTS.md -> CLAUDE.md symlink.
    shas = gh.repo("acme/tools", {"c1": {"skills": {"alpha": {}}}})
    sha = shas["c1"]
    top = f"acme-tools-{sha[:7]}"
    good = skill_entries(gh.tmp / "commits/c1/skills/alpha", "skills/alpha")
    bad, _ = _bad_entry("symlink-elsewhere", top, gh.tmp)
    root = special("AGENTS.md", tarfile.SYMTYPE, "CLAUDE.md")
    gh.server.set_archive("acme", "tools", sha, tarball([root, *good, bad], top=top))
    gh.manifest(skills=[skill_origin("acme/tools", "main", "alpha")])
    assert_ok(gh.install())
    assert (gh.project / ".agents/skills/alpha/SKILL.md").is_file()
    assert not os.path.lexists(gh.cache / "github/acme/tools" / sha / "AGENTS.md")


def test_unsafe_archive_on_update_keeps_the_previous_install(gh: GH) -> None:
    shas = gh.repo("acme/tools", {"c1": {"skills": {"alpha": {}}}})
    gh.manifest(skills=[skill_origin("acme/tools", "main", "alpha")])
    assert_ok(gh.install())
    lock_text = gh.lock_text
    skill_md = (gh.project / ".agents/skills/alpha/SKILL.md").read_text()

    c2 = gh.commit("acme/tools", "c2", {"skills": {"alpha": {"version": "2.0.0"}}})
    gh.server.set_branch("acme", "tools", "main", "c2")
    top = f"acme-tools-{c2[:7]}"
    good = skill_entries(gh.tmp / "commits/c2/skills/alpha", "skills/alpha")
    link = special("skills/alpha/evil", tarfile.SYMTYPE, "/etc/shadow")
    gh.server.set_archive("acme", "tools", c2, tarball([*good, link], top=top))

    run = gh.run("update")
    found = assert_fails_with(run, "archive")
    assert any("'evil'" in d.message and "symbolic link" in d.message for d in found)
    assert gh.lock_text == lock_text
    assert gh.pins() == {("acme/tools", "main"): shas["c1"]}
    assert (gh.project / ".agents/skills/alpha/SKILL.md").read_text() == skill_md
    assert not (gh.project / ".agents/skills/alpha/evil").exists()
    assert not os.path.lexists(gh.cache / "github/acme/tools" / c2 / "skills/alpha/evil")


def test_truncated_archive_fails_clearly_and_does_not_poison_the_cache(gh: GH) -> None:
    shas = gh.repo(
        "acme/tools", {"c1": {"skills": {"alpha": {"files": {"big.txt": "data\n" * 20000}}}}}
    )
    gh.manifest(skills=[skill_origin("acme/tools", "main", "alpha")])
    gh.server.truncate_archive(r"legacy\.tar\.gz", times=1)

    run = gh.install()
    found = assert_fails_with(run, "archive")
    assert any("truncated" in d.message or "corrupt" in d.message for d in found), run.err
    _nothing_installed(gh)
    _no_tree(gh, "acme/tools", shas["c1"])

    # The fault is spent: the next install downloads again and succeeds.
    assert_ok(gh.install())
    assert gh.count(r"legacy\.tar\.gz", "download") == 2
    assert (gh.project / ".agents/skills/alpha/big.txt").read_text() == "data\n" * 20000
    assert (gh.cache / "github/acme/tools" / shas["c1"]).is_dir()


def test_archive_cut_between_entries_is_rejected(gh: GH) -> None:
    shas = gh.repo(
        "acme/tools", {"c1": {"skills": {"alpha": {"files": {"references/zz.md": "z\n"}}}}}
    )
    sha = shas["c1"]
    entries = skill_entries(gh.tmp / "commits/c1/skills/alpha", "skills/alpha")
    assert len(entries) == 3  # CHANGELOG.md, SKILL.md, references/zz.md
    gh.server.set_archive(
        "acme", "tools", sha, cut_archive(entries[:2], top=f"acme-tools-{sha[:7]}")
    )
    gh.manifest(skills=[skill_origin("acme/tools", "main", "alpha")])
    run = gh.install()
    assert_fails_with(run, "archive")
    _nothing_installed(gh)
    _no_tree(gh, "acme/tools", sha)


def test_missing_archive_is_a_missing_dependency(gh: GH) -> None:
    gh.repo("acme/tools", {"c1": {"skills": {"alpha": {}}}})
    gh.manifest(skills=[skill_origin("acme/tools", "main", "alpha")])
    gh.server.fail(r"/tarball/", 404)
    run = gh.install()
    assert_fails_with(run, "missing")
    _nothing_installed(gh)


# -- rate limits ---------------------------------------------------------------------------


def test_primary_rate_limit_waits_for_the_reset_then_succeeds(gh: GH) -> None:
    gh.repo("acme/tools", {"c1": {"skills": {"alpha": {}}}})
    gh.manifest(skills=[skill_origin("acme/tools", "main", "alpha")])
    gh.server.rate_limit(r"/commits/", times=1, kind="403", reset_after=1)
    started = time.time()
    assert_ok(gh.install())
    elapsed = time.time() - started
    statuses = [r.status for r in gh.server.requests if "/commits/" in r.path]
    assert statuses == [403, 200]
    assert elapsed >= 0.5, f"did not wait for the reset ({elapsed:.2f}s)"
    assert (gh.project / ".agents/skills/alpha/SKILL.md").is_file()


def test_secondary_rate_limit_honours_retry_after(gh: GH) -> None:
    gh.repo("acme/tools", {"c1": {"skills": {"alpha": {}}}})
    gh.manifest(skills=[skill_origin("acme/tools", "main", "alpha")])
    gh.server.rate_limit(r"/tarball/", times=1, kind="429", reset_after=1)
    started = time.time()
    assert_ok(gh.install())
    elapsed = time.time() - started
    statuses = [r.status for r in gh.server.requests if "/tarball/" in r.path]
    assert statuses == [429, 302]
    assert elapsed >= 0.9, f"did not wait for Retry-After ({elapsed:.2f}s)"
    assert (gh.project / ".agents/skills/alpha/SKILL.md").is_file()


def _reset_times(before: float, after: float, ahead: float) -> set[str]:
    first, last = math.floor(before + ahead), math.ceil(after + ahead)
    return {time.strftime("%H:%M:%S", time.localtime(t)) for t in range(first, last + 1)}


def test_rate_limit_too_far_ahead_fails_naming_the_reset_and_the_token(gh: GH) -> None:
    gh.repo("acme/tools", {"c1": {"skills": {"alpha": {}}}})
    gh.manifest(skills=[skill_origin("acme/tools", "main", "alpha")])
    gh.server.rate_limit(r"/commits/", times=10, kind="403", reset_after=30)
    before = time.time()
    run = gh.install(env={"METAPKG_RATE_LIMIT_WAIT": "0.5"})
    after = time.time()
    found = assert_fails_with(run, "rate-limit")
    message = " ".join(d.message for d in found)
    assert any(t in message for t in _reset_times(before, after, 30)), message
    assert "GITHUB_TOKEN" in message
    assert after - before < 10, "waited for a reset that was too far ahead"
    _nothing_installed(gh)


def test_rate_limit_429_too_far_ahead_fails(gh: GH) -> None:
    gh.repo("acme/tools", {"c1": {"skills": {"alpha": {}}}})
    gh.manifest(skills=[skill_origin("acme/tools", "main", "alpha")])
    gh.server.rate_limit(r"/commits/", times=10, kind="429", reset_after=30)
    before = time.time()
    run = gh.install(env={"METAPKG_RATE_LIMIT_WAIT": "0.5"})
    after = time.time()
    found = assert_fails_with(run, "rate-limit")
    assert any(t in found[0].message for t in _reset_times(before, after, 30)), found[0].message
    assert after - before < 10
    _nothing_installed(gh)


@pytest.mark.parametrize(
    ("retry_after", "reset"),
    [(None, "1" + "0" * 40), (None, "9" * 5000), ("9" * 5000, None), ("\u00b2", "\u00b3")],
    ids=["reset 10^40", "reset 5000 digits", "retry-after 5000 digits", "superscripts"],
)
def test_absurd_rate_limit_headers_read_as_far_ahead(retry_after: str, reset: str) -> None:
    from metapkg.fetch.http import _RateLimited

    limited = _RateLimited(403, retry_after, reset)

    assert 0 <= limited.wait <= 366 * 24 * 3600
    assert "rate limit" in limited.describe(None)


def test_rate_limit_with_a_token_does_not_print_it(gh: GH) -> None:
    gh.repo("acme/tools", {"c1": {"skills": {"alpha": {}}}})
    gh.manifest(skills=[skill_origin("acme/tools", "main", "alpha")])
    gh.server.rate_limit(r"/commits/", times=10, kind="403", reset_after=30)
    run = gh.install(env={"METAPKG_RATE_LIMIT_WAIT": "0.5", "GITHUB_TOKEN": SECRET})
    assert_fails_with(run, "rate-limit")
    assert SECRET not in run.out + run.err


# -- server errors and timeouts ------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "status"),
    [(r"/commits/", 502), (r"/tarball/", 500), (r"legacy\.tar\.gz", 503)],
)
def test_transient_server_errors_are_retried(gh: GH, pattern: str, status: int) -> None:
    gh.repo("acme/tools", {"c1": {"skills": {"alpha": {}}}})
    gh.manifest(skills=[skill_origin("acme/tools", "main", "alpha")])
    gh.server.fail(pattern, status, times=2)
    assert_ok(gh.install())
    statuses = [r.status for r in gh.server.requests if __import__("re").search(pattern, r.path)]
    assert statuses[:2] == [status, status] and len(statuses) == 3, statuses
    assert (gh.project / ".agents/skills/alpha/SKILL.md").is_file()
    assert gh.pins()


@pytest.mark.parametrize("pattern", [r"/commits/", r"legacy\.tar\.gz"])
def test_persistent_server_errors_fail_clearly(gh: GH, pattern: str) -> None:
    gh.repo("acme/tools", {"c1": {"skills": {"alpha": {}}}})
    gh.manifest(skills=[skill_origin("acme/tools", "main", "alpha")])
    gh.server.fail(pattern, 503, times=1000)
    started = time.time()
    run = gh.install()
    elapsed = time.time() - started
    found = assert_fails_with(run, "fetch")
    assert any("attempt" in d.message or "503" in d.message for d in found), run.err
    tries = gh.count(pattern)
    assert 2 <= tries <= 10, f"{tries} attempts: retries must be bounded, and happen"
    assert elapsed < 15
    _nothing_installed(gh)


def test_slow_body_times_out_and_is_retried(gh: GH) -> None:
    gh.repo("acme/tools", {"c1": {"skills": {"alpha": {}}}})
    gh.manifest(skills=[skill_origin("acme/tools", "main", "alpha")])
    gh.server.slow_body(r"legacy\.tar\.gz", seconds=4, times=1, chunks=2)
    started = time.time()
    assert_ok(gh.install(env={"METAPKG_HTTP_TIMEOUT": "0.5"}))
    assert time.time() - started < 4, "waited for the slow body instead of timing out"
    assert gh.count(r"legacy\.tar\.gz", "download") == 2
    assert (gh.project / ".agents/skills/alpha/SKILL.md").is_file()


def test_unreachable_api_fails_clearly(gh: GH) -> None:
    gh.repo("acme/tools", {"c1": {"skills": {"alpha": {}}}})
    gh.manifest(skills=[skill_origin("acme/tools", "main", "alpha")])
    gh.server.stop()
    run = gh.install()
    assert_fails_with(run, "fetch")
    _nothing_installed(gh)


def test_a_full_disk_while_downloading_names_the_cache_folder(gh: GH) -> None:
    shas = gh.repo("acme/tools", {"c1": {"skills": {"alpha": {}}}})
    gh.manifest(skills=[skill_origin("acme/tools", "main", "alpha")])

    run = gh.install(env={"METAPKG_FAILPOINT": "enospc:0"})  # no byte fits on the disk

    [diag] = assert_fails_with(run, "cache")
    assert "No space left on device" in diag.message and str(gh.cache) in diag.message
    _nothing_installed(gh)
    _no_tree(gh, "acme/tools", shas["c1"])
    assert_ok(gh.install())


# -- missing dependencies ------------------------------------------------------------------


def _chain_to(gh: GH, leaf_dependency: str) -> None:
    """acme/a -> acme/b -> acme/c (depth 3) -> leaf_dependency."""
    deps = {
        "a": [skill_origin("acme/tools", "main", "b")],
        "b": [skill_origin("acme/tools", "main", "c")],
        "c": [leaf_dependency],
    }
    gh.repo("acme/tools", {"c1": {"skills": {name: {"skills": d} for name, d in deps.items()}}})
    gh.manifest(skills=[skill_origin("acme/tools", "main", "a")])


@pytest.mark.parametrize(
    "leaf",
    [
        skill_origin("ghost/nowhere", "main", "x"),  # no such repository
        skill_origin("acme/tools", "main", "nope"),  # no such folder
        skill_origin("acme/tools", "no-such-branch", "a"),  # no such ref
    ],
)
def test_missing_dependency_deep_in_the_graph_names_the_chain(gh: GH, leaf: str) -> None:
    _chain_to(gh, leaf)
    run = gh.install()
    found = assert_fails_with(run, "missing")
    assert any(leaf in d.path + d.message for d in found), run.err
    assert any("skill acme/a -> skill acme/b -> skill acme/c" in d.message for d in found), run.err
    _nothing_installed(gh)


def test_missing_direct_dependency_names_the_manifest(gh: GH) -> None:
    gh.manifest(skills=[skill_origin("ghost/nowhere", "main", "x")])
    run = gh.install()
    found = assert_fails_with(run, "missing")
    assert any("metapkg.yaml" in d.message for d in found), run.err
    _nothing_installed(gh)


# -- refused tokens ------------------------------------------------------------------------


def test_wrong_token_is_an_auth_error_that_does_not_print_it(gh: GH) -> None:
    gh.repo("acme/tools", {"c1": {"skills": {"alpha": {}}}})
    gh.manifest(skills=[skill_origin("acme/tools", "main", "alpha")])
    gh.server.require_token("the-right-one")
    run = gh.run("-v", "install", env={"GITHUB_TOKEN": SECRET})
    found = assert_fails_with(run, "auth")
    assert SECRET not in run.out + run.err
    assert any("GITHUB_TOKEN" in d.message for d in found), run.err
    _nothing_installed(gh)


@pytest.mark.parametrize("token", ["ghp_t\u00f6k\u00e9n-s3cret", "ghp_first\nsecond-s3cret"])
def test_a_token_no_header_can_hold_is_refused_before_any_request(gh: GH, token: str) -> None:
    """Non-ASCII (httpx would raise UnicodeEncodeError) or a pasted second line: named by
    where it came from, never shown, never sent."""
    gh.repo("acme/tools", {"c1": {"skills": {"alpha": {}}}})
    gh.manifest(skills=[skill_origin("acme/tools", "main", "alpha")])
    run = gh.install(env={"GITHUB_TOKEN": token})
    [found] = assert_fails_with(run, "auth")
    assert found.path == "GITHUB_TOKEN" and "set it to the token alone" in found.message
    assert "s3cret" not in run.out + run.err
    assert gh.server.requests == []
    _nothing_installed(gh)


def test_no_token_for_a_private_repository_is_an_auth_error(gh: GH) -> None:
    gh.repo("acme/tools", {"c1": {"skills": {"alpha": {}}}})
    gh.manifest(skills=[skill_origin("acme/tools", "main", "alpha")])
    gh.server.require_token("the-right-one")
    run = gh.install()
    found = assert_fails_with(run, "auth")
    assert any("token" in d.message for d in found)
    _nothing_installed(gh)
    run = assert_ok(gh.install(env={"GH_TOKEN": "the-right-one"}))
    assert "the-right-one" not in run.out + run.err
    assert (gh.project / ".agents/skills/alpha/SKILL.md").is_file()


def test_auth_refusal_on_the_archive_is_reported(gh: GH) -> None:
    gh.repo("acme/tools", {"c1": {"skills": {"alpha": {}}}})
    gh.manifest(skills=[skill_origin("acme/tools", "main", "alpha")])
    gh.server.fail(r"/tarball/", 401, times=1, body=b'{"message": "Bad credentials"}')
    run = gh.install(env={"GITHUB_TOKEN": SECRET})
    assert_fails_with(run, "auth")
    assert SECRET not in run.out + run.err
    _nothing_installed(gh)


def test_a_rate_limit_pauses_every_worker_until_it_resets(gh: GH) -> None:
    # One answer says the quota is spent: a request another worker starts afterwards waits
    # for the reset too, instead of spending a request on another 403.
    from metapkg.fetch.http import Http, Policy

    gh.repo("acme/tools", {"c1": {"skills": {"alpha": {}}}})
    gh.repo("acme/more", {"c1": {"skills": {"beta": {}}}})
    # The quota is spent for the whole API until it resets: a request that does not wait
    # for the reset gets a second 403.
    gh.server.rate_limit(r"/repos/acme/", kind="403", reset_after=1, until_reset=True)
    http = Http(None, 4, Policy(attempts=3, backoff=0.01, rate_limit_wait=5, timeout=5))
    first = threading.Thread(
        target=http.get, args=(f"{gh.server.api_url}/repos/acme/tools/commits/main",)
    )
    first.start()
    # "Afterwards": once the first worker has read the 403 (the server logs it before the
    # client has read it: waiting for that log made this test race on a loaded machine).
    deadline = time.monotonic() + 30
    while not http._paused_until and first.is_alive() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert http._paused_until, "the first worker never read the 403"
    reply = http.get(f"{gh.server.api_url}/repos/acme/more/commits/main")
    first.join()
    http.close()
    assert reply.status == 200
    assert [r.status for r in gh.server.requests].count(403) == 1  # the second one waited
