"""``check`` on a local git checkout: a version tag at HEAD that names another version
than the package declares is a ``tag-version`` warning (profiles/gittags.py). In-process;
needs git."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import git, make_skill

from metapkg.actions.check import check

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def _tagged(repo: Path, *tags: str) -> Path:
    """Commit ``repo`` as it is and tag HEAD (``name@x`` tags annotated, others light)."""
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "release")
    for tag in tags:
        git(repo, "tag", *(["-a", "-m", tag] if "@" in tag else []), tag)
    return repo


def _found(path: Path) -> list[str]:
    return [d.message for d in check([str(path)]).diagnostics if d.rule == "tag-version"]


def test_a_tag_at_head_must_name_the_declared_version(tmp_path: Path) -> None:
    repo = tmp_path / "git-pr"  # a repository of one package, at its top
    shutil.copytree(make_skill(tmp_path / "src", "git-pr", version="1.2.0"), repo)
    _tagged(repo, "v1.3.0", "v1.2.0")
    [message] = _found(repo)
    assert "tagged v1.3.0, which names version 1.3.0, but the package says 1.2.0" in message


def test_in_a_catalog_only_the_packages_own_tags_speak(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    make_skill(root, "git-pr", version="1.2.0")
    make_skill(root, "test-fix", version="2.0.0")
    _tagged(root, "v7.0.0", "git-pr@1.3.0", "test-fix@2.0.0")
    found = _found(root)
    assert len(found) == 1 and "tagged git-pr@1.3.0" in found[0]
    assert _found(root / "skills" / "test-fix") == []  # its own tag agrees


def test_no_git_no_tags_no_finding(tmp_path: Path) -> None:
    make_skill(tmp_path / "plain", "git-pr", version="1.2.0")
    assert _found(tmp_path / "plain") == []
