"""actions/choosing.py: which of a folder's packages `add` takes (pure, in-process)."""

from __future__ import annotations

from pathlib import Path

import pytest

from metapkg.actions.choosing import Choice, choose
from metapkg.diagnostics import Diagnostic, UsageError
from metapkg.packages.discover import Discovery, Found


def _found(*packages: tuple[str, str]) -> Discovery:
    """(folder path, declared name) pairs."""
    return Discovery([Found(Path(p), p, "skill", name) for p, name in packages])


def _where(found: Found) -> str:
    return f"URL/{found.display}"


def _choose(found: Discovery, choice: Choice) -> tuple[list[str], list[Diagnostic]]:
    skipped: list[Diagnostic] = []
    chosen = choose("SRC", found, choice, _where, skipped.append)
    return [f.display for f in chosen], skipped


SHAPES = _found(
    ("skills/brainstorming", "brainstorming"),
    ("plugins/x/skills/brainstorming", "brainstorming"),
    ("skills/react-patterns", "acme-react-patterns"),
    ("skills/pdf", "pdf"),
)


def test_skill_matches_the_declared_name_then_the_folder() -> None:
    assert _choose(SHAPES, Choice(("acme-react-patterns",)))[0] == ["skills/react-patterns"]
    assert _choose(SHAPES, Choice(("react-patterns",)))[0] == ["skills/react-patterns"]
    assert _choose(SHAPES, Choice(("pdf", "pdf")))[0] == ["skills/pdf"]


def test_a_shared_name_is_an_error_listing_every_url() -> None:
    with pytest.raises(UsageError) as raised:
        _choose(SHAPES, Choice(("brainstorming",)))
    message = raised.value.diagnostics[0].message
    assert "2 different packages are named brainstorming" in message
    assert "URL/skills/brainstorming, URL/plugins/x/skills/brainstorming" in message


def test_all_skips_each_shared_name_with_the_others_named() -> None:
    chosen, skipped = _choose(SHAPES, Choice(every=True))
    assert chosen == ["skills/react-patterns", "skills/pdf"]
    assert [(d.rule, d.severity, d.path) for d in skipped] == [
        ("duplicate-name", "warning", "URL/skills/brainstorming"),
        ("duplicate-name", "warning", "URL/plugins/x/skills/brainstorming"),
    ]
    assert "also URL/plugins/x/skills/brainstorming" in skipped[0].message


def test_no_choice_lists_the_names_with_their_counts() -> None:
    with pytest.raises(UsageError) as raised:
        _choose(SHAPES, Choice())
    message = raised.value.diagnostics[0].message
    assert "holds 4 packages: acme-react-patterns, brainstorming (2 folders), pdf" in message
    assert _choose(_found(("skills/pdf", "pdf")), Choice())[0] == ["skills/pdf"]


def test_an_unknown_name_lists_what_is_there() -> None:
    with pytest.raises(UsageError) as raised:
        _choose(SHAPES, Choice(("nope",)))
    assert "no package nope here; it holds acme-react-patterns" in str(raised.value.diagnostics)


def test_all_skips_folders_that_would_land_in_one_place() -> None:
    found = _found(("skills/pdf", "pdf"), ("plugins/docs/skills/pdf", "docs-pdf"), ("a", "a"))
    chosen, skipped = _choose(found, Choice(every=True))
    assert chosen == ["a"]
    assert [d.path for d in skipped] == ["URL/skills/pdf", "URL/plugins/docs/skills/pdf"]


def test_a_blob_url_of_an_agents_md_asks_for_that_agent() -> None:
    from metapkg.sources_input import parse_source

    base = Path("/nowhere")
    root = parse_source("https://github.com/o/r/blob/main/AGENTS.md", base)
    assert root.agents_md and str(root.origin) == "https://github.com/o/r/tree/main"
    assert parse_source("https://github.com/o/r/blob/main/agents/x/AGENTS.md", base).agents_md
    assert not parse_source("https://github.com/o/r/blob/main/skills/x/SKILL.md", base).agents_md
    assert not parse_source("https://github.com/o/r/tree/main", base).agents_md
