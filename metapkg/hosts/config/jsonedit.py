"""Set or remove one member of a JSON(C) object, editing only the bytes of that member.

Each function takes the text and returns new text; callers re-parse between edits (the
files are small, and one edit at a time keeps every offset simple and checkable). New
members follow the object's own style: on their own lines at the indentation of their
siblings (or one unit deeper than the object), or inline when the object is inline; a
trailing comma only where the object already has one.
"""

from __future__ import annotations

import json
from typing import Any

from metapkg.hosts.config.jsonc import Document, Node, Syntax, parse

_BLANK = " \t"


def indent_unit(text: str) -> str:
    """The file's indentation step: the first indented line's leading whitespace."""
    for line in text.splitlines():
        stripped = line.lstrip(_BLANK)
        if stripped and stripped != line:
            lead = line[: len(line) - len(stripped)]
            return "\t" if lead.startswith("\t") else lead
    return "  "


def _line_start(text: str, index: int) -> int:
    return text.rfind("\n", 0, index) + 1


def _indent_of(text: str, index: int) -> str:
    start = _line_start(text, index)
    line = text[start:index]
    return line[: len(line) - len(line.lstrip(_BLANK))]


def _starts_line(text: str, index: int) -> bool:
    return text[_line_start(text, index) : index].strip(_BLANK) == ""


def newlines(text: str, fragment: str) -> str:
    """``fragment`` with the file's line endings (CRLF files stay CRLF)."""
    return fragment.replace("\n", "\r\n") if "\r\n" in text else fragment


def render(value: Any, indent: str, unit: str, inline: bool) -> str:
    if inline:
        return json.dumps(value, ensure_ascii=False)
    return json.dumps(value, indent=unit, ensure_ascii=False).replace("\n", "\n" + indent)


def _after_value(text: str, end: int) -> tuple[int, bool]:
    """From a value's end: the index past a following comma (if any, with only blanks
    between) and whether there was one."""
    index = end
    while index < len(text) and text[index] in _BLANK:
        index += 1
    if index < len(text) and text[index] == ",":
        return index + 1, True
    return end, False


def _end_of_line_comment(text: str, index: int) -> int:
    """Past blanks and a same-line comment from ``index``; stops before the newline."""
    probe = index
    while probe < len(text) and text[probe] in _BLANK:
        probe += 1
    if text.startswith("//", probe):
        newline = text.find("\n", probe)
        end = len(text) if newline < 0 else newline
        return end - 1 if text[probe:end].endswith("\r") else end
    if text.startswith("/*", probe):
        close = text.find("*/", probe)
        if close >= 0 and "\n" not in text[probe:close]:
            return _end_of_line_comment(text, close + 2)
    return index


def set_member(doc: Document, obj: Node, key: str, value: Any) -> str:
    """``obj[key] = value``: replace the value in place, or insert a new member."""
    text = doc.text
    unit = indent_unit(text)
    existing = next((m for m in obj.members if m.key == key), None)
    if existing is not None:
        node = existing.node
        inline = not _starts_line(text, existing.key_start)
        rendered = render(value, _indent_of(text, existing.key_start), unit, inline)
        return text[: node.start] + newlines(text, rendered) + text[node.end :]
    encoded = json.dumps(key, ensure_ascii=False)
    if not obj.members:
        return _insert_first(text, obj, encoded, value, unit)
    first, last = obj.members[0], obj.members[-1]
    inline = not _starts_line(text, first.key_start)
    past_comma, trailing = _after_value(text, last.node.end)
    if inline:
        member = f"{encoded}: {render(value, '', unit, True)}"
        if trailing:
            return text[:past_comma] + f" {member}," + text[past_comma:]
        return text[: last.node.end] + f", {member}" + text[last.node.end :]
    indent = _indent_of(text, first.key_start)
    member = newlines(text, f"\n{indent}{encoded}: {render(value, indent, unit, False)}")
    at = _end_of_line_comment(text, past_comma)
    if trailing:
        return text[:at] + member + "," + text[at:]
    return text[: last.node.end] + "," + text[last.node.end : at] + member + text[at:]


def _insert_first(text: str, obj: Node, encoded: str, value: Any, unit: str) -> str:
    outer = _indent_of(text, obj.start)
    inner_text = text[obj.start + 1 : obj.end - 1]
    indent = outer + unit
    if "\n" not in text and not inner_text.strip(" \t"):  # a one-line file stays one line
        member = f"{encoded}: {render(value, '', unit, True)}"
        return text[: obj.start + 1] + member + text[obj.end - 1 :]
    member = f"{encoded}: {render(value, indent, unit, False)}"
    if inner_text.strip(" \t\r\n") == "":
        fragment = newlines(text, f"\n{indent}{member}\n{outer}")
        return text[: obj.start + 1] + fragment + text[obj.end - 1 :]
    # only comments inside: put the member first, leave the comments where they are
    return text[: obj.start + 1] + newlines(text, f"\n{indent}{member}") + text[obj.start + 1 :]


def remove_member(doc: Document, obj: Node, key: str) -> str:
    """Delete ``obj[key]`` with its comma; whole lines when it sits on lines of its own. An
    object left with nothing but whitespace inside becomes ``{}``."""
    result = _cut_member(doc, obj, key)
    close = obj.end - 1 - (len(doc.text) - len(result))
    if result[obj.start + 1 : close].strip(" \t\r\n") == "":
        result = result[: obj.start + 1] + result[close:]
    return result


def _cut_member(doc: Document, obj: Node, key: str) -> str:
    text = doc.text
    index = next(i for i, m in enumerate(obj.members) if m.key == key)
    member = obj.members[index]
    past_comma, has_comma = _after_value(text, member.node.end)
    start, end = member.key_start, past_comma if has_comma else member.node.end
    own_line = _starts_line(text, start)
    rest = _end_of_line_comment(text, end)
    if own_line and rest == end and text[end:].lstrip(_BLANK)[:1] in ("\n", "\r"):
        start = _line_start(text, start)
        end = text.index("\n", end) + 1
    elif not own_line:
        while end < len(text) and text[end] in _BLANK:
            end += 1  # inline: take the space after the comma too
    if not has_comma and index > 0:
        # the last member: the comma before it goes (the previous value keeps its comments)
        comma, _ = _after_value(text, obj.members[index - 1].node.end)
        if comma != obj.members[index - 1].node.end:
            head = text[: comma - 1] + text[comma:start]
            if not own_line:
                head = head.rstrip(_BLANK)
            return head + text[end:]
    return text[:start] + text[end:]


def set_path(text: str, syntax: Syntax, path: tuple[str, ...], key: str, value: Any) -> str:
    """``doc[path...][key] = value``, creating missing objects on ``path``."""
    doc = parse(text, syntax)
    node = doc.root
    for depth, step in enumerate(path):
        child = next((m.node for m in node.members if m.key == step), None)
        if child is None:
            nested: Any = {key: value}
            for outer in reversed(path[depth + 1 :]):
                nested = {outer: nested}
            return set_member(doc, node, step, nested)
        node = child
    return set_member(doc, node, key, value)


def remove_path(text: str, syntax: Syntax, path: tuple[str, ...], key: str) -> str:
    doc = parse(text, syntax)
    node = doc.find(path)
    if node is None or not any(m.key == key for m in node.members):
        return text
    return remove_member(doc, node, key)
