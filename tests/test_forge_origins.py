"""Parsing and normalising every accepted form of a git forge origin (pure: no network)."""

from __future__ import annotations

from pathlib import Path

import pytest

from metapkg.fetch.credentials import Credential, env_name
from metapkg.fetch.source import RefPin
from metapkg.origins import (
    GitHubOrigin,
    GitOrigin,
    OriginSyntaxError,
    join_range,
    parse_origin,
    split_range,
)

GITLAB = GitOrigin("https", "gitlab.example.com", "group/sub/repo", "main", "skills/x")


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        (
            "git+https://gitlab.example.com/group/sub/repo.git@main#subdirectory=skills/x",
            "git+https://gitlab.example.com/group/sub/repo.git@main#subdirectory=skills/x",
        ),
        (
            "https://GitLab.example.com/group/sub/repo/-/tree/main/skills/x/",
            "git+https://gitlab.example.com/group/sub/repo.git@main#subdirectory=skills/x",
        ),
        (
            "https://gitlab.example.com/group/sub/repo/-/blob/v1.2.0/skills/x",
            "git+https://gitlab.example.com/group/sub/repo.git@v1.2.0#subdirectory=skills/x",
        ),
        (
            "https://codeberg.org/owner/repo/src/branch/main/skills/x",
            "git+https://codeberg.org/owner/repo.git@main#subdirectory=skills/x",
        ),
        (
            "https://gitea.example.com/owner/repo/src/tag/v2.0.0/skills/x",
            "git+https://gitea.example.com/owner/repo.git@v2.0.0#subdirectory=skills/x",
        ),
        (
            "https://bitbucket.org/ws/repo/src/main/skills/x",
            "git+https://bitbucket.org/ws/repo.git@main#subdirectory=skills/x",
        ),
        (
            "https://dev.azure.com/org/project/_git/repo?path=/skills/x&version=GBmain",
            "git+https://dev.azure.com/org/project/_git/repo@main#subdirectory=skills/x",
        ),
        (
            "https://dev.azure.com/org/project/_git/repo?path=/skills/x&version=GTv1.0.0",
            "git+https://dev.azure.com/org/project/_git/repo@v1.0.0#subdirectory=skills/x",
        ),
        (
            "git+ssh://git@gitlab.example.com/group/repo.git@release/1.x#subdirectory=a",
            "git+ssh://git@gitlab.example.com/group/repo.git@release/1.x#subdirectory=a",
        ),
        (
            "git@gitlab.example.com:group/repo.git@v1",
            "git+ssh://git@gitlab.example.com/group/repo.git@v1",
        ),
        (
            "git+https://git.example.com:8443/r.git@main",
            "git+https://git.example.com:8443/r.git@main",
        ),
        ("git+https://git.example.com/team/r.git", "git+https://git.example.com/team/r.git@HEAD"),
        ("git+http://127.0.0.1:9/team/r.git@main", "git+http://127.0.0.1:9/team/r.git@main"),
    ],
)
def test_every_form_normalises_to_the_pip_form(text: str, canonical: str) -> None:
    origin = parse_origin(text)
    assert str(origin) == canonical
    assert parse_origin(str(origin)) == origin  # the canonical form reads back as itself


def test_identity_and_pin_keys_carry_the_host() -> None:
    origin = parse_origin("https://gitlab.example.com/group/sub/repo/-/tree/main/skills/x")
    assert origin == GITLAB
    assert origin.repository == "gitlab.example.com/group/sub/repo"
    assert origin.ref_keys() == [("gitlab.example.com/group/sub/repo", "main")]
    pin = RefPin("group/sub/repo", "main", "0" * 40, "gitlab.example.com")
    assert pin.key in origin.ref_keys()
    assert RefPin("acme/cat", "main", "0" * 40).key == ("acme/cat", "main")  # GitHub: as ever


def test_a_github_url_in_pip_form_is_the_github_origin() -> None:
    origin = parse_origin("git+https://github.com/Acme/Cat.git@main#subdirectory=skills/x")
    assert origin == GitHubOrigin("acme", "cat", "main/skills/x")


@pytest.mark.parametrize(
    "text",
    [
        "git+http://gitlab.example.com/g/r.git@main",  # plain http off loopback
        "git+https://user:tok3n@gitlab.example.com/g/r.git@main",  # a credential in it
        "git+https://gitlab.example.com/g/../r.git@main",
        "git+https://gitlab.example.com/g/r.git@-upload-pack",  # an option, not a ref
        "git+https://gitlab.example.com/g/r.git@a..b",
        "git+https://gitlab.example.com/g/r.git@main#subdirectory=../x",
        "git+https://gitlab.example.com/g/r.git@main#egg=x&color=red",
        "git+ftp://gitlab.example.com/g/r.git@main",
        "https://gitlab.example.com/group/repo/-/commits/main",
        "https://dev.azure.com/org/project/_git/repo?version=XXmain",
        "git+https://github.com/acme/cat.git",  # GitHub needs a ref
    ],
)
def test_rejected_forms_say_why(text: str) -> None:
    with pytest.raises(OriginSyntaxError) as info:
        parse_origin(text)
    assert "tok3n" not in str(info.value)
    assert "git+https://<host>/<path>.git@<ref>" in str(info.value)


def test_a_range_rides_in_the_fragment_and_comes_back_out() -> None:
    text = "git+https://h.example.com/g/r.git@main#subdirectory=skills/x"
    joined = join_range(text, "^1.2")
    assert joined == text + "&range=^1.2"
    assert split_range(joined) == (text, "^1.2")
    bare = "git+https://h.example.com/g/r.git@main"
    assert split_range(join_range(bare, ">=1 <2")) == (bare, ">=1 <2")
    page = "https://gitlab.example.com/g/r/-/tree/main/x"
    assert split_range(page + "#~1.0") == (page, "~1.0")


def test_token_variable_names_and_credentials_never_show_their_secret() -> None:
    assert env_name("gitlab.example.com") == "METAPKG_TOKEN_GITLAB_EXAMPLE_COM"
    assert env_name("git-host.example.com:8443") == "METAPKG_TOKEN_GIT_HOST_EXAMPLE_COM_8443"
    found = Credential("alice", "s3cret", "keyring")
    assert "s3cret" not in repr(found) and found.authorization().startswith("Basic ")


def test_a_bare_fragment_is_a_range_on_every_git_form() -> None:
    assert split_range("git@github.com:acme/cat.git#^1.2") == (
        "git@github.com:acme/cat.git",
        "^1.2",
    )
    text = "git+https://h.example.com/g/r.git@main"
    assert split_range(text + "#>=1.2,<2") == (text, ">=1.2,<2")


def test_github_reuses_only_github_pins(tmp_path: Path) -> None:
    """A forge's pin of group/repo@main must not stand in for github.com's owner/repo@main."""
    from metapkg.fetch.cache import Cache
    from metapkg.fetch.github import GitHubSource
    from metapkg.fetch.sources import FetchOptions

    pins = (
        RefPin("acme/cat", "main", "a" * 40, "gitlab.example.com"),
        RefPin("acme/cat", "v1", "b" * 40),
    )
    source = GitHubSource(FetchOptions(pins=pins), Cache(tmp_path))
    assert source.pins == {("acme/cat", "v1"): "b" * 40}
