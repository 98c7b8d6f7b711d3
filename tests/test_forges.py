"""Any git forge through the real CLI, against a loopback forge running `git http-backend`
(tests/gitforge.py) under GitLab, Gitea/Forgejo, Bitbucket and Azure DevOps URL layouts."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import make_skill
from gitforge import Forge

from metapkg.lock import format as lockfmt

pytestmark = pytest.mark.skipif(
    __import__("shutil").which("git") is None, reason="needs the git program"
)


@pytest.fixture
def forge(tmp_path: Path) -> Iterator[Forge]:
    served = Forge(tmp_path / "forge").start()
    yield served
    served.stop()


def _catalog(tmp_path: Path, version: str = "1.0.0") -> Path:
    work = tmp_path / "work"
    make_skill(work, "git-pr", version=version)
    return work


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    project.mkdir(exist_ok=True)
    (project / "metapkg.yaml").write_text("dependencies: {}\n")
    return project


# repository path on the forge -> how a user pastes a folder of it
LAYOUTS = {
    "gitlab": ("acme/tools/catalog.git", "{url}/acme/tools/catalog/-/tree/main/skills/git-pr"),
    "gitea": ("acme/catalog.git", "{url}/acme/catalog/src/branch/main/skills/git-pr"),
    "bitbucket": ("ws/catalog.git", "{url}/ws/catalog/src/main/skills/git-pr"),
    "azure": (
        "org/proj/_git/catalog",
        "{url}/org/proj/_git/catalog?path=/skills/git-pr&version=GBmain",
    ),
    "pip": ("team/catalog.git", "git+{url}/team/catalog.git@main#subdirectory=skills/git-pr"),
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_add_install_remove_round_trip(cli, tmp_path: Path, forge: Forge, layout: str) -> None:
    repo, pasted = LAYOUTS[layout]
    commit = forge.publish(repo, _catalog(tmp_path))
    project = _project(tmp_path)
    added = cli("add", pasted.format(url=forge.url), cwd=project)
    assert added.code == 0, added.err
    manifest = (project / "metapkg.yaml").read_text()
    clone = f"{forge.url}/{repo}"
    assert f"git+{clone}@main#subdirectory=skills/git-pr" in manifest
    assert (project / ".agents/skills/git-pr/SKILL.md").is_file()
    lock = lockfmt.read(project / "metapkg.lock")
    assert lock is not None
    pins = [(p.host, p.repo, p.ref, p.commit) for p in lock.pins]
    assert pins == [(forge.host, repo.removesuffix(".git"), "main", commit)]
    removed = cli("remove", "acme/git-pr", cwd=project)
    assert removed.code == 0, removed.err
    assert "git-pr" not in (project / "metapkg.yaml").read_text()
    assert not (project / ".agents/skills/git-pr").exists()
