"""Profiles: agreement with the agentskills.io reference validator, several profiles at
once, install-time host findings, host limits."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import FIXTURES, run_cli
from ruamel.yaml import YAML

from metapkg.actions.check import check
from metapkg.packages.load import load_package
from metapkg.profiles.base import Target
from metapkg.profiles.registry import findings, host_findings, profile

AGENTSKILLS = FIXTURES / "profiles" / "agentskills"


def _skill_folders() -> list[Path]:
    return sorted(
        p
        for group in ("invalid", "valid")
        for p in (AGENTSKILLS / group).iterdir()
        if (p / "SKILL.md").is_file()
    )


def test_agentskills_agrees_with_skills_ref_where_the_spec_is_clear() -> None:
    validator = pytest.importorskip("skills_ref.validator")
    differs = YAML(typ="safe").load((AGENTSKILLS / "SKILLS-REF.yaml").read_text("utf-8"))
    runner = profile("agentskills")
    disagreements = set()
    for folder in _skill_folders():
        ours = runner.check(Target(folder, folder.name, "skill", folder.name))
        ours_ok = not any(d.severity == "error" for d in ours)
        theirs_ok = validator.validate(folder) == []
        if ours_ok != theirs_ok:
            disagreements.add(folder.name)
    # Exactly the documented cases differ: an undocumented difference fails, and so does
    # a documented one that no longer differs.
    assert disagreements == set(differs)


def test_several_profiles_at_once_each_finding_names_its_profile() -> None:
    skill = "registry-fixtures/repos/name-mismatch/skills/web-testing"
    result = run_cli(
        "check", "--json", "--profile", "agentskills", "--profile", "metis", "--profile",
        "metaagents", skill,
    )  # fmt: skip
    assert result.code == 1
    payload = result.json
    assert payload["profiles"] == ["agentskills", "metis", "metaagents"]
    by_profile = {(d["profile"], d["rule"]) for d in payload["diagnostics"]}
    assert by_profile == {
        ("agentskills", "agentskills/name"),
        ("metis", "metis/name"),
        ("metaagents", "name-dir"),
        ("metaagents", "version"),
        ("metaagents", "changelog-missing"),
    }
    assert all(d["hint"] for d in payload["diagnostics"])


def test_list_rules_prints_every_rule_with_profile_and_hint() -> None:
    result = run_cli("check", "--list-rules", "--json")
    assert result.code == 0
    rules = {r["id"]: r for r in result.json}
    assert rules["mcp-control-char"]["profile"] == "metaagents"
    assert rules["metis/name"]["profile"] == "metis"
    assert rules["cycle"]["when"] == "install"
    assert all(r["hint"] for r in rules.values())


def _installed(folder: Path) -> object:
    loaded = load_package(folder, folder.name, consumer=True)
    assert loaded.package is not None and loaded.ok, loaded.diagnostics
    return loaded.package


def test_host_findings_are_errors_only_where_the_host_refuses() -> None:
    mismatch = _installed(FIXTURES / "repos/name-mismatch/skills/web-testing")
    # Metis skips a skill whose name is not its folder: it would refuse this one.
    metis = host_findings(mismatch, "metis")  # type: ignore[arg-type]
    assert [(d.rule, d.severity) for d in metis] == [("metis/name", "error")]
    # Agent Skills clients warn and load anyway.
    lenient = host_findings(mismatch, "agentskills")  # type: ignore[arg-type]
    assert [(d.rule, d.severity) for d in lenient] == [("agentskills/name", "warning")]
    # The raw findings keep the profile's own severity.
    assert findings(mismatch, "agentskills")[0].severity == "error"  # type: ignore[arg-type]
    plain = _installed(FIXTURES / "repos/single-skill")
    assert host_findings(plain, "universal") == []  # type: ignore[arg-type]
    assert [d.rule for d in findings(plain, "metaagents")] == ["not-metaagents"]  # type: ignore[arg-type]


def test_universal_host_limit_on_total_size(tmp_path: Path) -> None:
    skill = tmp_path / "big-assets"
    skill.mkdir()
    (skill / "SKILL.md").write_text("---\nname: big-assets\ndescription: Ships assets.\n---\n")
    with open(skill / "model.bin", "wb") as handle:
        handle.truncate(9 * 1024 * 1024)  # sparse: costs no disk
    found = check([str(skill)], ["universal"]).diagnostics
    assert [(d.rule, d.severity) for d in found] == [("universal/host-limits", "error")]
    assert "9.0 MB" in found[0].message
    (skill / "model.bin").unlink()
    assert check([str(skill)], ["universal"]).diagnostics == ()


def test_non_skill_packages_are_outside_the_skill_dialects() -> None:
    catalog = FIXTURES / "catalogs" / "valid"
    for name in ("agentskills", "metis", "universal"):
        report = check([str(catalog / "agents"), str(catalog / "mcps")], [name])
        assert report.diagnostics == ()
        assert report.packages == 5
