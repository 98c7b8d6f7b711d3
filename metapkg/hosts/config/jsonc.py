"""JSON and JSONC edited in place: one member of one object set or removed, the rest of
the text left byte for byte as it was.

Why our own: the hosts' JSONC files (VS Code's mcp.json, OpenCode's opencode.jsonc,
Gemini CLI's settings.json) hold the user's comments and formatting next to the entries
metapkg writes, so they must never round-trip through a parser and a serialiser. On PyPI
``jsonc-edit`` wraps Microsoft's jsonc-parser but runs Node and downloads that parser at
first use; ``jsoncgx`` edits in place but is GPL-3.0 (metapkg is MIT); ``json-five`` is a
JSON5 (not JSONC) model whose new nodes need hand-built whitespace, and newer packages have
no track record. The edit this module needs is small: parse with byte offsets, then
replace, insert or delete one member, and re-parse. Strict JSON is the same grammar with
comments and trailing commas refused, so `.mcp.json` gets the same in-place treatment.

Parsing is as strict as metapkg.jsonsafe: duplicate keys, NaN, deep nesting and numbers
Python cannot hold are errors with a line, never a traceback.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from metapkg import limits

MAX_DEPTH = 64
_WS = " \t\r\n"
_STRING = re.compile(r'"(?:[^"\\\x00-\x1f]|\\.)*"', re.DOTALL)
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_LITERALS = {"true": True, "false": False, "null": None}


class JsoncError(ValueError):
    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


@dataclass
class Node:
    start: int
    end: int
    value: Any
    members: list[Member] = field(default_factory=list)  # objects only, in order


@dataclass
class Member:
    key: str
    key_start: int
    node: Node


@dataclass(frozen=True)
class Syntax:
    comments: bool  # // and /* */ allowed
    trailing_commas: bool


JSON = Syntax(comments=False, trailing_commas=False)


def line_at(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


class _Parser:
    def __init__(self, text: str, syntax: Syntax) -> None:
        self.text = text
        self.syntax = syntax
        self.pos = 0
        self.has_comments = False

    def fail(self, message: str, at: int | None = None) -> JsoncError:
        where = self.pos if at is None else at
        return JsoncError(f"invalid JSON: {message}", line_at(self.text, where))

    def skip(self) -> None:
        """Whitespace and (where allowed) comments."""
        text = self.text
        while self.pos < len(text):
            char = text[self.pos]
            if char in _WS:
                self.pos += 1
            elif text.startswith("//", self.pos) or text.startswith("/*", self.pos):
                if not self.syntax.comments:
                    raise self.fail("comments are not allowed in this file")
                self.has_comments = True
                if text.startswith("//", self.pos):
                    newline = text.find("\n", self.pos)
                    self.pos = len(text) if newline < 0 else newline
                else:
                    close = text.find("*/", self.pos + 2)
                    if close < 0:
                        raise self.fail("a /* comment is never closed")
                    self.pos = close + 2
            else:
                return

    def document(self) -> Node:
        self.skip()
        node = self.value(0)
        self.skip()
        if self.pos != len(self.text):
            raise self.fail("extra text after the end of the document")
        return node

    def value(self, depth: int) -> Node:
        if depth >= MAX_DEPTH:
            raise self.fail(f"nested more than {MAX_DEPTH} levels deep; flatten it")
        text, start = self.text, self.pos
        if start >= len(text):
            raise self.fail("unexpected end of the file")
        char = text[start]
        if char == "{":
            return self.container(depth, "}")
        if char == "[":
            return self.container(depth, "]")
        if char == '"':
            return Node(start, self.string_end(), self.decode(start, self.pos))
        match = _NUMBER.match(text, start)
        if match and match.end() > start:
            self.pos = match.end()
            return Node(start, self.pos, self.decode(start, self.pos))
        for word, literal in _LITERALS.items():
            if text.startswith(word, start):
                self.pos = start + len(word)
                return Node(start, self.pos, literal)
        raise self.fail(f"unexpected character {char!r}")

    def string_end(self) -> int:
        match = _STRING.match(self.text, self.pos)
        if not match:
            raise self.fail("a string is not closed or holds a raw control character")
        self.pos = match.end()
        return self.pos

    def decode(self, start: int, end: int) -> Any:
        try:
            return json.loads(self.text[start:end])
        except ValueError as exc:  # a bad escape; a number past Python's digit limit
            why = limits.unreadable_value(exc)
            raise self.fail(f"a value cannot be read ({why})", start) from None

    def container(self, depth: int, close: str) -> Node:
        start = self.pos
        self.pos += 1
        node = Node(start, start, {} if close == "}" else [])
        first = True
        while True:
            self.skip()
            if self.text.startswith(close, self.pos):
                self.pos += 1
                node.end = self.pos
                return node
            if not first:
                if not self.text.startswith(",", self.pos):
                    raise self.fail(f"expected ',' or '{close}'")
                self.pos += 1
                self.skip()
                if self.text.startswith(close, self.pos):
                    if not self.syntax.trailing_commas:
                        raise self.fail("a trailing comma is not allowed here")
                    continue
            first = False
            if close == "}":
                self.member(node, depth)
            else:
                child = self.value(depth + 1)
                node.value.append(child.value)

    def member(self, node: Node, depth: int) -> None:
        key_start = self.pos
        if not self.text.startswith('"', key_start):
            raise self.fail("expected a quoted key")
        key = self.decode(key_start, self.string_end())
        if key in node.value:
            raise self.fail(f"duplicate key {key!r}; keep one", key_start)
        self.skip()
        if not self.text.startswith(":", self.pos):
            raise self.fail("expected ':' after a key")
        self.pos += 1
        self.skip()
        child = self.value(depth + 1)
        node.value[key] = child.value
        node.members.append(Member(key, key_start, child))


@dataclass(frozen=True)
class Document:
    text: str
    root: Node
    has_comments: bool

    @property
    def value(self) -> Any:
        return self.root.value

    def find(self, path: tuple[str, ...]) -> Node | None:
        node: Node | None = self.root
        for key in path:
            if node is None or not isinstance(node.value, dict):
                return None
            node = next((m.node for m in node.members if m.key == key), None)
        return node


def parse(text: str, syntax: Syntax = JSON) -> Document:
    parser = _Parser(text, syntax)
    try:
        root = parser.document()
    except RecursionError:
        raise JsoncError(f"invalid JSON: nested more than {MAX_DEPTH} levels deep") from None
    return Document(text, root, parser.has_comments)
