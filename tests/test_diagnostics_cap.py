"""At most 20 findings of one rule in one file, then a count (issue 28, item 14)."""

from __future__ import annotations

from metapkg.diagnostics import capped, error, warning


def test_findings_past_the_cap_become_one_count_in_their_place() -> None:
    found = [error("dead-link", "a.3md", f"link {i}", 3) for i in range(25)]
    found.insert(5, warning("other", "a.3md", "kept"))
    found.append(error("dead-link", "b.3md", "another file", 1))
    shown = capped(found, limit=20)
    assert [d.message for d in shown[:6]] == [
        "link 0",
        "link 1",
        "link 2",
        "link 3",
        "link 4",
        "kept",
    ]
    summary = shown[21]  # after the 20 links and the warning
    assert summary.omitted == 5 and summary.rule == "dead-link" and summary.path == "a.3md"
    assert summary.message == "... and 5 more `dead-link` findings in a.3md (the first 20 shown)"
    assert shown[-1].message == "another file"
    assert len(shown) == 23
    assert capped(shown, limit=20) == shown  # capping twice changes nothing
    assert summary.as_json()["omitted"] == 5 and "omitted" not in shown[0].as_json()


def test_the_count_is_written_with_thousands_separators() -> None:
    shown = capped(error("dead-link", "x.3md", str(i)) for i in range(20_000))
    assert len(shown) == 21
    assert "19,980 more `dead-link` findings in x.3md" in shown[-1].render()
