"""Agent files in the formats hosts read: Markdown with YAML frontmatter, or TOML (Codex).

Byte-stable by construction: keys in the order given, every string value written as a
double-quoted scalar (a JSON string is a valid YAML 1.2 double-quoted scalar), the body
with leading blank lines dropped and exactly one final newline. No YAML or TOML library
is involved, so the output cannot change with a library version.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from metapkg.hosts.model import AgentDoc, Rendered


def body_text(body: str) -> str:
    """The body as written: no leading blank lines, one trailing newline."""
    text = body.replace("\r\n", "\n").lstrip("\n").rstrip()
    return text + "\n" if text else ""


def yaml_scalar(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def markdown_agent(path: str, fields: Sequence[tuple[str, str]], body: str) -> Rendered:
    """``---`` + one ``key: "value"`` line per field + ``---``, a blank line, the body."""
    lines = ["---", *(f"{key}: {yaml_scalar(value)}" for key, value in fields), "---"]
    text = "\n".join(lines) + "\n"
    rest = body_text(body)
    if rest:
        text += "\n" + rest
    return Rendered(path, text.encode("utf-8"))


def frontmatter_agent(
    folder: str, suffix: str, agent: AgentDoc, *extra: tuple[str, str]
) -> Rendered:
    """The common case: ``<folder>/<name><suffix>`` with name, description and ``extra``."""
    fields = (("name", agent.name), ("description", agent.description), *extra)
    return markdown_agent(f"{folder}/{agent.name}{suffix}", fields, agent.body)


# --- TOML strings ------------------------------------------------------------------------

_SHORT = {"\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def _escape_char(char: str, multiline: bool) -> str:
    if char == "\\":
        return "\\\\"
    if multiline and char in "\n\t":
        return char
    if char in _SHORT:
        return _SHORT[char]
    code = ord(char)
    if code < 0x20 or code == 0x7F:
        return f"\\u{code:04X}"
    return char


def toml_string(value: str) -> str:
    """A TOML basic string (one line)."""
    escaped = "".join('\\"' if c == '"' else _escape_char(c, False) for c in value)
    return f'"{escaped}"'


def toml_multiline(value: str) -> str:
    """A TOML multi-line basic string that reads back as exactly ``value``.

    Quotes are escaped only where they could close the string: inside a run of three or
    more, and at the very end (next to the closing delimiter).
    """
    out: list[str] = []
    index = 0
    while index < len(value):
        char = value[index]
        if char == '"':
            run = len(value[index:]) - len(value[index:].lstrip('"'))
            at_end = index + run == len(value)
            quote = '\\"' if run >= 3 or at_end else '"'
            out.append(quote * run)
            index += run
            continue
        out.append(_escape_char(char, True))
        index += 1
    # A newline right after the opening delimiter is trimmed by TOML: start on a new line
    # so the value's own first character (even a newline) is kept.
    return '"""\n' + "".join(out) + '"""'


def toml_agent(
    path: str, fields: Sequence[tuple[str, str]], long_field: tuple[str, str]
) -> Rendered:
    """``key = "value"`` lines, then one multi-line string field (the instructions)."""
    lines = [f"{key} = {toml_string(value)}" for key, value in fields]
    key, value = long_field
    lines.append(f"{key} = {toml_multiline(value)}")
    return Rendered(path, ("\n".join(lines) + "\n").encode("utf-8"))


def agent_doc(text: str) -> AgentDoc:
    """An AgentDoc from an AGENTS.md's text (the package checks have already passed). A
    plain agents.md file has no frontmatter: all of it is the instructions, and the agent
    is named after its folder (the caller's name replaces the empty one)."""
    from metapkg.packages import frontmatter

    if not frontmatter.opens_frontmatter(text):
        return AgentDoc("", "", text)
    parsed = frontmatter.parse(text)
    fields = parsed.fields
    return AgentDoc(str(fields["name"]), str(fields.get("description", "")), parsed.body)
