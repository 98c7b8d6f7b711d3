import pytest

from metapkg.packages import changelog
from metapkg.packages.semver import Range, RangeError, SemVer, bump, is_semver


def test_semver_grammar_and_order() -> None:
    assert is_semver("1.2.3") and is_semver("1.0.0-rc.1+build.5")
    assert not is_semver("1.0") and not is_semver("01.0.0") and not is_semver("v1.0.0")
    ordered = ["1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-beta", "1.0.0", "1.0.1", "1.10.0", "2.0.0"]
    parsed = [SemVer.parse(v) for v in ordered]
    assert sorted(parsed, key=lambda v: v.sort_key()) == parsed  # type: ignore[union-attr]


def test_bump_sizes() -> None:
    assert bump("1.2.3", "2.0.0") == "major"
    assert bump("1.2.3", "1.3.0") == "minor"
    assert bump("1.2.3", "1.2.4") == "patch"
    assert bump("1.2.3", "1.2.3") is None


def test_changelog_parse_ignores_subsections_and_code() -> None:
    text = (
        "# Changelog\n\n## 1.1.0 (2026-04-17)\n### Added\n- x\n"
        "```\n## not a header\n```\n\n## 1.0.0 (2026-01-02)\n- first\n"
    )
    entries, diags = changelog.parse(text, "CHANGELOG.md")
    assert diags == []
    assert [(e.version, e.date, e.line) for e in entries] == [
        ("1.1.0", "2026-04-17", 3),
        ("1.0.0", "2026-01-02", 10),
    ]
    assert "### Added" in entries[0].body


def test_changelog_between() -> None:
    entries, _ = changelog.parse(
        "## 1.2.0 (2026-03-01)\n## 1.1.0 (2026-02-01)\n## 1.0.0 (2026-01-01)\n", "C"
    )
    assert [e.version for e in changelog.between(entries, "1.0.0", "1.2.0")] == ["1.2.0", "1.1.0"]
    assert [e.version for e in changelog.between(entries, None, "1.1.0")] == ["1.1.0", "1.0.0"]


def test_version_numbers_are_capped_at_16_digits() -> None:
    """Past 4,300 digits int() refuses (ValueError); the grammar stops at 16, as npm does."""
    assert is_semver("9999999999999999.0.0-1234567890123456")
    assert not is_semver("1" + "0" * 16 + ".0.0")
    assert not is_semver("1.0.0-" + "9" * 5000)
    assert SemVer.parse("9" * 5000 + ".0.0") is None


def test_a_changelog_header_with_a_huge_number_says_so() -> None:
    _, diags = changelog.parse(f"## {'9' * 5000}.0.0 (2026-01-15)\n\n## 1.0.0 (2026-01-14)\n", "C")
    assert [(d.rule, d.line) for d in diags] == [("changelog-header", 1)]
    assert "at most 16 digits" in diags[0].message and len(diags[0].message) < 200


def test_ranges_refuse_huge_numbers_and_huge_texts() -> None:
    assert Range.parse("^9999999999999999.1").contains("9999999999999999.2.0")
    with pytest.raises(RangeError, match="at most 16 digits"):
        Range.parse(">=1." + "9" * 40)
    with pytest.raises(RangeError, match="5000 characters long; a range is at most 1024"):
        Range.parse("9" * 5000)
    assert Range.parse(" || ".join(["^1.2"] * 120)).contains("1.5.0")  # 956 characters
