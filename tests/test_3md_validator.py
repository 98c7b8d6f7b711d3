"""agent3md/1 validation: the fixtures in registry-fixtures/agent3md/ and the finer points of
the reference's semantics."""

from __future__ import annotations

import pytest
from conftest import FIXTURES
from ruamel.yaml import YAML

from metapkg.agent3md import ERROR_RULES, WARNING_RULES, validate
from metapkg.agent3md.package import check_document

AGENT3MD = FIXTURES / "agent3md"
EXPECTED: dict[str, list[str]] = YAML(typ="safe").load((AGENT3MD / "EXPECTED.yaml").read_text())
HEAD = "---\n3md: 1.0\nagent: a\n---\n"


def test_every_rule_has_a_failing_and_a_passing_fixture() -> None:
    rules = {*ERROR_RULES, *WARNING_RULES}
    assert {p.name for p in AGENT3MD.glob("*.3md")} == set(EXPECTED)
    failed = set()
    for name, found in EXPECTED.items():
        broken = {entry.split(":")[0] for entry in found}
        if name.startswith("fail-"):
            assert len(broken) == 1, f"{name} should break one rule, not {broken}"
            assert name.startswith(f"fail-{next(iter(broken))}"), name
            failed |= broken
        else:
            assert name.startswith("pass-") and not broken, name
    assert failed == rules
    assert {f"pass-{rule}.3md" for rule in rules} <= set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_fixture_reports_exactly_what_expected_says(name: str) -> None:
    found = check_document(AGENT3MD / name, name)
    assert [f"{d.rule}:{d.line}" for d in found] == EXPECTED[name]
    for diagnostic in found:
        severity = "warning" if diagnostic.rule in WARNING_RULES else "error"
        assert diagnostic.severity == severity
        assert diagnostic.path == name
        if diagnostic.rule not in ("parse", "frontmatter", "entry", "identity"):
            assert diagnostic.message.startswith("plane z=")


def test_parse_failure_is_the_only_finding() -> None:
    # Also no name, two identities and a dead link: none of it is reported.
    report = validate("---\n3md: 1.0\n---\n@plane z=0 kind=identity\n[[z=9]]\n@plane z=nan\n")
    assert [(f.rule, f.line) for f in report.findings] == [("parse", 6)]
    assert "invalidPlaneDirective" in report.findings[0].message
    assert report.document is None and not report.ok


def test_a_cycle_is_reported_once_at_the_plane_its_back_link_reaches() -> None:
    source = HEAD + (
        "@plane z=0 kind=identity\nUses [[z=1]].\n"
        '@plane z=1 label="a" triggers="a"\n[[z=2]] [[z=3]]\n'
        '@plane z=2 label="b" triggers="b"\n[[z=1]]\n'
        '@plane z=3 label="c" triggers="c"\n[[z=3]]\n'
    )
    findings = validate(source).findings
    assert [(f.rule, f.z) for f in findings] == [("cycle", 1)]


def test_agent_links_are_integers_only() -> None:
    # [[z=2.5]] is a 3md link to a missing plane, but not an agent dependency.
    source = (
        HEAD
        + "@plane z=0 kind=identity\n[[z=2.5]] [[z=-1]] [[z=02|x]]\n"
        + '@plane z=2 label="s" triggers="s"\n'
    )
    assert validate(source).findings == ()


def test_identity_falls_back_to_the_first_plane_in_source_order() -> None:
    # No kind=identity: the first plane (z=5) is the identity, z=1 is the one skill.
    source = HEAD + '@plane z=5\nI am the agent.\n@plane z=1 label="s"\n'
    report = validate(source)
    assert [(f.rule, f.z) for f in report.findings] == [("triggers", 1)]


def test_a_document_without_planes_or_name_reports_both() -> None:
    report = validate("---\n3md: 1.0\ntitle: ''\n---\n\n")
    assert [f.rule for f in report.findings] == ["frontmatter", "identity"]
