"""agent.3md: one-file agents (a 3md document of an identity plane and skill planes).

``parse(text) -> Document`` is the 3md 1.0 base parser (all 43 public conformance vectors
pass); it raises :class:`ParseError` whose ``code`` is the vectors' error kind.
``links(document)`` gives the ``[[z=N|text]]`` cross-plane links.
"""

from __future__ import annotations

from metapkg.agent3md.document import Document, ParseError, Plane
from metapkg.agent3md.links import CrossPlaneLink, links
from metapkg.agent3md.parser import parse

__all__ = ["CrossPlaneLink", "Document", "ParseError", "Plane", "links", "parse"]
