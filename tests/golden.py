"""Golden files: text people read, kept under tests/snapshots/ and reviewed like code.

A test compares what metapkg prints with the file; a difference fails with a unified diff.
After a deliberate change, rewrite the files and review them in the commit:

    METAPKG_UPDATE_SNAPSHOTS=1 .venv/bin/python -m pytest -n 0 tests/test_graph.py
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

SNAPSHOTS = Path(__file__).resolve().parent / "snapshots"


def assert_matches(name: str, text: str) -> None:
    path = SNAPSHOTS / name
    if os.environ.get("METAPKG_UPDATE_SNAPSHOTS") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="\n")
        return
    assert path.exists(), f"no snapshot {path}; run with METAPKG_UPDATE_SNAPSHOTS=1 to write it"
    expected = path.read_text(encoding="utf-8")
    if text != expected:
        diff = difflib.unified_diff(
            expected.splitlines(keepends=True),
            text.splitlines(keepends=True),
            f"tests/snapshots/{name}",
            "output",
        )
        raise AssertionError(
            "output differs from its snapshot (METAPKG_UPDATE_SNAPSHOTS=1 rewrites it):\n"
            + "".join(diff)
        )
