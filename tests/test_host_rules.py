"""A host's own loader rules at install (issue 12 §2): every skill provisioned into a host
that names a check profile (Metis) is judged by it; a warning names the host, and a skill
the host would skip fails the install with nothing changed. In-process CLI."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conftest import assert_fails_with, assert_ok, diagnostics, make_skill, write_manifest

from metapkg.hosts import registry
from metapkg.packages.load import load_package
from metapkg.provision.hostrules import host_findings
from metapkg.provision.plan import Item


def _plain(root: Path, folder: str, name: str, body: str = "Do it.\n") -> Path:
    path = root / "skills" / folder
    path.mkdir(parents=True)
    (path / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: The {name} skill.\n---\n{body}"
    )
    return path


def test_a_metaagents_skill_passes_metis(tmp_path: Path) -> None:
    folder = make_skill(tmp_path, "git-pr")
    package = load_package(folder, str(folder)).package
    assert package is not None
    hosts = registry.active(["metis", "claude"])
    assert host_findings([Item(package, "sha256:x")], hosts) == []


def test_metis_rules_apply_to_what_is_provisioned_for_metis(tmp_path: Path, cli: Any) -> None:
    _plain(tmp_path / "src", "long", "long", "word " * 5000)
    crlf = _plain(tmp_path / "src", "crlf", "crlf")  # Metis skips a file with CRLF endings
    (crlf / "SKILL.md").write_bytes((crlf / "SKILL.md").read_bytes().replace(b"\n", b"\r\n"))
    project = tmp_path / "project"
    targets = "targets: [metis, claude]\n"
    write_manifest(project, skills=["file:../src/skills/long"], extra=targets)
    run = assert_ok(cli("-v", "install", cwd=project))
    [warned] = [d for d in diagnostics(run.err) if d.rule == "metis/body-size"]
    assert warned.severity == "warning" and warned.path == ".metis/skills/long/SKILL.md"
    assert "Metis (target metis) warns about skill long" in warned.message
    assert "warning[metis/body-size] 1 skill draws a warning from Metis: long" in run.err

    before = sorted(p.relative_to(project).as_posix() for p in project.rglob("*"))
    lock = (project / "metapkg.lock").read_text()
    write_manifest(
        project, skills=["file:../src/skills/long", "file:../src/skills/crlf"], extra=targets
    )
    # --strict: a skill the host would skip fails the install, and nothing changes
    [refused] = assert_fails_with(cli("install", "--strict", cwd=project), "metis/start")
    assert refused.path == ".metis/skills/crlf/SKILL.md"
    assert "Metis (target metis) would not load skill crlf" in refused.message
    assert "leave metis out of targets" in refused.message
    after = sorted(p.relative_to(project).as_posix() for p in project.rglob("*"))
    assert after == before and (project / "metapkg.lock").read_text() == lock  # nothing changed

    # a consumer's install leaves it out of Metis only, and says so
    run = assert_ok(cli("install", cwd=project))
    assert (
        "warning[metis/start] 1 skill would not load in Metis: crlf; it is not provisioned "
        "for Metis; the other targets get it" in run.err
    )
    assert (project / ".claude/skills/crlf/SKILL.md").is_file()
    assert not (project / ".metis/skills/crlf").exists()
    assert (project / ".metis/skills/long/SKILL.md").is_file()
    assert_ok(cli("verify", cwd=project))  # what was left out is not missing
