"""The files rule (packages/rules/files.py): links and special files are reported by
name, in a stable order, whatever the directory listing's order."""

from __future__ import annotations

import os
from pathlib import Path

from metapkg.packages.rules import files


def _findings(root: Path) -> list[tuple[str, str]]:
    return [(d.path, d.rule) for d in files.check(root, "pkg")]


def test_links_and_special_files_are_named_in_order(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "refs").mkdir(parents=True)
    (package / "SKILL.md").write_text("x")
    (package / "refs" / "b.md").symlink_to(package / "SKILL.md")
    (package / "a-link").symlink_to(tmp_path)
    os.mkfifo(package / "refs" / "pipe")
    assert _findings(package) == [
        ("pkg/a-link", "link"),
        ("pkg/refs/b.md", "link"),
        ("pkg/refs/pipe", "link"),
    ]


def test_a_package_root_that_is_a_link_is_reported(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "pkg").symlink_to(tmp_path / "real")
    assert _findings(tmp_path / "pkg") == [("pkg", "link")]


def test_nothing_there_is_no_finding(tmp_path: Path) -> None:
    (tmp_path / "loop").symlink_to(tmp_path / "loop")  # ELOOP on the way
    for missing in (tmp_path / "gone", tmp_path / "loop" / "x", tmp_path / "a\0b"):
        assert _findings(missing) == []
