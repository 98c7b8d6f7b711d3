"""untrusted.printable: the one set of characters every medium shows escaped."""

from __future__ import annotations

import pytest

from metapkg.graph import escape
from metapkg.untrusted import printable


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("\x1b[2Kall good", "\\x1b[2Kall good"),  # an escape sequence erasing a line
        ("a\nerror[x]: forged", "a\\nerror[x]: forged"),
        ("admin\u202egnp.exe", "admin\\u202egnp.exe"),  # a bidi override
        ("line\u2028break", "line\\u2028break"),  # a line separator
        ("priv\ue000ate", "priv\\ue000ate"),  # private use: draws as anything
        ("plain name 1.2.0 · é中", "plain name 1.2.0 · é中"),
    ],
)
def test_terminal_output_shows_hidden_characters_as_escapes(text: str, shown: str) -> None:
    assert printable(text) == shown


def test_graph_labels_escape_the_same_characters_in_the_form_mermaid_cannot_break() -> None:
    for text in ("a\nb", "x\u202ey", "line\u2028break", "priv\ue000ate", "ok é"):
        hidden = [c for c in text if printable(c) != c]
        assert all(f"\\u{ord(c):04x}" in escape.visible(text) for c in hidden)
        assert "\\n" not in escape.visible(text)  # Mermaid would draw it as a line break
    assert escape.visible("ok é") == "ok é"
