"""The ref advertisement parser (metapkg/fetch/gitrefs.py) and the web host choice
(metapkg/fetch/webhost.py): pure functions, no network.

The fuzz tests run a few hundred examples; for a long run:
`METAPKG_FUZZ_EXAMPLES=20000 .venv/bin/python -m pytest -n 0 -q tests/test_gitrefs.py -k fuzz`.
"""

from __future__ import annotations

import base64
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fixture_server.advertise import advertisement, pkt_line
from fixture_server.repos import Repo, make_repo
from metapkg.diagnostics import FetchError
from metapkg.fetch.gitrefs import (
    Advertisement,
    AdvertisementError,
    might_be_abbreviated_sha,
    parse_advertisement,
)
from metapkg.fetch.webhost import WebHost, basic_authorization, usable_reply, web_host

FUZZ_EXAMPLES = int(os.environ.get("METAPKG_FUZZ_EXAMPLES", "150"))
SOURCE = "https://github.com/acme/tools.git/info/refs?service=git-upload-pack"
A, B, C = "a" * 40, "b" * 40, "c" * 40


def _repo(tmp_path: Path) -> Repo:
    for label in ("one", "two"):
        (tmp_path / label).mkdir()
        (tmp_path / label / "SKILL.md").write_text(f"# {label}\n")
    return make_repo(
        "acme",
        "tools",
        {"one": tmp_path / "one", "two": tmp_path / "two"},
        branches={"main": "two", "release/1.x": "one", "v1.0.0": "two"},
        tags={"v1.0.0": "one", "v2.0.0": "two", "light": "one"},
        renamed_to=None,
        annotated=["v1.0.0", "v2.0.0"],
    )


def _body(*lines: bytes, service: bool = True) -> bytes:
    head = [pkt_line(b"# service=git-upload-pack\n"), b"0000"] if service else []
    return b"".join([*head, *(pkt_line(line) for line in lines), b"0000"])


# -- parsing ------------------------------------------------------------------------------


def test_advertisement_of_a_fixture_repository(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    one, two = repo.commits["one"].sha, repo.commits["two"].sha
    parsed = parse_advertisement(advertisement(repo), SOURCE)
    assert parsed.head == two
    assert parsed.head_target == "refs/heads/main"
    assert parsed.branches() == {"main": two, "release/1.x": one, "v1.0.0": two}
    # Annotated tags come out peeled to their commit, lightweight ones as they are.
    assert parsed.tags() == {"v1.0.0": one, "v2.0.0": two, "light": one}
    assert "filter" in parsed.capabilities


def test_resolve_follows_githubs_rules(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    one, two = repo.commits["one"].sha, repo.commits["two"].sha
    parsed = parse_advertisement(advertisement(repo), SOURCE)
    assert parsed.resolve("main") == two
    assert parsed.resolve("release/1.x") == one
    assert parsed.resolve("v1.0.0") == two  # a branch wins over a tag of the same name
    assert parsed.resolve("tags/v1.0.0") == parsed.resolve("refs/tags/v1.0.0") == one
    assert parsed.resolve("heads/release/1.x") == parsed.resolve("refs/heads/release/1.x") == one
    assert parsed.resolve("HEAD") == two
    assert parsed.resolve(one.upper()) == one  # a full SHA is taken as it is
    assert parsed.resolve("release") is None
    assert parsed.resolve(one[:12]) is None and might_be_abbreviated_sha(one[:12])
    assert not might_be_abbreviated_sha("main")


def test_githubs_own_shape_with_pull_refs_and_an_empty_repository() -> None:
    caps = b"multi_ack side-band-64k symref=HEAD:refs/heads/trunk object-format=sha1 agent=x"
    body = _body(
        f"{A} HEAD\0".encode() + caps + b"\n",
        f"{A} refs/heads/trunk\n".encode(),
        f"{B} refs/pull/7/head\n".encode(),
        f"{C} refs/tags/\u00e9t\u00e9".encode(),  # no newline: it is optional
    )
    parsed = parse_advertisement(body, SOURCE)
    assert parsed == Advertisement(
        {"refs/heads/trunk": A, "refs/pull/7/head": B, "refs/tags/\u00e9t\u00e9": C},
        head=A,
        head_target="refs/heads/trunk",
        capabilities=frozenset(caps.decode().split()),
    )
    assert parsed.resolve("pull/7/head") is None and parsed.resolve("refs/pull/7/head") == B

    empty = parse_advertisement(_body(b"0" * 40 + b" capabilities^{}\0agent=x\n"), SOURCE)
    assert empty.refs == {} and empty.head is None
    v1 = _body(b"version 1\n", f"{A} refs/heads/main\0agent=x\n".encode())
    assert parse_advertisement(v1, SOURCE).branches() == {"main": A}


@pytest.mark.parametrize(
    ("body", "why"),
    [
        (b"", "cut short"),
        (_body(service=False), "service line"),
        (b"<html>Sign in</html>", "bad pkt-line length"),
        (_body(f"{A} refs/heads/main\0\n".encode())[:-4], "cut short"),
        (_body(f"{A} refs/heads/main\0\n".encode()) + b"0000", "after the ref advertisement"),
        (_body(f"{A} refs/heads/main\0\n".encode()).replace(b"0000", b"0001", 2), "not valid"),
        (_body(b"version 2\n"), "unexpected protocol"),
        (_body(f"{A} refs/heads/main\0object-format=sha256\n".encode()), "sha256"),
        (_body(f"{A[:39]} refs/heads/main\0\n".encode()), "object id"),
        (_body(f"{A.upper()} refs/heads/main\0\n".encode()), "object id"),
        (_body(f"{A} refs/heads/main\0\n".encode(), f"{B} refs/heads/main\n".encode()), "twice"),
        (_body(f"{A} refs/heads/x\0\n".encode(), f"{B} refs/tags/v^{{}}\n".encode()), "peeled"),
        (_body(f"{A} refs/heads/x\0\n".encode(), f"{B} refs/heads/y\0z\n".encode()), "NUL"),
        (_body(f"{A} refs/heads/x\0\n".encode(), f"{B} HEAD\n".encode()), "HEAD"),
        (_body(f"{A} refs/heads/a b\0\n".encode()), "valid ref name"),
        (_body(f"{A} refs/heads/../x\0\n".encode()), "valid ref name"),
        (_body(f"{A} main\0\n".encode()), "valid ref name"),
        (_body(f"{A} refs/heads/\xff\0\n".encode("latin-1")), "UTF-8"),
        (_body(f"{A}refs/heads/main\0\n".encode()), "unexpected line"),
    ],
)
def test_malformed_advertisements_are_clear_errors(body: bytes, why: str) -> None:
    with pytest.raises(AdvertisementError) as caught:
        parse_advertisement(body, SOURCE)
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.path == SOURCE
    assert "malformed git ref advertisement" in diagnostic.message
    assert why in diagnostic.message


def test_the_size_is_bounded() -> None:
    body = _body(f"{A} refs/heads/main\0\n".encode())
    assert parse_advertisement(body, SOURCE, max_bytes=len(body)).branches() == {"main": A}
    with pytest.raises(AdvertisementError, match="larger than"):
        parse_advertisement(body, SOURCE, max_bytes=len(body) - 1)


# -- fuzzing: any input ends in a result or an AdvertisementError --------------------------


def _parses_or_refuses(data: bytes) -> None:
    try:
        parsed = parse_advertisement(data, SOURCE)
    except AdvertisementError:
        return
    for name, sha in parsed.refs.items():
        assert name.startswith("refs/") and len(sha) == 40


@settings(max_examples=FUZZ_EXAMPLES, deadline=None)
@given(st.binary(max_size=300))
def test_fuzz_arbitrary_bytes(data: bytes) -> None:
    _parses_or_refuses(data)


_VALID = _body(
    f"{A} HEAD\0multi_ack symref=HEAD:refs/heads/main agent=x\n".encode(),
    f"{A} refs/heads/main\n".encode(),
    f"{B} refs/tags/v1.0.0\n".encode(),
    f"{C} refs/tags/v1.0.0^{{}}\n".encode(),
)


@settings(max_examples=FUZZ_EXAMPLES, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, len(_VALID)), st.integers(0, 3), st.binary(max_size=6)),
        min_size=1,
        max_size=4,
    )
)
def test_fuzz_damaged_valid_advertisements(edits: list[tuple[int, int, bytes]]) -> None:
    data = bytearray(_VALID)
    for at, cut, insert in edits:
        data[at : at + cut] = insert
    _parses_or_refuses(bytes(data))


_SEGMENT = st.builds(
    str.__add__, st.sampled_from("abcXYZ019_\u00e9"), st.text("abc019_-\u00e9", max_size=4)
)
_REF_NAME = st.lists(_SEGMENT, min_size=1, max_size=2).map("/".join)


@settings(max_examples=FUZZ_EXAMPLES // 3, deadline=None)  # generation is the slow part
@given(
    st.dictionaries(_REF_NAME, st.sampled_from([A, B, C]), max_size=4),
    st.dictionaries(_REF_NAME, st.tuples(st.sampled_from([A, B, C]), st.booleans()), max_size=4),
)
def test_fuzz_round_trip(branches: dict[str, str], tags: dict[str, tuple[str, bool]]) -> None:
    """Whatever refs a server advertises (annotated or not) are read back exactly."""
    names = {f"refs/heads/{b}": sha for b, sha in branches.items()}
    names |= {f"refs/tags/{t}": sha for t, (sha, _) in tags.items()}
    lines: list[bytes] = []
    for name in sorted(names):
        tag = name.removeprefix("refs/tags/")
        annotated = name.startswith("refs/tags/") and tags[tag][1]
        lines.append(f"{'d' * 40 if annotated else names[name]} {name}".encode())
        if annotated:
            lines.append(f"{names[name]} {name}^{{}}".encode())
    if lines:
        lines[0] += b"\0agent=x"
    parsed = parse_advertisement(_body(*lines), SOURCE)
    assert parsed.branches() == branches
    assert parsed.tags() == {t: sha for t, (sha, _) in tags.items()}


# -- the web host ---------------------------------------------------------------------------


def test_web_host_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    def choice(**env: str) -> WebHost | None:
        for name in ("API_URL", "URL", "ARCHIVE_URL"):
            monkeypatch.delenv(f"METAPKG_GITHUB_{name}", raising=False)
        for name, value in env.items():
            monkeypatch.setenv(f"METAPKG_GITHUB_{name}", value)
        return web_host()

    github = WebHost("https://github.com", "https://codeload.github.com")
    assert choice() == github
    assert choice(API_URL="https://api.github.com/") == github
    # Enterprise (or a test server) through the API URL alone: the REST API only.
    assert choice(API_URL="https://ghe.example/api/v3") is None
    assert choice(API_URL="https://ghe.example/api/v3", URL="") is None  # empty is unset
    enterprise = {"API_URL": "https://ghe.example/api/v3", "URL": "https://ghe.example/"}
    assert choice(**enterprise) == WebHost("https://ghe.example", None)
    mirrored = choice(**enterprise, ARCHIVE_URL="http://127.0.0.2:9")
    assert mirrored == WebHost("https://ghe.example", "http://127.0.0.2:9")


@pytest.mark.parametrize(
    "bad", ["ghe.example", "ftp://ghe.example", "https://user:tok@ghe.example", "https://h:99999"]
)
def test_a_malformed_web_url_is_a_clear_error_that_never_echoes_it(
    bad: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("METAPKG_GITHUB_URL", bad)
    with pytest.raises(FetchError) as caught:
        web_host()
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.path == "METAPKG_GITHUB_URL" and bad not in diagnostic.message


def test_urls_and_authorization() -> None:
    github = WebHost("https://github.com", "https://codeload.github.com")
    assert github.advertisement_url("acme/tools") == (
        "https://github.com/acme/tools.git/info/refs?service=git-upload-pack"
    )
    assert github.clone_url("acme/tools") == "https://github.com/acme/tools.git"
    assert (
        github.archive_url("acme/tools", A) == f"https://codeload.github.com/acme/tools/tar.gz/{A}"
    )
    enterprise = WebHost("https://ghe.example")
    assert enterprise.archive_url("acme/tools", A) == (
        f"https://ghe.example/acme/tools/archive/{A}.tar.gz"
    )
    scheme, _, value = basic_authorization("tok").partition(" ")
    assert scheme == "Basic" and base64.b64decode(value) == b"x-access-token:tok"
    kind = "application/x-git-upload-pack-advertisement"
    assert usable_reply(200, kind) and usable_reply(200, kind.upper() + "; charset=x")
    assert not usable_reply(401, kind) and not usable_reply(200, "text/html")
