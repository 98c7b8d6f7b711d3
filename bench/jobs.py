"""The two small jobs people do most, as folders any installer can be pointed at.

* ``local``: 20 skills in ``skills/`` inside the project, installed from there into
  ``.claude/skills``.
* ``github``: the same 20 skills in one GitHub repository (``bench/skills``, branch
  ``main``) served by the loopback fixture server.

The skills are MetaAgents skills (name, scope, description, version, a CHANGELOG.md) with
three 2 KiB reference files each: valid Agent Skills too, so every peer installs the very
same folders.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from bench.catalog import GH, write_skill
from fixture_server import FixtureGitHub

COUNT = 20
REPO = ("bench", "skills")
_FILLER = ("metapkg benchmark filler line.\n" * 67)[:2048]


def names(count: int = COUNT) -> list[str]:
    return [f"s{i:02d}" for i in range(1, count + 1)]


def write_skills(folder: Path, count: int = COUNT) -> Path:
    """``folder``/skills/sNN for NN in 01..count; returns ``folder``."""
    for name in names(count):
        skill = folder / "skills" / name
        write_skill(skill, name, "1.0.0", [])
        (skill / "references").mkdir(exist_ok=True)
        for i in range(3):
            (skill / "references" / f"ref-{i}.md").write_text(_FILLER)
    return folder


def local_manifest(count: int = COUNT) -> str:
    lines = ["targets: [claude]", "dependencies:", "  skills:"]
    lines += [f"    - file:./skills/{name}" for name in names(count)]
    return "\n".join(lines) + "\n"


def github_manifest(count: int = COUNT) -> str:
    owner, repo = REPO
    lines = ["targets: [claude]", "dependencies:", "  skills:"]
    lines += [f"    - {GH}/{owner}/{repo}/tree/main/skills/{name}" for name in names(count)]
    return "\n".join(lines) + "\n"


def serve_repo(source: Path, latency: float) -> FixtureGitHub:
    """A started fixture server holding ``source`` (a folder with skills/) as bench/skills."""
    server = FixtureGitHub(latency=latency)
    server.add_repo(*REPO, {"c1": source}, branches={"main": "c1"})
    server.start()
    return server


class Projects:
    """Numbered fresh folders under ``root``, optionally seeded from a template folder."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.counter = 0

    def fresh(self, template: Path | None = None, files: dict[str, str] | None = None) -> Path:
        self.counter += 1
        project = self.root / f"p{self.counter:04d}"
        if template is not None:
            shutil.copytree(template, project, symlinks=True)
        else:
            project.mkdir(parents=True)
        for name, text in (files or {}).items():
            (project / name).write_text(text)
        return project
