"""The agent3md/1 layer over a 3md document: one identity plane, every other plane a skill.

Shared by the validator and provisioning, so both read a skill plane the same way:

* The identity is every plane with ``kind=identity`` (the attribute value exactly), or,
  when there is none, the first plane in source order (the reference loaders' fallback;
  it is the lowest z whenever planes are written in ascending z, as the spec's are).
* A skill's name is its ``label`` (``skill-<z>`` when it has none), its ``triggers`` and
  the frontmatter's ``tools`` are comma-separated lists, its ``inputs`` items are ``name``,
  ``name:type`` or ``name:type?``, and its ``tool`` is a command template whose
  ``{placeholder}`` slots name inputs.

Whitespace is trimmed as JavaScript's ``trim`` does, to match the reference validator.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from metapkg.agent3md.document import Document, Plane, format_z
from metapkg.agent3md.links import dependency_targets

INPUT_TYPES = ("string", "number", "boolean", "object", "array")
# JavaScript's WhiteSpace and LineTerminator characters: what String.prototype.trim removes.
JS_SPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_JS_SPACE_RUN = re.compile(f"[{JS_SPACE}]+")
PLACEHOLDER = re.compile(r"\{([a-zA-Z_][a-zA-Z0-9_]*)\}")


def js_trim(value: str) -> str:
    return value.strip(JS_SPACE)


def csv(value: str | None) -> tuple[str, ...]:
    """A comma-separated attribute as its trimmed, non-empty items."""
    if not value:
        return ()
    return tuple(item for item in (js_trim(part) for part in value.split(",")) if item)


def first_word(command: str) -> str:
    """The binary of a command template: its first whitespace-separated token."""
    return _JS_SPACE_RUN.split(command)[0]


@dataclass(frozen=True)
class Input:
    name: str
    type: str  # lowercased; "string" for a bare name (may be outside INPUT_TYPES)
    required: bool


def parse_inputs(value: str | None) -> tuple[Input, ...]:
    """``inputs="pattern:string, limit:number?, question"``; items without a name are
    dropped, duplicates kept (the validator reports them)."""
    inputs = []
    for item in csv(value):
        required = not item.endswith("?")
        text = item if required else js_trim(item[:-1])
        name, colon, kind = text.partition(":")
        kind = js_trim(kind).lower() if colon else ""
        if js_trim(name):
            inputs.append(Input(js_trim(name), kind or "string", required))
    return tuple(inputs)


@dataclass(frozen=True)
class SkillPlane:
    plane: Plane
    triggers: tuple[str, ...]
    inputs: tuple[Input, ...]
    tool: str | None  # trimmed; None when absent or empty
    cost: str | None
    links: tuple[float, ...]  # integer [[z=N]] targets in the body, in order

    @property
    def z(self) -> float:
        return self.plane.z

    @property
    def name(self) -> str:
        """The skill's name as the reference loaders give it (the raw label)."""
        label = self.plane.label
        return label if label is not None else f"skill-{format_z(self.plane.z)}"


def identity_positions(document: Document) -> frozenset[float]:
    explicit = [p.z for p in document.planes if p.attributes.get("kind") == "identity"]
    if explicit:
        return frozenset(explicit)
    return frozenset({document.planes[0].z}) if document.planes else frozenset()


@dataclass(frozen=True)
class AgentDocument:
    document: Document
    identity: Plane | None  # the first identity plane; None only for a plane-less file
    skills: tuple[SkillPlane, ...]  # source order

    @property
    def tools(self) -> tuple[str, ...]:
        return csv(self.document.metadata.get("tools"))

    @functools.cached_property
    def _skills_by_z(self) -> dict[float, SkillPlane]:
        # An index, not a scan: provisioning looks up every link of every skill.
        index: dict[float, SkillPlane] = {}
        for skill in self.skills:
            index.setdefault(skill.z, skill)
        return index

    def skill_at(self, z: float) -> SkillPlane | None:
        return self._skills_by_z.get(z)


def read_agent(document: Document) -> AgentDocument:
    identity = identity_positions(document)
    skills = tuple(_skill(plane) for plane in document.planes if plane.z not in identity)
    first = next((plane for plane in document.planes if plane.z in identity), None)
    return AgentDocument(document, first, skills)


def _skill(plane: Plane) -> SkillPlane:
    raw_tool = plane.attributes.get("tool")
    tool = js_trim(raw_tool) if raw_tool is not None else ""
    return SkillPlane(
        plane,
        csv(plane.attributes.get("triggers")),
        parse_inputs(plane.attributes.get("inputs")),
        tool or None,
        plane.attributes.get("cost"),
        tuple(dependency_targets(plane.body)),
    )
