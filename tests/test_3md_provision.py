"""Provisioning a .3md agent: the exact bytes hosts get, checked file by file.

The golden files are tests/snapshots/agent3md/dev/ (agent.md and skills/<name>/SKILL.md),
made from registry-fixtures/agent3md/catalog/agents/dev/dev.3md. After a deliberate change
to the output, rewrite them with ``METAPKG_UPDATE_SNAPSHOTS=1 pytest tests/test_3md_provision.py``
and review the diff.
"""

from __future__ import annotations

import os

import pytest
from conftest import FIXTURES, REPO
from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from metapkg.agent3md import Provisioned, provision, validate
from metapkg.diagnostics import PackageError

SOURCE = FIXTURES / "agent3md" / "catalog" / "agents" / "dev" / "dev.3md"
SNAPSHOTS = REPO / "tests" / "snapshots" / "agent3md" / "dev"


def _files(out: Provisioned) -> dict[str, bytes]:
    files = {"agent.md": out.agent_file}
    for skill, tree in out.skills.items():
        files.update({f"skills/{skill}/{path}": data for path, data in tree.items()})
    return files


def test_output_matches_the_snapshots_file_by_file() -> None:
    files = _files(provision(SOURCE.read_text(encoding="utf-8"), SOURCE.name))
    if os.environ.get("METAPKG_UPDATE_SNAPSHOTS") == "1":
        for relative, data in files.items():
            (SNAPSHOTS / relative).parent.mkdir(parents=True, exist_ok=True)
            (SNAPSHOTS / relative).write_bytes(data)
    on_disk = {p.relative_to(SNAPSHOTS).as_posix() for p in SNAPSHOTS.rglob("*") if p.is_file()}
    assert sorted(files) == sorted(on_disk)
    for relative, data in files.items():
        assert data.decode() == (SNAPSHOTS / relative).read_text(encoding="utf-8"), relative


def test_output_is_byte_stable_across_line_endings_and_bom() -> None:
    text = SOURCE.read_text(encoding="utf-8")
    first = provision(text, SOURCE.name)
    assert provision(text, SOURCE.name) == first
    assert provision("\ufeff" + text.replace("\n", "\r\n"), SOURCE.name) == first


def test_frontmatter_is_yaml_hosts_read_back() -> None:
    tricky = (
        '---\n3md: 1.0\nagent: odd\ndescription: "say \\"hi\\": #1 \\\\ ok\x07"\n---\n'
        "@plane z=0 kind=identity\nHi.\n\n"
        '@plane z=1 label="Look Up!" triggers="look up, ask: why"\n'
        "# Look up\n\nFinds \u2028things\ttabbed: `a` [[z=0]] and " + "x" * 1100 + "\n"
    )
    out = provision(tricky, "odd.3md")
    assert list(out.skills) == ["look-up"]
    agent = _frontmatter(out.agent_file)
    assert agent == {"name": "odd", "description": 'say "hi": #1 \\ ok\x07'}
    skill = _frontmatter(out.skills["look-up"]["SKILL.md"])
    assert skill["name"] == "look-up"
    assert skill["description"].startswith("Finds things tabbed: `a` odd and…")
    assert skill["description"].endswith("… Use when the request mentions: look up, ask: why.")
    assert len(skill["description"]) <= 1024


def _frontmatter(data: bytes) -> dict[str, str]:
    head = data.decode().split("---\n")[1]
    loaded: dict[str, str] = YAML(typ="safe").load(head)
    return loaded


@pytest.mark.parametrize(
    ("text", "rules"),
    [
        ("---\n3md: 1.0\n---\n@plane z=x\n", ["parse"]),
        (
            "---\n3md: 1.0\n---\n@plane z=0\n@plane z=1 label=a\n[[z=5]]\n",
            ["frontmatter", "dead-link"],
        ),
        ("---\n3md: 1.0\ntitle: 日本\n---\n@plane z=0\nx\n", ["name"]),
        (
            "---\n3md: 1.0\nagent: a\n---\n@plane z=0\n@plane z=1 label=A\n@plane z=2 label=a\n",
            ["skill-name"],
        ),
    ],
)
def test_an_invalid_agent_is_refused_with_diagnostics(text: str, rules: list[str]) -> None:
    with pytest.raises(PackageError) as raised:
        provision(text, "x.3md")
    assert [d.rule for d in raised.value.diagnostics] == rules
    assert all(d.path == "x.3md" for d in raised.value.diagnostics)


_PIECES = [
    "---\n", "3md: 1.0\n", "agent: a\n", "@plane ", "z=0 ", "z=1 ", "z=1e999 ", 'label="x" ',
    'label="', "kind=identity ", 'triggers="a" ', 'inputs="p:string?, q" ', 'tool="rg {p}" ',
    "'", '"', "\\", "\n", "[[z=1]]", "[[z=1|", "```\n", "\r\n", "\ufeff", "\u2028", "é", "\t",
]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=40), st.booleans())
def test_any_text_is_judged_or_refused_never_crashes(pieces: list[str], head: bool) -> None:
    text = ("---\n3md: 1.0\nagent: a\n---\n" if head else "") + "".join(pieces)
    report = validate(text)
    try:
        out = provision(text, "a.3md")
    except PackageError as exc:
        rules = {d.rule for d in exc.diagnostics}  # the validator's errors, or naming ones
        assert rules and (not report.ok or rules <= {"skill-name", "name"})
    else:
        assert report.ok and provision(text, "a.3md") == out
