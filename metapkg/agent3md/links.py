"""Cross-plane links ``[[z=N]]`` and ``[[z=N|text]]``, in two grammars.

The base format's links (:func:`links`) take any finite decimal target, as the ``links-*``
conformance vectors require. The agent layer (agent3md/1 dependencies, the validator's
``dead-link`` and ``cycle`` rules) recognises only non-negative integer targets, as the
reference validator and loaders do: ``[[z=1.5]]`` is a 3md link but not a dependency.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from metapkg.agent3md.document import Document
from metapkg.agent3md.lexing import finite_decimal

# Bounded, as in the reference, so a long near-miss cannot make matching slow.
_LINK = re.compile(r"\[\[z=([-+0-9eE.]{1,40})(?:\|([^\]\n]{0,400}))?\]\]")
_DEPENDENCY = re.compile(r"\[\[z=([0-9]+)(?:\|[^\]]*)?\]\]")


@dataclass(frozen=True)
class CrossPlaneLink:
    source_z: float
    target_z: float
    text: str | None  # None when absent, "" when written empty
    target_exists: bool

    def as_json(self) -> dict[str, object]:
        return {
            "sourceZ": self.source_z,
            "targetZ": self.target_z,
            "text": self.text,
            "targetExists": self.target_exists,
        }


def links(document: Document) -> list[CrossPlaneLink]:
    """Every cross-plane link, planes in source order, left to right within a body."""
    targets = {plane.z for plane in document.planes}
    found = []
    for plane in document.planes:
        for match in _LINK.finditer(plane.body):
            target = finite_decimal(match.group(1))
            if target is not None:
                found.append(CrossPlaneLink(plane.z, target, match.group(2), target in targets))
    return found


def dependency_targets(body: str) -> list[float]:
    """The integer targets of the agent-layer dependency links in a body, in order (as
    floats, so that they compare with plane positions exactly as the reference's do)."""
    return [float(match.group(1)) for match in _DEPENDENCY.finditer(body)]
