"""`metapkg check` end to end on the fixture catalogs, through the real CLI."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest
from conftest import CATALOGS, run_cli
from ruamel.yaml import YAML

from metapkg.agent3md import ERROR_RULES, WARNING_RULES
from metapkg.profiles.registry import RULES, profile

# Every rule the default profile runs, but agent3md/1's own (registry-fixtures/agent3md and
# tests/test_3md_validator.py cover those); the registry says which are warnings.
ALL_RULES = set(profile("metaagents").rules) - (set(ERROR_RULES + WARNING_RULES) - {"frontmatter"})


@pytest.mark.parametrize("catalog", ["valid", "shared-skills", "metaskills"])
def test_valid_catalogs_pass_clean(catalog: str) -> None:
    result = run_cli("check", f"registry-fixtures/catalogs/{catalog}")
    assert result.code == 0, result.out
    assert "0 error(s), 0 warning(s)" in result.out


def _entry(path: str) -> str:
    parts = Path(path).relative_to("registry-fixtures/catalogs/invalid").parts
    return "/".join(parts[:2])


def test_invalid_catalog_reports_exactly_the_expected_rules() -> None:
    expected = YAML(typ="safe").load((CATALOGS / "invalid" / "EXPECTED.yaml").read_text())
    result = run_cli("check", "--json", "registry-fixtures/catalogs/invalid")
    assert result.code == 1
    payload = result.json
    assert payload["ok"] is False
    found: dict[str, set[str]] = defaultdict(set)
    for diagnostic in payload["diagnostics"]:
        found[_entry(diagnostic["path"])].add(diagnostic["rule"])
        registered = RULES[diagnostic["rule"]]
        assert diagnostic["severity"] == registered.severity
        assert diagnostic["profile"] == registered.profile
        assert diagnostic["hint"] == registered.hint
        assert diagnostic["message"]
    assert {k: sorted(v) for k, v in found.items()} == {k: sorted(v) for k, v in expected.items()}
    assert set().union(*found.values()) == ALL_RULES


def test_human_output_has_path_line_rule_and_summary() -> None:
    result = run_cli("check", "registry-fixtures/catalogs/invalid/skills/bad-version-float")
    assert result.code == 1
    lines = result.out.splitlines()
    assert lines[0].startswith(
        "registry-fixtures/catalogs/invalid/skills/bad-version-float/SKILL.md:"
    )
    assert "error[version]" in lines[0] and "quote" in lines[0]
    assert lines[-1] == "checked 1 package: 1 error(s), 0 warning(s)"


def test_warnings_alone_exit_zero(tmp_path: Path) -> None:
    result = run_cli("check", "registry-fixtures/catalogs/invalid/skills/bad-origin-object")
    assert result.code == 0, result.out
    assert "warning[origin-object]" in result.out


def test_single_mcp_file_and_skill_md_path() -> None:
    result = run_cli(
        "check",
        "registry-fixtures/catalogs/valid/mcps/io.playwright_mcp.json",
        "registry-fixtures/catalogs/valid/skills/git-pr/SKILL.md",
    )
    assert result.code == 0, result.out
    assert "checked 2 packages" in result.out


def test_usage_errors_exit_two() -> None:
    assert run_cli("check", "no/such/path").code == 2
    assert run_cli("check", "--no-such-flag").code == 2
    assert run_cli("frobnicate").code == 2


def test_a_folder_without_packages_fails_with_a_clear_message(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("# Not a package\n")
    (tmp_path / "docs").mkdir()
    result = run_cli("check", str(tmp_path))
    assert result.code == 1
    assert "error[layout]: no package found" in result.out
    assert "checked 0 packages: 1 error(s)" in result.out
