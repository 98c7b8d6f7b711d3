"""The rule registry: every rule id is registered, every check rule has a failing and a
passing fixture, each invalid fixture set reports exactly its EXPECTED rules, and the
README's rule table is the generated one. In-process: no subprocess."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest
from conftest import CATALOGS, FIXTURES, REPO
from ruamel.yaml import YAML

from metapkg.actions.check import check
from metapkg.cli.check import PROFILES as CLI_PROFILES
from metapkg.packages.discover import BUCKETS
from metapkg.profiles import registry, table

INVALID = {
    "metaagents": CATALOGS / "invalid",
    "agentskills": FIXTURES / "profiles" / "agentskills" / "invalid",
    "metis": FIXTURES / "profiles" / "metis" / "invalid",
    "universal": FIXTURES / "profiles" / "universal" / "invalid",
}
CHECK_RULES = {r.id for r in registry.RULES.values() if r.when == "check"}


def _load(path: Path) -> dict[str, object]:
    data: dict[str, object] = YAML(typ="safe").load(path.read_text(encoding="utf-8"))
    return data


def _entry(diagnostic_path: str, root: Path) -> str:
    """The fixture a finding belongs to: a bucket entry, a top-level folder, or '.'."""
    relative = Path(diagnostic_path).relative_to(root) if diagnostic_path != str(root) else None
    if relative is None:
        return "."
    parts = relative.parts
    return "/".join(parts[:2]) if parts[0] in BUCKETS else parts[0]


def _found(profile: str, root: Path) -> dict[str, set[str]]:
    found: dict[str, set[str]] = defaultdict(set)
    for diagnostic in check([str(root)], [profile]).diagnostics:
        found[_entry(diagnostic.path, root)].add(diagnostic.rule)
    return found


@pytest.mark.parametrize("profile", sorted(INVALID))
def test_invalid_fixtures_report_exactly_the_expected_rules(profile: str) -> None:
    root = INVALID[profile]
    expected = {k: set(v) for k, v in _load(root / "EXPECTED.yaml").items()}  # type: ignore[call-overload]
    found = _found(profile, root)
    assert dict(found) == expected
    assert set().union(*found.values()) <= set(registry.profile(profile).rules)


def test_every_check_rule_has_a_failing_and_a_passing_fixture() -> None:
    failing: set[str] = set()
    for root in INVALID.values():
        for rules in _load(root / "EXPECTED.yaml").values():
            failing.update(rules)  # type: ignore[arg-type]
    passes = _load(FIXTURES / "profiles" / "PASSES.yaml")
    passing = {rule for rules in passes.values() for rule in rules}  # type: ignore[attr-defined]
    # agent.3md's validator rules: fail-<rule>*.3md / pass-<rule>.3md (tests/test_3md_validator)
    for name, found in _load(FIXTURES / "agent3md" / "EXPECTED.yaml").items():
        rules = {item.split(":")[0] for item in found}  # type: ignore[attr-defined]
        (failing if name.startswith("fail-") else passing).update(
            rules or {name.removeprefix("pass-").removesuffix(".3md")}
        )
    assert sorted(CHECK_RULES - failing) == [], "check rules without a failing fixture"
    assert sorted(CHECK_RULES - passing) == [], "check rules without a passing fixture"
    assert failing <= set(registry.RULES), "fixtures name rules the registry lacks"


def test_every_passing_fixture_is_clean_under_its_profile() -> None:
    passes = _load(FIXTURES / "profiles" / "PASSES.yaml")
    for profile, rules in passes.items():
        runner_rules = set(registry.profile(profile).rules)
        fixtures = set(rules.values())  # type: ignore[attr-defined]
        assert set(rules) <= runner_rules, f"{profile} does not run {set(rules) - runner_rules}"  # type: ignore[arg-type]
        for fixture in sorted(fixtures):
            report = check([str(FIXTURES / fixture)], [profile])
            assert report.diagnostics == (), (profile, fixture, report.diagnostics)
            assert report.packages >= 1


def _rule_ids_in_code() -> set[str]:
    """Literal rule ids passed to error()/warning()/X.single() anywhere in metapkg."""
    found = set()
    for path in (REPO / "metapkg").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            first = node.args[0]
            if (
                name in ("error", "warning", "single")
                and isinstance(first, ast.Constant)
                and isinstance(first.value, str)
            ):
                found.add(first.value)
    return found


def test_every_rule_id_metapkg_reports_is_registered() -> None:
    unregistered = _rule_ids_in_code() - set(registry.RULES)
    assert sorted(unregistered) == []


def test_rules_name_their_profile_and_carry_a_separate_hint() -> None:
    for rule in registry.RULES.values():
        assert rule.profile in registry.PROFILES
        prefix = rule.id.split("/")[0] if "/" in rule.id else "metaagents"
        assert prefix == rule.profile, rule.id
        assert rule.summary and rule.hint and rule.hint != rule.summary
    for name in registry.PROFILES:
        assert set(registry.profile(name).rules) <= set(registry.RULES)
    assert tuple(registry.PROFILES) == CLI_PROFILES


def test_readme_rule_table_is_the_generated_one() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert table.replace_in(readme) == readme, "run scripts/rules-table and commit README.md"
