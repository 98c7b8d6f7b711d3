"""metapkg/redact.py: no credential reaches a message (issue 28, item 13)."""

from __future__ import annotations

from pathlib import Path

import pytest
from ghfixtures import make_gh

from metapkg import redact
from metapkg.diagnostics import error


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("https://user:TOKEN1234@github.com/a/b", "https://***@github.com/a/b"),
        ("fetch https://TOKEN1234@github.com/a failed", "fetch https://***@github.com/a failed"),
        ("see user:pass-word@github.com/a/b", "see ***@github.com/a/b"),
        ("token ghp_abcdefghijklmnopqrstuvwxyz0123 there", "token ghp_*** there"),
        ("github_pat_11ABCDEFG0123456789_abcdefghij", "github_pat_***"),
    ],
)
def test_credentials_are_masked(text: str, shown: str) -> None:
    assert redact.redact(text) == shown


@pytest.mark.parametrize(
    "text",
    [
        "git@github.com:acme/x.git",  # a user name, no secret
        "https://github.com/acme/x/tree/v1.2.3@x",
        "acme/x@1.0.0",
        "mail me at a@b.example",
        "file:/tmp/a@b/c",
    ],
)
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert redact.redact(text) == text


def test_the_token_in_use_is_masked_whatever_its_shape(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "plain-looking-secret")
    assert redact.redact("got plain-looking-secret back") == "got *** back"
    redact.remember("kept-in-the-keyring")
    assert redact.redact("x kept-in-the-keyring y") == "x *** y"


def test_diagnostics_are_masked_when_printed_and_as_json() -> None:
    found = error("fetch", "https://u:p4ssw0rd-1@h.example/x", "GET https://u:p4ssw0rd-1@h.example")
    assert "p4ssw0rd" not in found.render()
    assert "p4ssw0rd" not in str(found.as_json())


def test_verbose_request_lines_mask_a_url_s_userinfo(tmp_path: Path) -> None:
    """-v prints every request's URL; one with user:password@ in it is shown masked."""
    for gh in make_gh(tmp_path):
        gh.repo("acme/tools", {"c1": {"skills": {"a": {}}}})
        gh.manifest()
        api = gh.env["METAPKG_GITHUB_API_URL"].replace("://", "://user:s3cr3t-pass-word@", 1)
        result = gh.run(
            "add", "acme/tools/skills/a@main", "-v", env={"METAPKG_GITHUB_API_URL": api}
        )
        assert "://***@127.0.0.1" in result.err, result.err
        assert "s3cr3t-pass-word" not in result.out + result.err
