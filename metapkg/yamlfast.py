"""The plainest YAML, read without ruamel.yaml: what manifests and frontmatter are made of.

Importing ruamel.yaml and building its loader costs more than the rest of a small install
reading twenty SKILL.md files, yet almost every manifest and frontmatter is a handful of
``key: value`` lines, lists of origins and a nested mapping or two; and ruamel's
pure-Python composer reads a 3,000-package metapkg.lock (lists of mappings, as
lock/yamlout.py writes them) in 1-2 s. :func:`parse` reads exactly that subset:

* block mappings whose keys are plain names (``[A-Za-z_][A-Za-z0-9_./-]*``) or dotted
  paths (``.mcp.json``, ``.codex/config.toml``: the lock's provisioned config files; not
  ``.inf`` or ``.nan``), nested by indentation (spaces), with at most one value per line;
* block sequences (indented, or at their key's indentation) of scalars, or of such
  mappings (``- kind: skill`` with the other keys in the column of ``kind``);
* scalars: plain text that the core schema can only read as a string (it starts with a
  letter, ``_``, ``/`` or a non-ASCII character and is not a boolean or null word; or it
  is a ``1.2.3`` version, a path like ``.agents/x``, an option like ``-y`` or ``--port``,
  or lowercase hex holding one of
  ``acdf``, as commit ids do), a plain decimal integer of up to 18 digits, or quoted text
  without escapes; ``[a, b]`` lists of plain names; ``{}`` and ``[]``;
* comments and blank lines.

For anything else (other numbers, booleans, anchors, tags, multi-line scalars, flow mappings,
tabs, CRLF, document markers, a repeated key, odd indentation, anything invalid) it
returns None, and yamlsafe uses ruamel.yaml's safe loader. Inside the subset the result
is what that loader gives: the same values, the same line of every key, the same set of
quoted scalars (tests/test_yamlfast.py checks it with hypothesis).
"""

from __future__ import annotations

import re

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy knows the name)
if TYPE_CHECKING:
    from typing import Any

Key = tuple[str | int, ...]
Parsed = tuple[object, dict[Key, int], set[Key]]

_MAX_DEPTH = 20
# Characters YAML refuses, and tab, CR, NEL, BOM and the Unicode line and paragraph
# separators, which ruamel treats specially: the subset has none of them. The class for
# all of Unicode takes 5 ms to compile, so it is compiled for the first text that needs it.
_ASCII_UNUSUAL = re.compile("[\x00-\x09\x0b-\x1f\x7f]")
_UNUSUAL = "[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]"
# ruamel refuses a simple key of 1,024 characters or more; the subset stops well short.
_KEY = re.compile(r"((?:[A-Za-z_]|\.[A-Za-z])[A-Za-z0-9_./-]{0,999}):(?: +(.*))?")
_FLOATS = (".inf", ".nan")  # keys _KEY admits that the core schema reads as numbers
_VERSION = re.compile(r"[0-9]+\.[0-9]+\.[0-9]+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_./-]*")
_INT = re.compile(r"0|[1-9][0-9]{0,17}")
_FLOW = re.compile(r"[][{}]")  # flow collection characters: never in a plain scalar here
# A commit id: lowercase hex. One holding a, c, d or f is no number in any YAML schema (a
# number's letters are e, x, o, b; 0x needs the x); others are left to ruamel.
_HEX = re.compile(r"[0-9a-f]+")
_NOT_NUMERIC = re.compile(r"[acdf]")
# Plain words some YAML schema reads as booleans or null (1.2 and 1.1 alike).
_SPECIAL_WORDS = frozenset(["y", "n", "yes", "no", "true", "false", "on", "off", "null"])
_NO = object()  # "not in the subset"


class _Line:
    __slots__ = ("content", "indent", "number")

    def __init__(self, number: int, indent: int, content: str) -> None:
        self.number = number
        self.indent = indent
        self.content = content


def parse(text: str, line_offset: int = 0) -> Parsed | None:
    """(value, line of each key, quoted keys) as yamlsafe.load gives them, or None when
    ``text`` is outside the subset (the caller then parses it with ruamel.yaml)."""
    if _ASCII_UNUSUAL.search(text) or (not text.isascii() and re.search(_UNUSUAL, text)):
        return None
    lines = []
    for number, raw in enumerate(text.split("\n"), start=1 + line_offset):
        content = raw.lstrip(" ")
        if not content or content.startswith("#") or not content.strip(" "):
            continue
        if raw.startswith(("---", "...", "%")):
            return None
        lines.append(_Line(number, len(raw) - len(content), content.rstrip(" ")))
    if not lines:
        return None, {(): 1 + line_offset}, set()
    if lines[0].indent != 0:
        return None
    reader = _Reader(lines)
    value, end = reader.mapping(0, 0, ())
    if value is _NO or end != len(lines):
        return None
    reader.places[()] = lines[0].number
    return value, reader.places, reader.quoted


class _Reader:
    def __init__(self, lines: list[_Line]) -> None:
        self.lines = lines
        self.places: dict[Key, int] = {}
        self.quoted: set[Key] = set()

    def _at(self, pos: int) -> _Line | None:
        return self.lines[pos] if pos < len(self.lines) else None

    def mapping(self, pos: int, indent: int, key: Key) -> tuple[Any, int]:
        if len(key) > _MAX_DEPTH:
            return _NO, pos
        result: dict[str, Any] = {}
        line = self._at(pos)
        while line is not None and line.indent == indent:
            found = _KEY.fullmatch(line.content)
            if found is None or found.group(1) in result or found.group(1).lower() in _FLOATS:
                return _NO, pos
            name, rest = found.group(1), found.group(2) or ""
            path = (*key, name)
            if rest and not rest.startswith("#"):
                value = self.scalar(rest, path, line.number, allow_flow=True)
                pos += 1
            else:
                value, pos = self.nested(pos + 1, indent, path)
            if value is _NO:
                return _NO, pos
            result[name] = value
            self.places[path] = line.number
            line = self._at(pos)
        if line is not None and line.indent > indent:
            return _NO, pos
        return result, pos

    def nested(self, pos: int, indent: int, key: Key) -> tuple[Any, int]:
        """The value of a key with nothing after its colon: a block below it, or null."""
        line = self._at(pos)
        if line is None or line.indent < indent:
            return None, pos
        if line.indent == indent:
            if _is_item(line.content):  # a sequence at its key's indentation
                return self.sequence(pos, indent, key, indentless=True)
            return None, pos
        if _is_item(line.content):
            return self.sequence(pos, line.indent, key, indentless=False)
        return self.mapping(pos, line.indent, key)

    def sequence(self, pos: int, indent: int, key: Key, indentless: bool) -> tuple[Any, int]:
        items: list[Any] = []
        line = self._at(pos)
        while line is not None and line.indent == indent and _is_item(line.content):
            if not line.content.startswith("- "):
                return _NO, pos  # "-" alone: a null item or a block below it
            path = (*key, len(items))
            rest = line.content[2:].lstrip(" ")
            if _KEY.fullmatch(rest):  # "- name: ...": a mapping, its keys in rest's column
                column = line.indent + len(line.content) - len(rest)
                self.lines[pos] = _Line(line.number, column, rest)
                value, pos = self.mapping(pos, column, path)
            else:
                value = self.scalar(rest, path, line.number, False)
                pos += 1
            if value is _NO:
                return _NO, pos
            items.append(value)
            self.places[path] = line.number
            line = self._at(pos)
        if line is not None and (
            line.indent > indent or (line.indent == indent and not indentless)
        ):
            return _NO, pos
        return items, pos

    def scalar(self, text: str, key: Key, number: int, allow_flow: bool) -> Any:
        if text[0] in "\"'":
            return self._quoted(text, key)
        text = _uncommented(text)
        if allow_flow and text in ("[]", "{}"):
            return [] if text == "[]" else {}
        if allow_flow and text.startswith("[") and text.endswith("]"):
            names = [item.strip(" ") for item in text[1:-1].split(",")]
            if not all(_NAME.fullmatch(n) and n.lower() not in _SPECIAL_WORDS for n in names):
                return _NO
            for index in range(len(names)):
                self.places[(*key, index)] = number
            return names
        return _plain(text)

    def _quoted(self, text: str, key: Key) -> Any:
        mark = text[0]
        end = text.find(mark, 1)
        if end < 0:
            return _NO  # continues on the next line
        inside, after = text[1:end], text[end + 1 :]
        if mark == '"' and "\\" in inside:
            return _NO  # escapes
        if after and not (after.startswith(" ") and _uncommented(after) == ""):
            return _NO
        self.quoted.add(key)
        return inside


def _is_item(content: str) -> bool:
    return content == "-" or content.startswith("- ")


def _uncommented(text: str) -> str:
    """``text`` without a trailing `` # comment`` and the spaces before it."""
    cut = text.find(" #")
    return (text if cut < 0 else text[:cut]).rstrip(" ")


def _plain(text: str) -> Any:
    """A plain scalar every YAML schema reads as this very string (or, for a plain decimal
    number of up to 18 digits, as that int), else _NO."""
    if not text or ": " in text or text.endswith(":") or _FLOW.search(text):
        return _NO
    if not text.isascii() and any(c.isspace() and c != " " for c in text):
        return _NO
    first = text[0]
    if first.isalpha() or first in "_/":
        return _NO if text.lower() in _SPECIAL_WORDS else text
    if first == "." and text[1:2].isalpha() and text.lower() not in (".inf", ".nan"):
        return text  # a path such as .agents/skills/x (not .inf, .NaN, .5)
    if first == "-" and text.lstrip("-")[:1].isalpha() and len(text) - len(text.lstrip("-")) < 3:
        return text  # an option such as -y or --port (not -1, -.inf, ---)
    if _INT.fullmatch(text):
        return int(text)
    if _VERSION.fullmatch(text) or (_HEX.fullmatch(text) and _NOT_NUMERIC.search(text)):
        return text
    return _NO
