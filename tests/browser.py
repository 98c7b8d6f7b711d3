"""Open a `metapkg graph --format html` page in a real headless Chromium and check it.

Drives Chromium through the DevTools protocol on a loopback websocket (tests/devtools.py),
so the check sees what a user would: console
errors, uncaught exceptions, Content-Security-Policy violations, any network request,
every node drawn with a size, a real mouse click filling the side panel, wheel zoom and
drag pan moving the picture; then it takes a screenshot.

Used by tests/test_graph_browser.py (skipped without Chromium) and by hand:

    scripts/browser-check [--packages N] [--repositories N] [--html FILE] [--out DIR]
"""

from __future__ import annotations

import argparse
import base64
import json
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import devtools

# -- the check ------------------------------------------------------------------------------


@dataclass
class Report:
    nodes_expected: int = 0
    nodes_drawn: int = 0
    problems: list[str] = field(default_factory=list)
    screenshot: Path | None = None
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.problems


_DRAWN = """(() => {
  const data = JSON.parse(document.getElementById("packages").textContent);
  const nodes = [...document.querySelectorAll("#viewport svg g.node")];
  const drawn = nodes.filter((g) => {
    const box = g.getBBox();
    const label = g.querySelector("text");
    return box.width > 0 && box.height > 0 && data[g.id] && label
      && label.textContent === data[g.id].fqn;
  });
  return {ids: nodes.map((g) => g.id), drawn: drawn.length, data: Object.keys(data).length,
          ready: document.documentElement.getAttribute("data-ready")};
})()"""
_CENTRE = """(() => {
  const r = document.getElementById(%s).getBoundingClientRect();
  return [r.x + r.width / 2, r.y + r.height / 2];
})()"""
_VIEWBOX = 'document.querySelector("#viewport svg").getAttribute("viewBox")'
_PANEL = (
    'document.querySelector("#details h2") && document.querySelector("#details h2").textContent'
)


def _problems_in(events: list[dict[str, Any]], page_url: str) -> list[str]:
    found = []
    for event in events:
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.exceptionThrown":
            found.append(f"uncaught exception: {params['exceptionDetails'].get('text')}")
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            texts = [str(a.get("value", a.get("description"))) for a in params.get("args", [])]
            found.append(f"console.{params['type']}: {' '.join(texts)}")
        elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
            found.append(f"console error: {params['entry'].get('text')}")
        elif method == "Network.requestWillBeSent":
            url = params["request"]["url"]
            if url != page_url:
                found.append(f"network request: {url}")
    return found


def _mouse(tools: devtools.DevTools, kind: str, x: float, y: float, **extra: Any) -> None:
    tools.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, **extra)


def _interact(tools: devtools.DevTools, node_id: str, fqn: str) -> list[str]:
    """A real click on a node, then wheel zoom and a drag; what did not work."""
    problems = []
    x, y = tools.evaluate(_CENTRE % json.dumps(node_id))
    _mouse(tools, "mouseMoved", x, y)
    _mouse(tools, "mousePressed", x, y, button="left", buttons=1, clickCount=1)
    _mouse(tools, "mouseReleased", x, y, button="left", buttons=0, clickCount=1)
    shown = tools.evaluate(_PANEL)
    if shown != fqn:
        problems.append(f"clicking {node_id} showed {shown!r} in the panel, not {fqn!r}")
    before = tools.evaluate(_VIEWBOX)
    _mouse(tools, "mouseWheel", x, y, deltaX=0, deltaY=-240)
    zoomed = tools.evaluate(_VIEWBOX)
    if zoomed == before:
        problems.append("the mouse wheel did not zoom")
    _mouse(tools, "mousePressed", 300, 300, button="left", buttons=1, clickCount=1)
    _mouse(tools, "mouseMoved", 360, 340, button="left", buttons=1)
    _mouse(tools, "mouseReleased", 360, 340, button="left", buttons=0, clickCount=1)
    if tools.evaluate(_VIEWBOX) == zoomed:
        problems.append("dragging did not pan")
    return problems


_FILTERED = """(() => {
  const query = document.getElementById("search").value.trim().toLowerCase();
  const data = JSON.parse(document.getElementById("packages").textContent);
  const expected = Object.keys(data).filter((id) => data[id].fqn.toLowerCase().includes(query)
    || data[id].repository.toLowerCase().includes(query)).sort();
  const matched = [...document.querySelectorAll("#viewport svg g.node.match")].map((g) => g.id);
  return {expected: expected, matched: matched.sort(),
          count: document.getElementById("matches").textContent,
          dimmed: document.querySelector("#viewport svg").classList.contains("has-filter")};
})()"""


def _key(tools: devtools.DevTools, key: str, code: int) -> None:
    for kind in ("keyDown", "keyUp"):
        tools.call("Input.dispatchKeyEvent", type=kind, key=key, windowsVirtualKeyCode=code)


def _filter(tools: devtools.DevTools, query: str, total: int) -> list[str]:
    """Type ``query`` into the filter as a user would: the packages whose name or
    repository holds it, and only those, are marked; Escape clears it."""
    problems = []
    _key(tools, "/", 191)  # the shortcut that focuses the field
    tools.call("Input.insertText", text=query)
    state = tools.evaluate(_FILTERED)
    if not state["expected"] or state["matched"] != state["expected"]:
        problems.append(
            f"filtering by {query!r} marked {state['matched']}, not {state['expected']}"
        )
    if state["count"] != f"{len(state['expected'])} of {total}" or not state["dimmed"]:
        problems.append(f"filtering by {query!r} showed {state['count']!r}")
    _key(tools, "Escape", 27)
    if tools.evaluate(_FILTERED)["matched"]:
        problems.append("Escape did not clear the filter")
    return problems


def check(html: Path, screenshot: Path, expected: int, browser: str | None = None) -> Report:
    """Load ``html`` in a fresh headless Chromium; ``expected`` nodes must be drawn."""
    started = time.monotonic()
    report = Report(nodes_expected=expected)
    with devtools.page(browser) as tools:
        _run(tools, html, screenshot, report)
    report.seconds = time.monotonic() - started
    return report


def _run(tools: devtools.DevTools, html: Path, screenshot: Path, report: Report) -> None:
    for domain in ("Runtime", "Log", "Page", "Network"):
        tools.call(f"{domain}.enable")
    url = html.resolve().as_uri()
    tools.call("Page.navigate", url=url)
    tools.wait_for("Page.loadEventFired")
    state = tools.evaluate(_DRAWN)
    report.nodes_drawn = state["drawn"]
    if state["ready"] != str(report.nodes_expected):
        report.problems.append(f"the page script did not finish (data-ready={state['ready']!r})")
    if not (report.nodes_drawn == len(state["ids"]) == state["data"] == report.nodes_expected):
        report.problems.append(
            f"{report.nodes_drawn} of {len(state['ids'])} nodes drawn with their label, "
            f"{state['data']} lock entries, {report.nodes_expected} packages expected"
        )
    if state["ids"]:
        target = state["ids"][len(state["ids"]) // 2]
        fqn = tools.evaluate(f"JSON.parse(document.getElementById('packages').textContent)"
                             f"[{json.dumps(target)}].fqn")  # fmt: skip
        report.problems += _interact(tools, target, fqn)
        report.problems += _filter(tools, fqn, len(state["ids"]))
    _key(tools, "Escape", 27)  # no selection: the picture as it first opens
    tools.call("Input.dispatchKeyEvent", type="keyDown", key="0", text="0")  # the whole picture
    shot = tools.call("Page.captureScreenshot", format="png")
    screenshot.write_bytes(base64.b64decode(shot["data"]))
    report.screenshot = screenshot
    report.problems += _problems_in(tools.events, url)


# -- Mermaid, as GitHub draws it ------------------------------------------------------------

_MERMAID_PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8">
<script src="mermaid.min.js"></script></head><body></body></html>"""
_MERMAID_RENDER = """(async () => {
  mermaid.initialize({startOnLoad: false, securityLevel: "strict"});
  const diagrams = %s, out = {};
  let index = 0;
  for (const [name, text] of Object.entries(diagrams)) {
    try {
      const {svg} = await mermaid.render("diagram" + index++, text);
      const doc = new DOMParser().parseFromString(svg, "text/html");
      doc.querySelectorAll("br").forEach((br) => br.replaceWith("\\n"));
      out[name] = {
        labels: [...doc.querySelectorAll("g.node")].map((g) => g.textContent.trim()),
        clusters: [...doc.querySelectorAll("g.cluster")].map((g) => g.textContent.trim()),
        edges: doc.querySelectorAll("path.flowchart-link").length,
        active: doc.querySelectorAll("script, img, iframe, [onload], [onerror]").length,
      };
    } catch (error) {
      out[name] = {error: String(error && error.message || error)};
    }
  }
  return out;
})()"""


def render_mermaid(mermaid_js: Path, diagrams: dict[str, str]) -> dict[str, Any]:
    """Render each Mermaid text with the real Mermaid library in headless Chromium:
    {name: {"labels": [...], "clusters": [...], "edges": n, "active": n} or {"error": ...}}."""
    with tempfile.TemporaryDirectory(prefix="metapkg-mermaid-") as folder:
        html = Path(folder) / "page.html"
        html.write_text(_MERMAID_PAGE, encoding="utf-8")
        shutil.copy(mermaid_js, Path(folder) / "mermaid.min.js")
        with devtools.page() as tools:
            tools.call("Page.enable")
            tools.call("Page.navigate", url=html.as_uri())
            tools.wait_for("Page.loadEventFired")
            result = tools.call(
                "Runtime.evaluate",
                expression=_MERMAID_RENDER % json.dumps(diagrams),
                awaitPromise=True,
                returnByValue=True,
            )
    if "exceptionDetails" in result:
        raise RuntimeError(f"rendering failed: {result['exceptionDetails']}")
    found: dict[str, Any] = result["result"]["value"]
    return found


# -- by hand ------------------------------------------------------------------------------


def _make_page(packages: int, repositories: int, out: Path) -> Path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import graph_locks

    project = out / "project"
    project.mkdir(parents=True, exist_ok=True)
    lock = (
        graph_locks.repositories(repositories, max(1, packages // repositories))
        if repositories
        else graph_locks.layered(packages)
    )
    graph_locks.write(project / "metapkg.lock", lock)
    html = out / "graph.html"
    subprocess.run(
        [sys.executable, "-m", "metapkg", "-C", str(project), "graph", "-o", str(html)],
        check=True,
    )
    return html


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--packages", type=int, default=30, help="size of the generated graph")
    parser.add_argument(
        "--repositories",
        type=int,
        default=0,
        help="instead: --packages plain skills from this many repositories, and an agent",
    )
    parser.add_argument("--html", type=Path, help="check this page instead of a generated one")
    parser.add_argument("--out", type=Path, default=Path("browser-check"), help="output folder")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    html = args.html or _make_page(args.packages, args.repositories, args.out)
    expected = len(json.loads(embedded_json(html.read_text(encoding="utf-8"))))
    report = check(html, args.out / "graph.png", expected)
    for problem in report.problems:
        print(f"FAIL {problem}")
    print(
        f"{'ok' if report.ok else 'FAILED'}: {report.nodes_drawn}/{report.nodes_expected} "
        f"nodes drawn, screenshot {report.screenshot}, {report.seconds:.1f} s in Chromium"
    )
    return 0 if report.ok else 1


def embedded_json(page: str) -> str:
    start = page.index('<script type="application/json" id="packages">')
    start = page.index(">", start) + 1
    return page[start : page.index("</script>", start)]


if __name__ == "__main__":
    raise SystemExit(main())
