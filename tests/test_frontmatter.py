"""Parser edge cases for AGENTS.md / SKILL.md frontmatter."""

import pytest

from metapkg.packages.frontmatter import FrontmatterProblem, parse

VALID = "---\nname: x\ndescription: d\nversion: 1.0.0\n---\n# Body\n"


def test_valid_with_body_and_lines() -> None:
    fm = parse(VALID)
    assert fm.fields == {"name": "x", "description": "d", "version": "1.0.0"}
    assert fm.line("version") == 4
    assert fm.body == "# Body\n"
    assert fm.body_line == 6


def test_crlf_and_bom_are_tolerated() -> None:
    fm = parse("\ufeff" + VALID.replace("\n", "\r\n"))
    assert fm.fields["name"] == "x"
    assert fm.line("description") == 3


@pytest.mark.parametrize(
    ("text", "needle", "line"),
    [
        ("name: x\n", "must start with a '---'", 1),
        ("---\nname: x\n", "never closed", 1),
        ("---\n---\nbody\n", "frontmatter is empty", 1),
        ("---\n- a\n- b\n---\n", "must be a YAML mapping", 2),
        ("---\njust text\n---\n", "must be a YAML mapping", 2),
        ("---\nname: x\nname: y\n---\n", "duplicate key 'name'", 3),
        ("---\nname: !!python/object:os.system x\n---\n", "tag !!python/object", 2),
        ("---\nname: !custom x\n---\n", "tag !custom", 2),
        ("---\nname: [x\n---\n", "invalid YAML", None),
    ],
)
def test_broken_frontmatter(text: str, needle: str, line: int | None) -> None:
    with pytest.raises(FrontmatterProblem) as info:
        parse(text)
    assert needle in info.value.message
    if line is not None:
        assert info.value.line == line


def test_yaml_tags_are_never_constructed(tmp_path: object) -> None:
    # A tag that PyYAML's unsafe loader would execute must be refused before construction.
    text = "---\nx: !!python/object/apply:os.system ['touch /tmp/metapkg-pwned']\n---\n"
    with pytest.raises(FrontmatterProblem):
        parse(text)


def test_float_version_is_reported_as_float() -> None:
    fm = parse("---\nversion: 1.0\n---\n")
    assert fm.fields["version"] == 1.0
