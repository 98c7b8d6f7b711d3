"""The agent3md/1 validator: the reference's rules, ids and verdicts.

Errors: ``parse``, ``frontmatter``, ``identity``, ``missing-label``, ``unique-skill``,
``dead-link``, ``entry``, ``cycle``, ``dup-input``, ``input-type``, ``tool-input``.
Warnings: ``triggers``, ``tool``, ``unused-input``, ``undeclared-tool``.

As in the reference: a source that does not parse gets one ``parse`` finding and nothing
else; every rule reports against the z of the plane at fault; a dependency cycle is
reported once; links are the integer ``[[z=N]]`` form; the messages are ours and say how
to fix the problem.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from metapkg.agent3md.agent import (
    INPUT_TYPES,
    PLACEHOLDER,
    AgentDocument,
    SkillPlane,
    first_word,
    js_trim,
    read_agent,
)
from metapkg.agent3md.document import Document, ParseError, format_z
from metapkg.agent3md.links import dependency_targets
from metapkg.agent3md.parser import parse

ERROR_RULES = (
    "parse", "frontmatter", "identity", "missing-label", "unique-skill", "dead-link",
    "entry", "cycle", "dup-input", "input-type", "tool-input",
)  # fmt: skip
WARNING_RULES = ("triggers", "tool", "unused-input", "undeclared-tool")
_INTEGER = re.compile(r"-?[0-9]+")


@dataclass(frozen=True)
class Finding:
    level: Literal["error", "warning"]
    rule: str
    message: str
    z: float | None = None
    line: int | None = None  # of the source: the plane's @plane line, or a frontmatter key


@dataclass(frozen=True)
class Report:
    document: Document | None  # None when the source did not parse
    findings: tuple[Finding, ...]  # errors first, then warnings, each in rule order

    @property
    def errors(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.level == "error")

    @property
    def warnings(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.level == "warning")

    @property
    def ok(self) -> bool:
        return not self.errors


def validate(source: str) -> Report:
    """Parse and validate agent3md/1 source text."""
    try:
        document = parse(source)
    except ParseError as exc:
        message = f"not valid 3md ({exc.code}): {exc.message}"
        return Report(None, (Finding("error", "parse", message, None, exc.line),))
    return validate_document(document)


def validate_document(document: Document) -> Report:
    agent = read_agent(document)
    found = _Findings(document)
    _frontmatter(document, found)
    _identity(document, found)
    _labels(agent, found)
    _dead_links(agent, found)
    _entry(document, found)
    _cycle(agent, found)
    _triggers(agent, found)
    for skill in agent.skills:
        _inputs_and_tool(skill, found)
    _declared_tools(agent, found)
    return Report(document, (*found.errors, *found.warnings))


class _Findings:
    def __init__(self, document: Document) -> None:
        self.document = document
        self.errors: list[Finding] = []
        self.warnings: list[Finding] = []

    def error(self, rule: str, message: str, z: float | None = None, key: str = "") -> None:
        self.errors.append(Finding("error", rule, message, z, self._line(z, key)))

    def warn(self, rule: str, message: str, z: float) -> None:
        self.warnings.append(Finding("warning", rule, message, z, self._line(z, "")))

    def _line(self, z: float | None, key: str) -> int | None:
        if z is not None:
            plane = self.document.plane_at(z)
            return plane.line if plane else None
        return self.document.key_lines.get(key, self.document.frontmatter_line)


def _frontmatter(document: Document, found: _Findings) -> None:
    if not document.version:
        found.error("frontmatter", "the frontmatter has no '3md:' version line; add '3md: 1.0'")
    if not document.title and not document.metadata.get("agent"):
        found.error(
            "frontmatter",
            "the agent has no name: add 'agent: <short-id>' (or 'title: <display name>') "
            "to the frontmatter",
        )


def _identity(document: Document, found: _Findings) -> None:
    explicit = [p for p in document.planes if p.attributes.get("kind") == "identity"]
    if len(explicit) > 1:
        others = ", ".join(f"z={format_z(p.z)}" for p in explicit)
        found.error(
            "identity",
            f"{len(explicit)} planes say kind=identity ({others}); an agent has exactly one "
            f"identity plane: make the others kind=skill",
            explicit[1].z,
        )
    elif not document.planes:
        found.error(
            "identity",
            "the document has no planes; add an identity plane "
            "('@plane z=0 label=\"<agent>\" kind=identity' and the agent's instructions)",
        )


def _labels(agent: AgentDocument, found: _Findings) -> None:
    seen: dict[str, float] = {}
    for skill in agent.skills:
        name = js_trim(skill.plane.label or "")
        if not name:
            found.error(
                "missing-label",
                'this skill has no label, and every skill needs a name: add label="<name>"',
                skill.z,
            )
        elif name in seen:
            found.error(
                "unique-skill",
                f'skill name "{name}" is also used at z={format_z(seen[name])}; give each '
                f"skill its own label",
                skill.z,
            )
        else:
            seen[name] = skill.z


def _dead_links(agent: AgentDocument, found: _Findings) -> None:
    positions = {plane.z for plane in agent.document.planes}
    for plane, targets in _plane_links(agent):
        for target in targets:
            if target not in positions:
                found.error(
                    "dead-link",
                    f"link [[z={format_z(target)}]] points to no plane; link to an existing "
                    f"plane's z or remove the link",
                    plane,
                )


def _plane_links(agent: AgentDocument) -> list[tuple[float, Sequence[float]]]:
    """(plane z, integer link targets) for every plane, identity included."""
    return [(p.z, dependency_targets(p.body)) for p in agent.document.planes]


def _entry(document: Document, found: _Findings) -> None:
    entry = document.metadata.get("entry")
    if entry is None:
        return
    raw = js_trim(entry)
    if not _INTEGER.fullmatch(raw):
        found.error(
            "entry", f"entry: {entry!r} must be a plane's z, an integer such as 0", key="entry"
        )
    elif document.plane_at(float(raw)) is None:
        found.error(
            "entry",
            f"entry: {entry!r} names no plane; set it to the z of an existing plane",
            key="entry",
        )


def _cycle(agent: AgentDocument, found: _Findings) -> None:
    positions = {plane.z for plane in agent.document.planes}
    edges = {z: [t for t in targets if t in positions] for z, targets in _plane_links(agent)}
    node = find_cycle([plane.z for plane in agent.document.planes], edges)
    if node is not None:
        found.error(
            "cycle",
            "the [[z=N]] dependency links loop back to this plane (a cycle); remove one "
            "link of the loop",
            node,
        )


def find_cycle(order: Sequence[float], edges: Mapping[float, Sequence[float]]) -> float | None:
    """A node on the first cycle a depth-first search in ``order`` meets (the node its back
    edge reaches), or None. Iterative, so a long dependency chain cannot overflow."""
    color: dict[float, int] = {}  # absent: unseen, 1: on the stack, 2: done
    for start in order:
        if start in color:
            continue
        color[start] = 1
        stack = [(start, iter(edges.get(start, ())))]
        while stack:
            node, targets = stack[-1]
            for target in targets:
                state = color.get(target)
                if state == 1:
                    return target
                if state is None:
                    color[target] = 1
                    stack.append((target, iter(edges.get(target, ()))))
                    break
            else:
                color[node] = 2
                stack.pop()
    return None


def _triggers(agent: AgentDocument, found: _Findings) -> None:
    for skill in agent.skills:
        if not js_trim(skill.plane.attributes.get("triggers", "")):
            found.warn(
                "triggers",
                f'skill "{skill.name}" has no triggers, so routing can never reach it; add '
                f'triggers="<phrase>, <phrase>"',
                skill.z,
            )


def _inputs_and_tool(skill: SkillPlane, found: _Findings) -> None:
    names: list[str] = []
    for item in skill.inputs:
        if item.name in names:
            found.error(
                "dup-input",
                f'skill "{skill.name}" declares input "{item.name}" more than once; keep one',
                skill.z,
            )
        else:
            names.append(item.name)
        if item.type not in INPUT_TYPES:
            found.error(
                "input-type",
                f'input "{item.name}" of skill "{skill.name}" has unknown type "{item.type}"; '
                f"use one of {', '.join(INPUT_TYPES)}",
                skill.z,
            )
    if "tool" in skill.plane.attributes and skill.tool is None:
        found.warn(
            "tool",
            f'skill "{skill.name}" has an empty tool=""; remove it or give the command',
            skill.z,
        )
    if skill.tool is None:
        return
    used = set()
    for match in PLACEHOLDER.finditer(skill.tool):
        used.add(match.group(1))
        if match.group(1) not in names:
            found.error(
                "tool-input",
                f'skill "{skill.name}" command uses {{{match.group(1)}}}, which is not one of '
                f'its inputs; declare it in inputs="..." or fix the placeholder',
                skill.z,
            )
    for name in names:
        if name not in used:
            found.warn(
                "unused-input",
                f'skill "{skill.name}" declares input "{name}" that its command never uses; '
                f"add {{{name}}} to the tool command or drop the input",
                skill.z,
            )


def _declared_tools(agent: AgentDocument, found: _Findings) -> None:
    declared = agent.tools
    if not declared:
        return
    for skill in agent.skills:
        if skill.tool is None:
            continue
        binary = first_word(skill.tool)
        if binary not in declared:
            found.warn(
                "undeclared-tool",
                f'skill "{skill.name}" runs "{binary}", which the frontmatter\'s tools: list '
                f"does not name; add it to tools:",
                skill.z,
            )
