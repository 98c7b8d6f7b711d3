"""The 43 public 3md parser vectors, read unchanged from the shared conformance folder.

The folder is ``<repo>/../shared/conformance/3md-parser``; set ``METAPKG_SHARED_DIR_SPECS``
to the ``shared`` folder (the one holding ``specs/`` and ``conformance/``) when it lives
elsewhere. Without it the vectors are skipped, with the reason printed.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO

from metapkg.agent3md import ParseError, links, parse

_SHARED = Path(os.environ.get("METAPKG_SHARED_DIR_SPECS") or REPO.parent / "shared")
VECTORS = _SHARED / "conformance" / "3md-parser"


def _vectors() -> list[Any]:
    files = sorted(VECTORS.glob("*.json"))
    if not files:
        reason = f"no 3md parser vectors at {VECTORS} (set METAPKG_SHARED_DIR_SPECS)"
        return [pytest.param(None, marks=pytest.mark.skip(reason=reason), id="no-vectors")]
    return [pytest.param(path, id=path.stem) for path in files]


@pytest.mark.parametrize("path", _vectors())
def test_vector(path: Path) -> None:
    vector = json.loads(path.read_text(encoding="utf-8"))
    if "error" in vector:
        with pytest.raises(ParseError) as raised:
            parse(vector["source"])
        assert raised.value.code == vector["error"], raised.value.message
    elif "links" in vector:
        found = links(parse(vector["source"]))
        assert [link.as_json() for link in found] == vector["links"]
    else:
        assert parse(vector["source"]).as_json() == vector["expected"]


def test_all_43_vectors_are_there() -> None:
    if not VECTORS.is_dir():
        pytest.skip(f"no 3md parser vectors at {VECTORS} (set METAPKG_SHARED_DIR_SPECS)")
    assert len(list(VECTORS.glob("*.json"))) == 43
