"""`--json` wherever the output is data: tree, why, verify."""

from __future__ import annotations

from pathlib import Path

from conftest import file_origin, make_mcp, make_skill, write_manifest


def _project(tmp_path: Path) -> Path:
    cat = tmp_path / "cat"
    server = make_mcp(cat, "io.acme/db")
    base = make_skill(cat, "base", mcps=[file_origin(server)])
    left = make_skill(cat, "left", skills=[file_origin(base)])
    right = make_skill(cat, "right", skills=[file_origin(base)])
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(left), file_origin(right)])
    return project


def test_tree_why_and_verify_as_json(cli, tmp_path: Path) -> None:
    project = _project(tmp_path)
    assert cli("install", cwd=project).code == 0

    tree = cli("tree", "--json", cwd=project).json
    assert tree["requires"] == [
        {"kind": "skill", "fqn": "acme/left"},
        {"kind": "skill", "fqn": "acme/right"},
    ]
    base = next(p for p in tree["packages"] if p["fqn"] == "acme/base")
    assert base == {
        "kind": "skill",
        "fqn": "acme/base",
        "version": "1.0.0",
        "dependencies": [{"kind": "mcp", "fqn": "io.acme/db"}],
    }

    why = cli("why", "io.acme/db", "--json", cwd=project).json
    assert [[step["fqn"] for step in chain] for chain in why["chains"]] == [
        ["acme/left", "acme/base", "io.acme/db"],
        ["acme/right", "acme/base", "io.acme/db"],
    ]

    clean = cli("verify", "--json", cwd=project)
    assert clean.code == 0 and clean.json["ok"] is True and clean.json["drifts"] == []
    (project / ".agents/skills/base/SKILL.md").unlink()
    drift = cli("verify", "--json", cwd=project)
    assert drift.code == 1 and drift.json["ok"] is False
    assert {"kind": "missing", "path": ".agents/skills/base/SKILL.md", "detail": ""} in drift.json[
        "drifts"
    ]
