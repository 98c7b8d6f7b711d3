"""Issue 29: the graph at repository scale. Packages without dependencies are drawn in a
box per repository, the html page has a filter field, and 150 packages stay readable:
nothing overlaps and the picture fits a browser window at a scale where labels are read.
"""

from __future__ import annotations

import itertools
import json
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import graph_locks
import pytest
from browser import embedded_json

from metapkg.actions.graph import draw
from metapkg.graph import clusters, escape, model, packing, shapes, svg
from metapkg.lock import format as lockfmt

NS = {"svg": "http://www.w3.org/2000/svg"}
REPOSITORIES = ["anthropics/skills", "obra/superpowers", "Vercel-Labs/agent-skills"]
WINDOW = (984.0, 715.0)  # the picture's part of a 1400x900 browser window, beside the panel


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.seen.append(tag)


def _svg_of(page: str) -> ET.Element:
    return ET.fromstring(page[page.index("<svg") : page.index("</svg>") + len("</svg>")])


def test_150_packages_draw_a_box_per_repository_and_a_filter_field(tmp_path: Path) -> None:
    lock = graph_locks.repositories()
    page = draw(lock, tmp_path, "html").text
    assert '<input type="search" id="search"' in page
    data = json.loads(embedded_json(page))
    groups = _svg_of(page).findall(".//svg:g[@class='group']", NS)
    assert [g.get("data-repository") for g in groups] == REPOSITORIES
    for group, repository in zip(groups, REPOSITORIES, strict=True):
        title = group.find("svg:text", NS)
        assert title is not None and title.text == f"{repository} · 50 packages"
        inside = [g.get("id") for g in group.iterfind("svg:g", NS)]
        assert len(inside) == 50
        assert {data[i]["repository"] for i in inside} == {repository}
        assert {data[i]["origin"].split("/")[3] for i in inside} == {repository.split("/")[0]}
    outside = {key for key, entry in data.items() if entry["fqn"].startswith(("acme/", "io."))}
    assert len(outside) == 6  # the agent, its four skills and its MCP server: still layered
    grouped = {g.get("id") for group in groups for g in group.iterfind("svg:g", NS)}
    assert not outside & grouped and len(data) == 156


def _boxes(view: model.View) -> tuple[list[tuple[float, float]], packing.Arrangement]:
    sizes = [shapes.box(node.kind, svg.label_lines(node)) for node in view.nodes]
    index = {node.key: i for i, node in enumerate(view.nodes)}
    titles = [
        (shapes.text_width(escape.visible(g.label), packing.TITLE_SIZE), g.members)
        for g in clusters.plain_groups(view)
    ]
    edges = [(index[e.source], index[e.target]) for e in view.edges]
    return sizes, packing.arrange(sizes, edges, titles)


def _apart(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]


def test_150_packages_do_not_overlap_and_fit_a_window_at_a_legible_scale() -> None:
    view = model.from_lock(graph_locks.repositories())
    sizes, placed = _boxes(view)
    boxes = [
        (x - w / 2, y - h / 2, x + w / 2, y + h / 2)
        for (x, y), (w, h) in zip(placed.centres, sizes, strict=True)
    ]
    for a, b in itertools.combinations(boxes, 2):
        assert _apart(a, b), (a, b)
    groups = clusters.plain_groups(view)
    frames = [(f.x, f.y, f.x + f.width, f.y + f.height) for f in placed.frames]
    for a, b in itertools.combinations(frames, 2):
        assert _apart(a, b), (a, b)
    for group, frame, outline in zip(groups, placed.frames, frames, strict=True):
        members = [boxes[i] for i in group.members]
        assert all(outline[0] < m[0] and m[2] < outline[2] and m[3] < outline[3] for m in members)
        title_x, title_y = frame.title_at
        title_right = title_x + shapes.text_width(escape.visible(group.label), packing.TITLE_SIZE)
        assert title_right < outline[2]
        assert title_y + packing.TITLE_SIZE * shapes.LINE / 2 < min(m[1] for m in members)
    layered = [boxes[i] for i in range(len(boxes)) if not any(i in g.members for g in groups)]
    assert all(_apart(box, frame) for box in layered for frame in frames)

    drawing = svg.draw(view)
    scale = min(WINDOW[0] / drawing.width, WINDOW[1] / drawing.height)
    assert scale >= 0.5, (drawing.width, drawing.height)  # one line per package: 0.1


def test_the_grouped_page_is_byte_stable(tmp_path: Path) -> None:
    path = tmp_path / "metapkg.lock"
    graph_locks.write(path, graph_locks.repositories())
    lock = lockfmt.read(path)
    assert lock is not None
    assert draw(lock, tmp_path, "html").text == draw(lock, tmp_path, "html").text
    built = graph_locks.repositories()  # the same lock, not read back from the file
    assert draw(built, tmp_path, "svg").text == draw(lock, tmp_path, "svg").text


HOSTILE_ORIGINS = (
    'https://github.com/evil/x"><script>alert(1)</script>/tree/main/skills/a',
    "https://github.com/evil/\u202egnp.exe/tree/main/skills/b",
    "https://github.com/evil/x] end; click g0 call alert(1) %%/tree/main/skills/c",
)


def _hostile_groups() -> lockfmt.Lockfile:
    packages = [
        graph_locks.package("skill", f"plain-{i}", None, origin=origin)
        for i, origin in enumerate(HOSTILE_ORIGINS)
    ]
    return graph_locks.lock(packages, [p.key for p in packages])


def test_hostile_repository_names_stay_text_in_every_format(tmp_path: Path) -> None:
    lock = _hostile_groups()  # drawn from the model: the lock reader refuses such origins
    picture = ET.fromstring(draw(lock, tmp_path, "svg").text.split("\n", 1)[1])
    groups = picture.findall(".//svg:g[@class='group']", NS)
    shown = sorted(escape.visible(origin) for origin in HOSTILE_ORIGINS)  # the bidi one too
    assert sorted(g.get("data-repository") or "" for g in groups) == shown
    titles = {t.text for g in groups for t in g.iterfind("svg:text", NS)}
    assert f"{escape.visible(HOSTILE_ORIGINS[1])} · 1 package" in titles
    assert not picture.findall(".//svg:script", NS)

    tags = _Tags()
    tags.feed(draw(lock, tmp_path, "html").text)
    assert tags.seen.count("script") == 2 and "img" not in tags.seen

    dot = draw(lock, tmp_path, "dot").text
    # A quote inside is escaped, so each label is one DOT string up to its "; (the legend's
    # label is the fourth).
    labels = re.findall(r'^    label="((?:[^"\\]|\\.)*)";', dot, re.MULTILINE)
    assert len(labels) == 4 and all("\u202e" not in label for label in labels)
    mermaid = draw(lock, tmp_path, "mermaid").text
    heads = [line for line in mermaid.splitlines() if line.startswith("  subgraph ")]
    assert len(heads) == 3
    decoded = []
    for head in heads:  # plain characters and Mermaid entities (#60;), nothing else
        inside = head[head.index('["') + 2 : head.rindex('"]')]
        assert re.fullmatch(r"(?:[A-Za-z0-9 ._/@+:·→-]|#\d+;)*", inside), head
        decoded.append(re.sub(r"#(\d+);", lambda m: chr(int(m.group(1))), inside))
    assert sorted(decoded) == sorted(f"{text} · 1 package" for text in shown)


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz `dot` is not installed")
def test_graphviz_draws_a_cluster_per_repository_titled_exactly(tmp_path: Path) -> None:
    for lock, titles in (
        (graph_locks.repositories(), [f"{r} · 50 packages" for r in REPOSITORIES]),
        (_hostile_groups(), [f"{escape.visible(o)} · 1 package" for o in HOSTILE_ORIGINS]),
    ):
        text = draw(lock, tmp_path, "dot").text
        drawn = subprocess.run(["dot", "-Tsvg"], input=text, capture_output=True, text=True)
        assert drawn.returncode == 0, drawn.stderr
        picture = ET.fromstring(drawn.stdout)
        shown = [
            t.text
            for g in picture.iterfind(".//svg:g[@class='cluster']", NS)
            for t in g.iterfind("svg:text", NS)
        ]
        assert sorted(shown) == sorted([*titles, "legend"])
