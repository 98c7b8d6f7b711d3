"""Finding metaskills in a skill folder, trust by origin, drift, and the manifest key."""

from __future__ import annotations

from pathlib import Path

import pytest

from metapkg.diagnostics import ManifestError
from metapkg.integrity import tree_hash
from metapkg.manifest import parse
from metapkg.metaskills.installed import InstalledSkill, drift_problem, inspect_skill, is_local

RUN = 'def run(input):\n    return "ok"\n'


def skill(tmp_path: Path, fields: str = "", files: dict[str, str] | None = None) -> Path:
    folder = tmp_path / "demo"
    folder.mkdir()
    (folder / "SKILL.md").write_text(
        f"---\nname: demo\ndescription: A demo.\n{fields}---\n\nInput keys:\n- `task`\n"
    )
    for name, text in (files or {}).items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return folder


def test_static_skill_has_no_program(tmp_path: Path) -> None:
    found = inspect_skill(skill(tmp_path), "demo")
    assert found.path is None and not found.runnable
    assert found.instructions.strip().startswith("Input keys:")


def test_discovered_via_skill_star(tmp_path: Path) -> None:
    found = inspect_skill(skill(tmp_path, files={"SKILL.star": RUN}), "demo")
    assert (found.path, found.language, found.runnable) == ("SKILL.star", "starlark", True)


def test_discovered_via_the_explicit_field(tmp_path: Path) -> None:
    folder = skill(tmp_path, "metaskill: flows/main.star\n", {"flows/main.star": RUN})
    found = inspect_skill(folder, "demo")
    assert (found.path, found.runnable) == ("flows/main.star", True)


@pytest.mark.parametrize(
    ("fields", "files", "problem"),
    [
        ("metaskill_language: lua\n", {"SKILL.star": RUN}, "'lua' is not supported"),
        ("", {"SKILL.star": RUN + "#" * 70_000}, "keep it under 64 KiB"),
        ("metaskill: ../escape.star\n", {}, "points outside the skill folder"),
        ("metaskill: /etc/passwd\n", {}, "must be a relative path"),
        ("", {"SKILL.star": "def run(input)\n"}, "unexpected new line"),
        ("", {"SKILL.star": "def main(input):\n    pass\n"}, "does not define run(input)"),
    ],
)
def test_programs_that_cannot_run(
    tmp_path: Path, fields: str, files: dict[str, str], problem: str
) -> None:
    found = inspect_skill(skill(tmp_path, fields, files), "demo")
    assert found.path is not None and not found.runnable
    assert found.problem is not None and problem in found.problem


def test_local_means_a_file_origin_inside_the_project(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    assert is_local("file:./skills/demo", project)
    assert is_local(f"file:{project}/skills/demo", project)
    assert not is_local(f"file:{tmp_path}/elsewhere/demo", project)
    assert not is_local("file:./../elsewhere", project)
    assert not is_local("https://github.com/acme/catalog/tree/main/skills/demo", project)


def test_drift_from_the_lock_is_refused(tmp_path: Path) -> None:
    folder = skill(tmp_path, files={"SKILL.star": RUN})
    installed = InstalledSkill("demo", "acme/demo", "file:./x", tree_hash(folder), folder, "d")
    assert drift_problem(installed) is None
    (folder / "SKILL.star").write_text(RUN.replace("ok", "changed"))
    problem = drift_problem(installed)
    assert problem is not None and "differs from metapkg.lock" in problem


def test_manifest_allow_commands(tmp_path: Path) -> None:
    path = tmp_path / "metapkg.yaml"
    manifest = parse("metaskills:\n  allow-commands: [pytest, git]\n", path)
    assert manifest.allowed_commands == ("pytest", "git")
    assert parse("dependencies: {}\n", path).allowed_commands == ()
    for bad in (
        "metaskills:\n  allow-commands: [/usr/bin/git]\n",
        "metaskills:\n  allow-commands: ['git diff']\n",
        "metaskills:\n  allow: [git]\n",
        "metaskills: [git]\n",
    ):
        with pytest.raises(ManifestError, match="metaskills"):
            parse(bad, path)
