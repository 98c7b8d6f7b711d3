"""Text that is almost a valid document: the inputs that reach a parser's deep paths.

Purely random text is refused on its first line; real hostile input is a valid file
with a few edits. ``near(seeds, tokens)`` draws a valid seed document and applies a
handful of edits: insert a token of the format (or random characters), delete or
duplicate a span, duplicate or re-indent a line. Now and then it draws text built only
from the format's tokens, or anything at all, instead.
"""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import strategies as st

# Characters that break naive text handling: controls, line and paragraph separators, a
# BOM, a NUL, right-to-left marks, combining characters, astral-plane symbols.
AWKWARD = [
    "\x00", "\x07", "\x1b[2J", "\x1b]8;;x\x07", "\r", "\r\n", "\x0b", "\x0c", "\x85",
    "\u2028", "\u2029", "\ufeff", "\u200b", "\u202e", "\u0301", "\U0001f600", "\uffff",
    "é", "日本", "\t", " ", "\\",
]  # fmt: skip

YAML_TOKENS = [
    ":", ": ", "- ", "-", "[", "]", "{", "}", ", ", "&a ", "*a", "&b [1]", "!!binary ",
    "!!python/object/apply:os.system ", "!local ", "!!str ", "!!int ", "!!map ", "---\n",
    "...\n", "\n", "\n  ", "\n    - ", "#", "'", '"', "|\n  ", ">-\n  ", "? ", "%YAML 1.1\n",
    "%TAG ! tag:x,2000:\n", "<<: ", "<<: *a", "~", "null", "yes", "on", "1e999", ".nan",
    "-.inf", "0x1F", "0o17", "0b101", "1_000", "2001-12-14t21:59:43.10-05:00", "2026-13-45",
    "9" * 5000, "=", "@", "`", "%", "!", "&", "*", "|", ">", "[[[[[[[[", "{{{{{{{{",
    "- - - - - - ", "a: b: c", "? [a]: b",
]  # fmt: skip

JSON_TOKENS = [
    "{", "}", "[", "]", ",", ":", '"', "true", "false", "null", "NaN", "Infinity",
    "-Infinity", "-", "1e400", "-0", "1.5e-400", "9" * 5000, '"\\u0000"', '"\\ud800"',
    '"\\udc00x"', '"\\uDFFF"', '"\\"', "\\", "//", "/*", "'", '"_meta"', '"name"',
    '"command"', '"args"', '"${workspaceDir}"', '"${sharedDir}"', '"${nope}"', '"$HOME"',
    '"%APPDATA%"', '"bash"', '"-c"', '"url"', '"headers"', '"env"', "[[[[[[[[", "{{{{{{{{",
]  # fmt: skip

MARKDOWN_TOKENS = [
    "## ", "### ", "# ", "\n", "\n\n", "```", "~~~", "```\n", "- ", "* ", "1. ", "> ",
    "(", ")", "[", "]", "2026-01-15", "0000-00-00", "9999-99-99", "1.0.0", "0.0.0-rc.1",
    "1.0.0+build", "01.0.0", "v1.0.0", "Unreleased", "[Unreleased]", "<details>",
    "</details>", "<!--", "-->", "@plane", "@plane z=1", " z=", " label=", '"', "|",
    "9" * 5000 + ".0.0", "1.0.0-" + "9" * 5000,
]  # fmt: skip


def _pieces(tokens: Sequence[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.sampled_from([*tokens, *AWKWARD]),
        st.text(max_size=6),
    )


@st.composite
def _edited(draw: st.DrawFn, seeds: Sequence[str], tokens: Sequence[str]) -> str:
    text = draw(st.sampled_from(seeds))
    for _ in range(draw(st.integers(1, 8))):
        op = draw(st.sampled_from(("insert", "insert", "delete", "dup-span", "dup-line", "indent")))
        at = draw(st.integers(0, len(text)))
        if op == "insert":
            text = text[:at] + draw(_pieces(tokens)) + text[at:]
        elif op == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 12)) :]
        elif op == "dup-span":
            span = text[at : at + draw(st.integers(1, 40))]
            text = text[:at] + span * draw(st.integers(2, 4)) + text[at:]
        else:
            lines = text.split("\n")
            index = draw(st.integers(0, max(0, len(lines) - 1)))
            if op == "dup-line":
                lines.insert(index, lines[index])
            else:
                lines[index] = draw(st.sampled_from(("", " ", "  ", "\t"))) + lines[index]
            text = "\n".join(lines)
    return text


def near(seeds: Sequence[str], tokens: Sequence[str]) -> st.SearchStrategy[str]:
    """Mostly edited seeds; sometimes token soup; rarely any text at all."""
    soup = st.lists(_pieces(tokens), max_size=30).map("".join)
    return st.one_of(
        _edited(seeds, tokens),
        _edited(seeds, tokens),
        _edited(seeds, tokens),
        soup,
        st.text(max_size=200),
    )
