"""Is a JSON text "pretty-printed with 2-space indent and a trailing newline"?

That is what the MetaAgents spec asks of MCP configs, and no more: the output of one
serializer is not the rule. Python's ``json.dumps(indent=2)``, JavaScript's
``JSON.stringify(x, null, 2)`` and Prettier all pass, although Prettier keeps short
arrays on one line and nobody rewrites ``1e3``. What fails: another indent width, tabs,
a one-line file, a missing or doubled final newline.
"""

from __future__ import annotations

CLOSERS = "}]"


def problem(text: str) -> tuple[int | None, str] | None:
    """(line, what is wrong) for the first departure from the format, or None.

    ``text`` must already be valid JSON (the caller parsed it).
    """
    text = text.removeprefix("\ufeff")
    if not text.endswith("\n"):
        return None, "the file must end with a newline"
    if text.endswith("\n\n") or text.endswith("\n\r\n"):
        return None, "the file must end with exactly one newline, not blank lines"
    depth = 0
    for number, raw in enumerate(text.split("\n")[:-1], start=1):
        line = raw.removesuffix("\r")
        stripped = line.lstrip(" ")
        if stripped.startswith("\t") or "\t" in line[: len(line) - len(stripped)]:
            return number, "indent with spaces, not tabs"
        if not stripped:
            continue  # a blank line between members (Prettier keeps them)
        expected = depth - 1 if stripped[0] in CLOSERS else depth
        indent = len(line) - len(stripped)
        if indent != 2 * expected:
            return number, f"this line is indented by {indent} spaces; expected {2 * expected}"
        depth = _depth_after(stripped, depth)
        if number == 1 and depth == 0 and stripped not in ("{}", "[]"):
            return 1, "the whole object is on one line; put each member on its own line"
    return None


def _depth_after(line: str, depth: int) -> int:
    in_string = escaped = False
    for char in line:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            depth += 1
        elif char in CLOSERS:
            depth -= 1
    return depth
