"""The integrity algorithm in lockfile-spec.md is the one metapkg runs.

The reference implementation is taken from the spec itself, so the document cannot drift
from the code without this test failing.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CATALOGS, REPO

from metapkg.integrity import TreeError, tree_hash


def _reference() -> Callable[[str], str]:
    spec = (REPO / "lockfile-spec.md").read_text(encoding="utf-8")
    block = re.search(r"```python\n(.*?)```", spec, re.DOTALL)
    assert block is not None, "lockfile-spec.md lost its reference implementation"
    namespace: dict[str, object] = {}
    exec(block.group(1), namespace)
    function = namespace["tree_hash"]
    assert callable(function)
    return function  # type: ignore[return-value]


@pytest.mark.parametrize(
    "package",
    [
        "skills/review-checklist",  # nested folders and an executable script
        "agents/code-reviewer",
        "mcps/io.playwright_mcp.json",  # a single-file package
    ],
)
def test_spec_reference_matches_metapkg(package: str) -> None:
    path = CATALOGS / "valid" / package
    assert tree_hash(path) == _reference()(str(path))


def test_exec_bit_empty_files_and_byte_order(tmp_path: Path) -> None:
    (tmp_path / "b").write_text("")
    (tmp_path / "a.sh").write_text("echo\n")
    (tmp_path / "B").mkdir()
    (tmp_path / "B" / "é.md").write_text("x")
    (tmp_path / "empty-folder").mkdir()
    before = tree_hash(tmp_path)
    assert before == _reference()(str(tmp_path))
    os.chmod(tmp_path / "a.sh", 0o755)
    after = tree_hash(tmp_path)
    assert after != before and after == _reference()(str(tmp_path))
    (tmp_path / "empty-folder" / "x").write_text("")
    assert tree_hash(tmp_path) != after


def test_links_are_refused(tmp_path: Path) -> None:
    (tmp_path / "real").write_text("x")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    with pytest.raises(TreeError, match="symbolic link"):
        tree_hash(tmp_path)


def test_the_cache_checks_refuse_what_integrity_refuses(tmp_path: Path) -> None:
    """The seal snapshot and the published-tree check walk trees the way the hash does
    (integrity.walk): a link deep inside is no tree to remember or to publish."""
    from metapkg.fetch.cache import DamagedEntry, check_published
    from metapkg.fetch.seals import snapshot

    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "real").write_text("x")
    record = {"sub/real": (1, False, "")}
    check_published(tmp_path, record)
    assert set(snapshot(tmp_path) or ()) == {"sub/real"}
    (tmp_path / "sub" / "link").symlink_to(tmp_path / "sub" / "real")
    assert snapshot(tmp_path) is None
    with pytest.raises(DamagedEntry):
        check_published(tmp_path, record)
