"""Plugin marketplaces as catalogs, through the real CLI and the loopback GitHub:
``add NAME@MARKETPLACE`` (a local ``./plugins/x`` entry, a ``github`` entry locked at its
``sha``, a ``git-subdir`` entry), ``add MARKETPLACE --all`` (skip-and-report), an unknown
name and a malformed marketplace.json."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from ghfixtures import GH, make_gh
from mcpregistry import FakeRegistry, serve


@pytest.fixture
def gh(tmp_path: Path) -> Iterator[GH]:
    yield from make_gh(tmp_path)


def _plugin(name: str, skill: str, where: str = "") -> dict[str, str]:
    base = f"{where}/" if where else ""
    manifest = {"name": name, "description": f"The {name} plugin"}
    return {
        f"{base}.claude-plugin/plugin.json": json.dumps(manifest),
        f"{base}skills/{skill}/SKILL.md": (
            f"---\nname: {skill}\ndescription: The {skill} skill of {name}\n---\nDo {skill}.\n"
        ),
    }


def _market(gh: GH, plugins: list[object] | None = None) -> dict[str, str]:
    old = gh.repo("acme/tools", {"c1": {"files": _plugin("tools", "old-tool")}})["c1"]
    gh.commit("acme/tools", "c2", {"files": _plugin("tools", "new-tool")})
    gh.server.set_branch("acme", "tools", "main", "c2")
    gh.repo("acme/mono", {"c1": {"files": _plugin("sub", "sub-skill", "packs/sub")}})
    listed = plugins or [
        {"name": "local", "source": "./plugins/local", "description": "A local plugin"},
        {
            "name": "tools",
            "source": {"source": "github", "repo": "acme/tools", "sha": old},
            "description": "Tools, at a fixed commit",
        },
        {
            "name": "sub",
            "source": {
                "source": "git-subdir",
                "url": "https://github.com/acme/mono.git",
                "path": "packs/sub",
                "ref": "main",
            },
        },
        {"name": "from-npm", "source": {"source": "npm", "package": "@acme/x"}},
    ]
    document = {"name": "acme-market", "owner": {"name": "Acme"}, "plugins": listed}
    files = {
        ".claude-plugin/marketplace.json": json.dumps(document),
        **_plugin("local", "hello", "plugins/local"),
    }
    gh.repo("acme/market", {"c1": {"files": files}})
    (gh.project / "metapkg.yaml").write_text(
        "dependencies:\n  skills: []\ntargets: [claude]\n", encoding="utf-8"
    )
    return {"old": old}


def test_add_name_at_marketplace_installs_the_local_plugin_and_says_where_it_came_from(
    gh: GH,
) -> None:
    _market(gh)
    added = gh.run("add", "local@acme/market")
    assert added.code == 0, added.err
    assert (gh.project / ".claude/skills/local-hello/SKILL.md").is_file() or (
        gh.project / ".claude/skills/hello/SKILL.md"
    ).is_file()
    text = (gh.project / "metapkg.yaml").read_text()
    assert "https://github.com/acme/market/tree/main/plugins/local" in text
    assert "# local from marketplace acme-market (acme/market at " in text
    assert gh.packages()["local"]["kind"] == "plugin"


def test_a_github_entry_with_a_sha_is_locked_at_exactly_that_commit(gh: GH) -> None:
    old = _market(gh)["old"]
    added = gh.run("add", "tools@https://github.com/acme/market")
    assert added.code == 0, added.err
    text = (gh.project / "metapkg.yaml").read_text()
    assert f"https://github.com/acme/tools/tree/{old}" in text
    assert gh.packages()["tools"]["commit"] == old
    skills = gh.project / ".claude/skills"
    assert any(p.name.endswith("old-tool") for p in skills.iterdir())
    assert not any(p.name.endswith("new-tool") for p in skills.iterdir())


def test_a_git_subdir_entry_installs_its_folder(gh: GH) -> None:
    _market(gh)
    added = gh.run("add", "sub@acme/market")
    assert added.code == 0, added.err
    assert (
        "https://github.com/acme/mono/tree/main/packs/sub"
        in (gh.project / "metapkg.yaml").read_text()
    )
    assert gh.packages()["sub"]["kind"] == "plugin"


def test_add_marketplace_all_adds_every_plugin_and_reports_the_rest(gh: GH) -> None:
    _market(gh)
    added = gh.run("add", "acme/market", "--all")
    assert added.code == 0, added.err
    assert set(gh.packages()) >= {"local", "tools", "sub"}
    assert "from-npm not added" in added.err
    assert "'npm' is not supported" in added.err


def test_an_unknown_name_lists_what_the_marketplace_holds(gh: GH) -> None:
    _market(gh)
    before = (gh.project / "metapkg.yaml").read_text()
    added = gh.run("add", "nope@acme/market")
    assert added.code != 0
    assert "lists no plugin nope" in added.err
    assert "local, tools, sub, from-npm" in added.err
    assert (gh.project / "metapkg.yaml").read_text() == before


def test_a_malformed_marketplace_is_a_clear_diagnostic(gh: GH) -> None:
    _market(gh, plugins=[{"source": "./x"}])
    added = gh.run("add", "x@acme/market")
    assert added.code != 0
    assert "Traceback" not in added.err
    assert "acme/market/.claude-plugin/marketplace.json: error[marketplace]" in added.err
    assert "plugins[0] must be an object with a 'name' string" in added.err


def test_a_local_marketplace_folder(gh: GH, tmp_path: Path) -> None:
    market = tmp_path / "market"
    for relative, text in {
        ".claude-plugin/marketplace.json": json.dumps(
            {"name": "m", "plugins": [{"name": "local", "source": "./plugins/local"}]}
        ),
        **_plugin("local", "hello", "plugins/local"),
    }.items():
        (market / relative).parent.mkdir(parents=True, exist_ok=True)
        (market / relative).write_text(text)
    (gh.project / "metapkg.yaml").write_text("dependencies:\n  skills: []\ntargets: [claude]\n")
    added = gh.run("add", f"local@file:{market}")
    assert added.code == 0, added.err
    assert gh.packages()["local"]["kind"] == "plugin"


def test_search_lists_a_marketplace_s_plugins_as_json(gh: GH) -> None:
    _market(gh)
    found = gh.run("search", "tool", "--marketplace", "acme/market", "--json")
    assert found.code == 0, found.err
    results = json.loads(found.out)["results"]
    assert [(r["name"], r["add"], r["kind"]) for r in results] == [
        ("tools", "tools@acme/market", "plugin")
    ]
    assert results[0]["source"] == "marketplace acme-market"


def test_search_reads_the_marketplaces_listed_in_metapkg_yaml(gh: GH, tmp_path: Path) -> None:
    market = tmp_path / "market"
    (market / ".claude-plugin").mkdir(parents=True)
    plugins = [{"name": "weather", "source": "./w", "description": "Forecasts"}]
    (market / ".claude-plugin/marketplace.json").write_text(json.dumps({"plugins": plugins}))
    (gh.project / "metapkg.yaml").write_text(
        f"dependencies:\n  skills: []\nmarketplaces: ['file:{market}']\n"
    )
    with serve(FakeRegistry.from_folder()) as registry:
        found = gh.run(
            "search", "forecast", "--json", env={"METAPKG_MCP_REGISTRY_URL": registry.url}
        )
    assert found.code == 0, found.err
    results = json.loads(found.out)["results"]
    assert [(r["name"], r["add"]) for r in results] == [("weather", f"weather@file:{market}")]
    assert registry.requests  # the MCP Registry was asked too
