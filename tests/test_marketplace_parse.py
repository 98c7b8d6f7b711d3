"""Marketplace entries read into origin texts (metapkg/actions/marketplace.py): pure."""

from __future__ import annotations

import json

import pytest

from metapkg.actions import marketplace
from metapkg.diagnostics import MetapkgError


def _one(source: object, **document: object) -> marketplace.Entry:
    data = json.dumps({"name": "m", "plugins": [{"name": "p", "source": source}], **document})
    return marketplace.parse(data.encode(), ".claude-plugin/marketplace.json").entries[0]


def test_sources_become_origins_metapkg_reads() -> None:
    assert _one("./plugins/x").relative == "plugins/x"
    assert _one("./").relative == "."
    assert _one("x", metadata={"pluginRoot": "./plugins"}).relative == "plugins/x"
    assert _one({"source": "local", "path": "./plugins/y"}).relative == "plugins/y"  # Codex
    sha = "a" * 40
    github = {"source": "github", "repo": "o/r", "ref": "v1", "sha": sha}
    assert _one(github).source == f"https://github.com/o/r/tree/{sha}"
    assert _one({"source": "github", "repo": "o/r"}).source == "o/r"
    subdir = {"source": "git-subdir", "url": "https://github.com/o/r.git", "path": "a/b"}
    assert _one({**subdir, "ref": "main"}).source == "https://github.com/o/r/tree/main/a/b"
    assert _one(subdir).source == "o/r/a/b"
    gitlab = {"source": "url", "url": "https://gitlab.com/g/p.git", "ref": "v2"}
    assert _one(gitlab).source == "git+https://gitlab.com/g/p.git@v2"
    sub = {"source": "git-subdir", "url": "https://gitlab.com/g/p.git", "path": "x", "sha": sha}
    assert _one(sub).source == f"git+https://gitlab.com/g/p.git@{sha}#subdirectory=x"


@pytest.mark.parametrize(
    ("source", "why"),
    [
        ({"source": "npm", "package": "x"}, "'npm' is not supported"),
        ("../outside", "leaves the marketplace"),
        ({"source": "github", "repo": "not a repo"}, "names no owner/repo"),
        ({"source": "url", "url": "http://plain.example/x.git"}, "no https:// url"),
        (7, "neither a path nor an object"),
    ],
)
def test_unsupported_entries_are_skipped_with_a_reason(source: object, why: str) -> None:
    entry = _one(source)
    assert entry.skipped is not None and why in entry.skipped


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"{", "is not valid JSON"),
        (b"[]", "must be a JSON object"),
        (b'{"plugins": {}}', "'plugins' must be a list"),
        (b'{"plugins": [{"source": "./x"}]}', "plugins[0] must be an object with a 'name'"),
    ],
)
def test_a_malformed_marketplace_names_the_file_and_field(data: bytes, message: str) -> None:
    with pytest.raises(MetapkgError) as raised:
        marketplace.parse(data, ".claude-plugin/marketplace.json")
    (diagnostic,) = raised.value.diagnostics
    assert diagnostic.rule == "marketplace" and message in diagnostic.message
    assert diagnostic.path == ".claude-plugin/marketplace.json"


def test_only_name_at_a_place_is_a_marketplace_request() -> None:
    assert marketplace.request("x@acme/market") == ("x", "acme/market")
    assert marketplace.request("x@file:../m") == ("x", "file:../m")
    assert marketplace.request("x@https://github.com/acme/m") == ("x", "https://github.com/acme/m")
    for other in ("acme/skills@v1", "git@github.com:o/r.git", "mcp:io.x/y@1.0", "skill@v1"):
        assert marketplace.request(other) is None
