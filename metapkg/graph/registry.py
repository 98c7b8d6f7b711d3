"""The output formats of ``metapkg graph``: one renderer per format behind a Protocol.

A format's module is imported only when it is used (svg and html bring the layout
engine), and the file suffixes of ``-o FILE`` pick a format when ``--format`` is absent.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # `metapkg graph --help` reads FORMATS: no lock or YAML code for that
    from metapkg.graph.model import View


class Renderer(Protocol):
    # True for formats that show CHANGELOG heads (read from the download cache first).
    wants_changelogs: bool

    def render(self, view: View) -> str: ...


@dataclass(frozen=True)
class Format:
    module: str  # exposes RENDERER
    suffixes: tuple[str, ...]


FORMATS: dict[str, Format] = {
    "mermaid": Format("metapkg.graph.mermaid", (".mmd", ".mermaid")),
    "dot": Format("metapkg.graph.dot", (".dot", ".gv")),
    "svg": Format("metapkg.graph.svg", (".svg",)),
    "html": Format("metapkg.graph.html", (".html", ".htm")),
    "json": Format("metapkg.graph.jsonout", (".json",)),
}
DEFAULT = "mermaid"


def renderer(name: str) -> Renderer:
    module = importlib.import_module(FORMATS[name].module)
    found: Renderer = module.RENDERER
    return found


def for_suffix(suffix: str) -> str | None:
    """The format a file name ending in ``suffix`` asks for, if any."""
    return next((n for n, f in FORMATS.items() if suffix.lower() in f.suffixes), None)
