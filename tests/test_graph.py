"""`metapkg graph` and the Mermaid picture of `metapkg diff --format markdown`.

Locks are written by hand (tests/graph_locks.py) through metapkg's own writer and reader.
Golden files in tests/snapshots/ hold the Mermaid and DOT text a reviewer reads.
"""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import graph_locks
import pytest
from browser import embedded_json
from conftest import assert_ok, make_skill, run_cli
from golden import assert_matches
from hypothesis import given
from hypothesis import strategies as st

from metapkg.actions.graph import draw, graph
from metapkg.diagnostics import LockError, MetapkgError
from metapkg.diff import render
from metapkg.diff.compare import compare, with_alerts
from metapkg.graph import changes, escape, layout, model, ordering
from metapkg.integrity import tree_hash


def _project(tmp_path: Path, lock: Any, name: str = "project") -> Path:
    project = tmp_path / name
    project.mkdir()
    graph_locks.write(project / "metapkg.lock", lock)
    return project


@pytest.fixture
def before(tmp_path: Path) -> Path:
    return _project(tmp_path, graph_locks.before())


def _drawn(project: Path, **options: Any) -> tuple[set[str], set[tuple[str, str]]]:
    data = json.loads(graph(project, "json", **options).text)
    nodes = {n["fqn"] for n in data["nodes"]}
    return nodes, {(e["from"]["fqn"], e["to"]["fqn"]) for e in data["edges"]}


# -- what people read ------------------------------------------------------------------------


def test_mermaid_and_dot_match_their_snapshots(before: Path) -> None:
    assert_matches("graph.mmd", graph(before, "mermaid").text)
    assert_matches("graph.dot", graph(before, "dot").text)
    assert_matches("graph-why.mmd", graph(before, "mermaid", why="acme/commit-message").text)


def test_markdown_diff_draws_the_changed_part_of_the_graph() -> None:
    found = [with_alerts(c) for c in compare(graph_locks.before(), graph_locks.after())]
    section = "\n".join(changes.markdown_section(found))
    assert_matches("diff-graph.md", section)
    markdown = render.markdown(found, "before -> after")
    assert section in markdown
    assert markdown.index("| | package") < markdown.index(section)  # after the table
    drawn = changes.view(found)
    statuses = {n.fqn: n.status for n in drawn.nodes}
    assert statuses["acme/changelog-writer"] == "added"
    assert statuses["acme/browser-qa"] == "removed"
    assert statuses["acme/git-pr"] == "changed"
    assert statuses["io.github.acme/github"] == "context"  # unchanged, but an edge to it went
    assert {(e.source[1], e.target[1], e.status) for e in drawn.edges} == {
        ("acme/git-pr", "acme/changelog-writer", "added"),
        ("acme/git-pr", "io.github.acme/github", "removed"),
        ("acme/browser-qa", "io.playwright/mcp", "removed"),
    }


def test_a_change_too_large_to_draw_gets_a_note() -> None:
    found = compare(None, graph_locks.layered(changes.MAX_NODES + 1))
    section = "\n".join(changes.markdown_section(found))
    assert "```mermaid" not in section
    assert f"too large to draw here (the limit is {changes.MAX_NODES} packages" in section
    assert section.startswith("<details>") and section.rstrip().endswith("</details>")
    assert changes.markdown_section(compare(graph_locks.before(), graph_locks.before())) == []


# -- what gets drawn -------------------------------------------------------------------------


def test_fqn_why_and_depth_select_the_part_to_draw(before: Path) -> None:
    nodes, edges = _drawn(before, fqn="acme/git-pr")
    assert nodes == {"acme/git-pr", "acme/commit-message", "io.github.acme/github"}
    nodes, edges = _drawn(before, why="acme/commit-message")
    assert nodes == {
        "acme/code-reviewer", "acme/git-pr", "acme/review-checklist", "acme/commit-message"
    }  # fmt: skip
    assert ("acme/code-reviewer", "io.github.acme/github") not in edges
    assert len(edges) == 4
    nodes, _ = _drawn(before, why="acme/commit-message", depth=1)
    assert nodes == {"acme/git-pr", "acme/review-checklist", "acme/commit-message"}
    nodes, _ = _drawn(before, depth=0)
    assert nodes == {"acme/code-reviewer", "acme/browser-qa", "acme/release-notes", "house-style"}
    nodes, _ = _drawn(before, depth=1)
    assert "acme/git-pr" in nodes and "acme/commit-message" not in nodes
    nodes, edges = _drawn(before, fqn="acme/code-reviewer", why="io.github.acme/github")
    assert edges == {
        ("acme/code-reviewer", "io.github.acme/github"),
        ("acme/code-reviewer", "acme/git-pr"),
        ("acme/git-pr", "io.github.acme/github"),
    }
    assert len(_drawn(before)[0]) == len(graph_locks.before().packages)


def test_json_marks_direct_local_and_metaskill_packages(before: Path) -> None:
    data = json.loads(graph(before, "json").text)
    by_name = {n["fqn"]: n for n in data["nodes"]}
    assert by_name["house-style"]["local"] is True
    assert by_name["house-style"]["origin"] == "file:./local-skills/house-style"
    assert by_name["acme/release-notes"]["metaskill"] == "SKILL.star"
    assert by_name["acme/code-reviewer"]["direct"] is True
    assert by_name["acme/git-pr"]["direct"] is False
    edge = {
        "from": {"kind": "skill", "fqn": "acme/browser-qa"},
        "to": {"kind": "mcp", "fqn": "io.playwright/mcp"},
        "kind": "mcp",
    }
    assert edge in data["edges"]


def test_unknown_packages_and_missing_locks_are_clear_errors(before: Path, tmp_path: Path) -> None:
    with pytest.raises(MetapkgError) as unknown:
        graph(before, "mermaid", fqn="acme/nope")
    assert unknown.value.diagnostics[0].rule == "missing"
    assert "acme/nope is not in the resolved graph" in unknown.value.diagnostics[0].message
    with pytest.raises(MetapkgError):
        graph(before, "mermaid", why="acme/nope")
    with pytest.raises(LockError) as missing:
        graph(tmp_path, "mermaid")
    assert "metapkg lock" in missing.value.diagnostics[0].message


# -- escaping: package names and versions are untrusted --------------------------------------

_LABEL = "[A-Za-z0-9 ._/@+:#;·→-]*"
_MERMAID_NODE = re.compile(rf'^  n\d+(\{{\{{|\(|\[\()"({_LABEL}(<br>)?{_LABEL})"')


def _mermaid_decode(text: str) -> str:
    return re.sub(r"#(\d+);", lambda m: chr(int(m.group(1))), text)


def _shown(name: str) -> str:
    return escape.visible(name)


def test_hostile_names_stay_inside_mermaid_labels(tmp_path: Path) -> None:
    # The lock reader refuses such names now; the renderers must hold even so.
    text = draw(graph_locks.hostile(), tmp_path, "mermaid").text
    labels = []
    for line in text.splitlines()[2:]:
        if re.match(r"^  n\d+[{(\[]", line):
            match = _MERMAID_NODE.match(line)
            assert match, f"a label escaped its quotes: {line!r}"
            labels.append(_mermaid_decode(match.group(2)).split("<br>")[0])
    assert sorted(labels) == sorted(
        [_shown(n) for n in graph_locks.HOSTILE_NAMES] + ["evil/<svg onload=alert(1)>"]
    )
    assert "\u202e" not in text and "`" not in text


def test_hostile_names_cannot_leave_the_markdown_picture() -> None:
    hostile = graph_locks.hostile()
    found = compare(graph_locks.before(), hostile)
    markdown = render.markdown(found, "x")
    section = "\n".join(changes.markdown_section(found))
    assert section.count("<details>") == 1 and section.count("</details>") == 1
    fences = [line for line in section.splitlines() if line.startswith("```")]
    assert fences == ["```mermaid", "```"]
    inside = section[section.index("```mermaid") : section.rindex("```")]
    assert re.findall(r"<[^>]*>", inside) == ["<br>"] * inside.count("<br>")
    assert markdown.count("```mermaid") == 1


def test_hostile_names_stay_text_in_svg_and_html(tmp_path: Path) -> None:
    picture = ET.fromstring(draw(graph_locks.hostile(), tmp_path, "svg").text.split("\n", 1)[1])
    ns = {"svg": "http://www.w3.org/2000/svg"}
    texts = {t.text for t in picture.iterfind(".//svg:g[@class]/svg:text", ns)}
    for name in graph_locks.HOSTILE_NAMES:
        assert _shown(name) in texts
    assert f"{graph_locks.HOSTILE_VERSION}" in texts
    assert not picture.findall(".//svg:script", ns) and not picture.findall(".//svg:img", ns)

    page = draw(graph_locks.hostile(), tmp_path, "html").text
    tags = _Tags()
    tags.feed(page)
    assert tags.seen.count("script") == 2  # the data block and the viewer, nothing else
    assert "img" not in tags.seen and "details" not in tags.seen
    data = json.loads(embedded_json(page))
    assert {entry["fqn"] for entry in data.values()} >= set(graph_locks.HOSTILE_NAMES)


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.seen.append(tag)


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz `dot` is not installed")
def test_graphviz_reads_the_dot_output_and_shows_names_exactly(tmp_path: Path) -> None:
    text = draw(graph_locks.hostile(), tmp_path, "dot").text
    drawn = subprocess.run(["dot", "-Tsvg"], input=text, capture_output=True, text=True)
    assert drawn.returncode == 0, drawn.stderr
    texts = {t.text for t in ET.fromstring(drawn.stdout).iter("{http://www.w3.org/2000/svg}text")}
    for name in graph_locks.HOSTILE_NAMES:
        assert _shown(name) in texts


# -- layout ----------------------------------------------------------------------------------


def _boxes(result: layout.Layout, sizes: list[tuple[float, float]]) -> list[tuple[float, ...]]:
    return [
        (x - w / 2, y - h / 2, x + w / 2, y + h / 2)
        for (x, y), (w, h) in zip(result.centres, sizes, strict=True)
    ]


def test_layout_of_30_packages_has_no_overlaps_and_edges_meet_their_boxes() -> None:
    view = model.from_lock(graph_locks.layered(30))
    index = {n.key: i for i, n in enumerate(view.nodes)}
    sizes = [(100.0 + 3 * (i % 5), 30.0 + 10 * (i % 2)) for i in range(len(view.nodes))]
    edges = [(index[e.source], index[e.target]) for e in view.edges]
    result = layout.layered(sizes, edges)
    boxes = _boxes(result, sizes)
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1], (a, b)
    for (source, target), path in zip(edges, result.paths, strict=True):
        assert path[0] == (boxes[source][2], result.centres[source][1])
        assert path[-1] == (boxes[target][0], result.centres[target][1])
    assert all(b[0] >= 0 and b[2] <= result.width and b[3] <= result.height for b in boxes)


def test_layout_orders_layers_to_avoid_crossings() -> None:
    # a -> d and b -> c: drawn in input order the two edges cross; the sweeps untangle them.
    result = layout.layered([(40, 20)] * 4, [(0, 3), (1, 2)])
    (_, ya), (_, yb), (_, yc), (_, yd) = result.centres
    assert (ya < yb) == (yd < yc)


@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)), max_size=25))
def test_crossings_are_counted_exactly(pairs: list[tuple[int, int]]) -> None:
    # Two layers of six vertices (0-5 above, 6-11 below); count by brute force too.
    down: list[list[int]] = [[] for _ in range(12)]
    for a, b in dict.fromkeys(pairs):
        down[a].append(b + 6)
    edges = [(a, b - 6) for a in range(6) for b in down[a]]
    brute = sum(
        1 for i, (a, b) in enumerate(edges) for c, d in edges[i + 1 :] if (a - c) * (b - d) < 0
    )
    assert ordering.crossings([list(range(6)), list(range(6, 12))], down) == brute


def test_cycles_self_loops_and_dangling_edges_still_draw(tmp_path: Path) -> None:
    lock = graph_locks.lock(
        [
            graph_locks.package("skill", "acme/a", skills=("acme/b",)),
            graph_locks.package("skill", "acme/b", skills=("acme/a", "acme/b", "acme/gone")),
        ],
        direct=[("skill", "acme/a")],
    )
    project = _project(tmp_path, lock)
    nodes, edges = _drawn(project)
    assert nodes == {"acme/a", "acme/b", "acme/gone"}
    assert ("acme/b", "acme/a") in edges and ("acme/b", "acme/b") in edges
    ET.fromstring(graph(project, "svg").text.split("\n", 1)[1])  # well-formed
    empty = _project(tmp_path, graph_locks.lock([], []), "empty")
    assert "no packages" in graph(empty, "mermaid").text
    assert "no packages" in graph(empty, "svg").text


# -- html details ----------------------------------------------------------------------------


def test_html_shows_the_lock_entry_and_the_changelog_head_when_content_matches(
    tmp_path: Path,
) -> None:
    project = tmp_path / "project"
    folder = make_skill(project / "local", "house-style", version="0.1.0", scope=None)
    good = graph_locks.package(
        "skill", "house-style", "0.1.0", origin="file:./local/skills/house-style"
    )
    good = dataclasses.replace(good, integrity=tree_hash(folder))
    graph_locks.write(project / "metapkg.lock", graph_locks.lock([good], [good.key]))
    entry = next(iter(json.loads(embedded_json(graph(project, "html").text)).values()))
    assert entry["origin"] == "file:./local/skills/house-style"
    assert entry["integrity"] == good.integrity
    assert entry["changelog"] == {"version": "0.1.0", "date": "2026-01-15", "body": "- Release."}

    # Content that does not match the lock: its release notes are not shown.
    (folder / "SKILL.md").write_text((folder / "SKILL.md").read_text() + "\nedited\n")
    entry = next(iter(json.loads(embedded_json(graph(project, "html").text)).values()))
    assert entry["changelog"] is None


# -- the command line ------------------------------------------------------------------------


def test_cli_writes_files_picks_formats_and_reports_usage_errors(before: Path) -> None:
    wrote = assert_ok(run_cli("graph", "-o", "graph.html", cwd=before))
    assert "wrote graph.html (9 packages, 7 dependencies)" in wrote.err
    page = (before / "graph.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "http://" not in page.split("<svg", 1)[0]
    svg = assert_ok(run_cli("graph", "--format", "svg", "acme/git-pr", cwd=before))
    assert svg.out.startswith("<?xml") and svg.out.count('class="node ') == 3
    assert run_cli("graph", "--depth", "-1", cwd=before).code == 2
    missing = run_cli("graph", "acme/nope", cwd=before)
    assert missing.code == 1 and "error[missing]" in missing.err
