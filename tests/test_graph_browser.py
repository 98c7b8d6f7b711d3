"""The html page and the Mermaid text in a real headless Chromium (tests/browser.py).

Skipped where Chromium is absent (`apt-get install -y chromium` installs it). The Mermaid
check also needs the real Mermaid library, which is not vendored: point
METAPKG_MERMAID_JS at a mermaid.min.js (`npm pack mermaid@11`, then take
package/dist/mermaid.min.js out of the tarball).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import browser
import devtools
import graph_locks
import pytest

from metapkg.actions.graph import draw
from metapkg.diff.compare import compare
from metapkg.graph import changes, escape, mermaid, model

needs_chromium = pytest.mark.skipif(
    devtools.chromium() is None,
    reason="needs Debian's chromium (apt-get install -y chromium); see scripts/browser-check",
)
MERMAID_JS = os.environ.get("METAPKG_MERMAID_JS")


@needs_chromium
def test_html_page_of_30_packages_loads_offline_and_draws_every_node(tmp_path: Path) -> None:
    # 28 ordinary packages and two that try to escape their labels: a script must not run.
    lock = graph_locks.layered(28)
    hostile = [
        graph_locks.package("skill", name, graph_locks.HOSTILE_VERSION,
                            origin=f"{graph_locks.GH}/evil/catalog/tree/main/skills/s{i}")
        for i, name in enumerate(graph_locks.HOSTILE_NAMES[:2])
    ]  # fmt: skip
    lock = graph_locks.lock(
        [*lock.packages, *hostile],
        [(r.kind, r.fqn) for r in lock.requires] + [p.key for p in hostile],
    )
    project = tmp_path / "project"
    project.mkdir()
    # Drawn from the lock model: the lock reader itself refuses such names.
    (project / "graph.html").write_text(draw(lock, project, "html").text)

    report = browser.check(project / "graph.html", tmp_path / "graph.png", expected=30)
    assert report.problems == []
    assert report.nodes_drawn == 30
    assert report.screenshot is not None
    assert report.screenshot.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


@needs_chromium
def test_html_page_of_150_packages_in_three_repositories_draws_and_filters(
    tmp_path: Path,
) -> None:
    # What `add --all` of three repositories locks: a box per repository. The check types
    # a package's name into the filter and compares what is marked with the data.
    project = tmp_path / "project"
    project.mkdir()
    (project / "graph.html").write_text(draw(graph_locks.repositories(), project, "html").text)

    report = browser.check(project / "graph.html", tmp_path / "graph.png", expected=156)
    assert report.problems == []
    assert report.nodes_drawn == 156


@needs_chromium
@pytest.mark.skipif(not MERMAID_JS, reason="set METAPKG_MERMAID_JS to a mermaid.min.js")
def test_real_mermaid_draws_every_label_exactly() -> None:
    assert MERMAID_JS is not None
    hostile = model.from_lock(graph_locks.hostile())
    before = model.from_lock(graph_locks.before())
    section = changes.markdown_section(compare(graph_locks.before(), graph_locks.after()))
    diagrams = {
        "hostile": mermaid.RENDERER.render(hostile),
        "before": mermaid.RENDERER.render(before),
        "diff": "\n".join(section[section.index("```mermaid") + 1 : section.index("```")]),
    }
    drawn = browser.render_mermaid(Path(MERMAID_JS), diagrams)
    for name, view in (("hostile", hostile), ("before", before)):
        assert "error" not in drawn[name], drawn[name]
        assert drawn[name]["active"] == 0
        assert drawn[name]["edges"] == len(view.edges)
        expected = [
            "\n".join(
                escape.visible(part)
                for part in (n.fqn, " · ".join(p for p in (n.version_text, *n.tags) if p))
                if part
            )
            for n in view.nodes
        ]
        # Mermaid draws the nodes of subgraphs first: the same labels, in another order.
        assert sorted(drawn[name]["labels"]) == sorted(expected)
    assert sorted(drawn["before"]["clusters"]) == [
        "acme/catalog · 1 package",
        "file: origins · 1 package",
    ]
    assert drawn["hostile"]["clusters"] == []
    assert drawn["diff"]["edges"] == 3
    assert any(re.search("1.1.0 → 2.0.0", label) for label in drawn["diff"]["labels"])
    json.dumps(drawn)  # plain data came back
