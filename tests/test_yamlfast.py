"""yamlfast.py reads the plainest YAML exactly as ruamel.yaml's safe loader does, and
declines everything else.

The property tests run 150 examples each; for a long run (20,000 passed when written):
`METAPKG_FUZZ_EXAMPLES=20000 .venv/bin/python -m pytest -n 0 -q tests/test_yamlfast.py`.
"""

from __future__ import annotations

import dataclasses
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from metapkg import yamlfast, yamlsafe

FUZZ_EXAMPLES = int(os.environ.get("METAPKG_FUZZ_EXAMPLES", "150"))

MANIFEST = """\
# the project's packages
targets: [agents, claude]   # where they go
link-mode: copy
dependencies:
  skills:
    - https://github.com/acme/catalog/tree/main/skills/review#^1.2
    - "https://github.com/acme/catalog/tree/v1.0.0/skills/git-pr"
    - file:./local-skills/house-style
  mcps:
  - https://github.com/acme/catalog/tree/main/mcps/io.playwright_mcp.json
overrides: {}
trust:
  metaskills: []
"""
FRONTMATTER = """\
name: review
scope: acme
description: Reviews a pull request, then says what it found; it's quick.
version: 1.2.3-rc.1
metadata:
  author: 'Ada Lovelace'
  tags: [review, git]
"""


def _same(text: str, offset: int = 0) -> yamlfast.Parsed | None:
    """Assert that whatever the fast path accepts, ruamel reads the same way."""
    fast = yamlfast.parse(text, offset)
    if fast is None:
        return None
    try:
        slow = yamlsafe.load_with_ruamel(text, offset)
    except yamlsafe.YamlProblem as exc:
        pytest.fail(f"the fast path accepted what ruamel rejects ({exc}):\n{text}")
    value, lines, quoted = fast
    assert repr(value) == repr(slow.value), text
    assert lines == dict(slow.lines), text
    assert quoted == set(slow.quoted), text
    return fast


def test_manifests_and_frontmatter_take_the_fast_path() -> None:
    for text in (MANIFEST, FRONTMATTER, "", "# only a comment\n"):
        assert _same(text, offset=3) is not None, text
    located = yamlsafe.load(FRONTMATTER, 1)
    assert located.value["metadata"]["tags"] == ["review", "git"]
    assert located.line("metadata", "author") == 7 and ("metadata", "author") in located.quoted


@pytest.mark.parametrize(
    "text",
    [
        "version: 1.0\n",  # a float
        "count: 03\n",
        "count: 1_000\n",
        "commit: 12e45\n",  # a float
        "commit: 0b101\n",
        "path: .inf\n",
        "path: .5\n",
        "enabled: yes\n",
        "a: null\n",
        "a: ~\n",
        "a: &x b\nc: *x\n",
        "a: !!str b\n",
        "a: |\n  text\n",
        "a: b\n  continued\n",
        "a: {b: c}\n",
        "a: [b, 1]\n",
        "a:\n  - b: c\n   d: e\n",
        "a:\n  - b: c\n      d: e\n",
        "a: b\na: c\n",  # repeated key: ruamel reports it
        "a:\tb\n",
        "a: b\r\n",
        "---\na: b\n",
        "- a\n",
        '"a": b\n',
        'a: "b\\n"\n',
        "a: 'b\n  c'\n",
        "  a: b\n",
        "a:\n  b: c\n d: e\n",
        ".inf: x\n",  # a float key in the core schema: left to ruamel
        "- .NaN: x\n",
        "a" * 1025 + ": x\n",  # ruamel refuses a simple key this long
        "k:\n  - ." + "a" * 1025 + ": x\n",
    ],
)
def test_anything_else_is_left_to_ruamel(text: str) -> None:
    assert yamlfast.parse(text) is None
    try:
        fast_or_slow = yamlsafe.load(text)
    except yamlsafe.YamlProblem:
        return
    assert fast_or_slow == yamlsafe.load_with_ruamel(text)


# -- property tests --------------------------------------------------------------------------

TRICKY = [
    "", "yes", "No", "TRUE", "off", "On", "null", "Null", "~", "y", "n", "1", "-1", "1.0",
    "1.0.0", "1.0.0-rc.1+b5", "01.2.3", "1.2.3.4", "0x1F", "0o17", "1e3", ".inf", ".NaN",
    "2024-01-01", "2024-01-01 10:00:00", "a: b", "a:", "a:b", "a #b", "a#b", "C#", "it's",
    'say "hi"', "x, y", "[a]", "{a}", "&a", "*a", "!x", "|", ">", "%x", "@x", "`x", "-x",
    "- x", "?x", "? x", "é", "中文", "a\u00a0b", "a\u3000", "\u00a0a", "a\u2028b", "a\x85b",
    "a\ufeffb", "https://github.com/a/b/tree/main/x#^1.2", "file:./x", "/abs/path", "_x",
    "a b", "a  b", " a", "a ", "a\\b", "<<", "=", "inf", "nan", "NaN", "True1", "a-b.c",
    "0", "2", "007", "-3", "+4", "1_0", "12345678901234567890", "986da4a64b80d29c3108",
    "1234567890", "12e45", "0b101", "0b1a", "1e5f", "0x1fd", "ed01d4", ".agents/skills/x",
    ".a", ".Inf", ".iNf", ".nan", ".5", "..", "./x", "-y", "--port", "---x", "-.inf", "-1a",
    "-", "--", "- y", "-y: z",
]  # fmt: skip
ALPHABET = "ab Z_-.:#/'\",[]{}&*!|>%@`?~019é\\\t"

names = st.builds(
    lambda first, rest: first + rest,
    st.sampled_from("aZ_k"),
    st.text(alphabet="az09_.-", max_size=8),
)
keys = st.one_of(
    names,
    names,
    st.sampled_from(["name", "a", "b.c", "link-mode", "_x", "yes", "true", "null", "k1"]),
    st.sampled_from([".mcp.json", ".codex/config.toml", "a/b", ".inf", ".NaN", ".5", "./x"]),
    st.text(alphabet="abz_-.:1 #'", min_size=1, max_size=6),
)
# Mostly text of the subset (a letter first, then words and punctuation), then the tricky.
prose = st.builds(
    lambda first, rest: first + rest,
    st.sampled_from("aZ_/éx"),
    st.text(alphabet="ab Z019.,;/'\"#:-_()é中", max_size=20),
)
versions = st.builds(
    lambda parts, pre: ".".join(map(str, parts)) + pre,
    st.tuples(*[st.integers(min_value=0, max_value=999)] * 3),
    st.sampled_from(["", "-rc.1", "-alpha", "+b7", "-0.x"]),
)
scalars = st.one_of(
    prose,
    prose,
    prose,
    versions,
    st.sampled_from(TRICKY),
    st.text(alphabet=ALPHABET, max_size=12),
)


def _quote(text: str, mark: str) -> str:
    return f"{mark}{text}{mark}"


inline = st.one_of(
    scalars,
    st.builds(_quote, scalars, st.sampled_from(['"', "'"])),
    st.lists(scalars, max_size=3).map(lambda items: "[" + ", ".join(items) + "]"),
    st.sampled_from(["[]", "{}", "", "# c"]),
)


@st.composite
def documents(draw: st.DrawFn, depth: int = 0) -> list[tuple[int, str]]:
    """(indent level, line) pairs of a mapping, with nested mappings and sequences."""
    lines: list[tuple[int, str]] = []
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        key = draw(keys)
        shape = draw(
            st.sampled_from(["inline", "inline", "map", "seq", "indentless", "seq-of-maps"])
        )
        if shape == "inline" or depth >= 2:
            comment = draw(st.sampled_from(["", "", "  # note", " #x"]))
            lines.append((0, f"{key}: {draw(inline)}{comment}".rstrip()))
        elif shape == "seq-of-maps":  # as metapkg.lock lists its packages
            lines.append((0, f"{key}:"))
            level = draw(st.sampled_from([0, 1]))
            for _ in range(draw(st.integers(min_value=1, max_value=3))):
                entries = draw(st.lists(st.tuples(keys, inline), min_size=1, max_size=3))
                gap = draw(st.sampled_from(["", "", " "]))  # "-  a: b": keys one column on
                for index, (name, value) in enumerate(entries):
                    lead = f"-{gap} " if index == 0 else " " * (len(gap) + 2)
                    lines.append((level, f"{lead}{name}: {value}".rstrip()))
                if draw(st.booleans()):  # a nested list of scalars under one more key
                    lines.append((level, " " * (len(gap) + 2) + "deps:"))
                    for item in draw(st.lists(inline, min_size=1, max_size=2)):
                        lines.append((level, " " * (len(gap) + 4) + f"- {item}".rstrip()))
        elif shape == "map":
            lines.append((0, f"{key}:"))
            lines += [(level + 1, line) for level, line in draw(documents(depth + 1))]
        else:
            lines.append((0, f"{key}:"))
            level = 0 if shape == "indentless" else 1
            for item in draw(st.lists(inline, min_size=1, max_size=3)):
                lines.append((level, f"- {item}".rstrip()))
        if draw(st.booleans()) and draw(st.booleans()):
            lines.append((0, draw(st.sampled_from(["", "# comment", "   "]))))
    return lines


def _render(lines: list[tuple[int, str]], step: int) -> str:
    return "".join(" " * (level * step) + line + "\n" for level, line in lines)


@settings(max_examples=FUZZ_EXAMPLES, deadline=None)
@given(documents(), st.sampled_from([1, 2, 4]), st.integers(min_value=0, max_value=5))
def test_fuzz_documents_read_as_ruamel_reads_them(
    lines: list[tuple[int, str]], step: int, offset: int
) -> None:
    _same(_render(lines, step), offset)


@settings(max_examples=FUZZ_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents(), st.data())
def test_fuzz_damaged_documents_are_declined_or_read_as_ruamel_reads_them(
    lines: list[tuple[int, str]], data: st.DataObject
) -> None:
    text = _render(lines, 2)
    for _ in range(data.draw(st.integers(min_value=1, max_value=3))):
        at = data.draw(st.integers(min_value=0, max_value=len(text)))
        cut = data.draw(st.integers(min_value=0, max_value=2))
        text = (
            text[:at] + data.draw(st.text(alphabet=ALPHABET + "\n ", max_size=3)) + text[at + cut :]
        )
    _same(text)


def test_a_written_lock_takes_the_fast_path() -> None:
    """What lock/yamlout.py writes (lists of mappings, commit ids, paths, lock-version,
    MCP server commands, the config files servers were provisioned to) is read by the
    fast path, as ruamel reads it."""
    import graph_locks

    from metapkg.lock import format as lockfmt

    served = dataclasses.replace(  # what a project with MCP servers provisioned records
        graph_locks.after(),
        provisioned=(".claude/skills/a",),
        mcp_servers={".codex/config.toml": ("io.acme/srv",), ".mcp.json": ("io.acme/srv",)},
    )
    for lock in (graph_locks.before(), graph_locks.after(), graph_locks.layered(40), served):
        text = lockfmt.render(lock)
        assert _same(text) is not None, text
        assert lockfmt.render(lockfmt.parse(text)) == text
