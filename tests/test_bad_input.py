"""Bad input anywhere gives a diagnostic naming the file, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import file_origin, make_agent, make_skill, write_manifest


@pytest.mark.parametrize("name", ["metapkg.yaml", "metapkg.lock", ".mcp.json"])
def test_files_that_are_not_utf8(cli, tmp_path: Path, name: str) -> None:
    skill = make_skill(tmp_path / "cat", "tool")
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(skill)])
    (project / name).write_bytes(b"\xff\xfe not text")
    run = cli("install", cwd=project)
    assert "Traceback" not in run.err
    assert f"{name}: " in run.err and "not UTF-8" in run.err
    if name == "metapkg.lock":  # a damaged lock is replaced, with a warning
        assert run.code == 0 and (project / name).read_text().startswith("# metapkg.lock")
        (project / name).write_bytes(b"\xff")
        frozen = cli("install", "--frozen", cwd=project)
        assert frozen.code == 1 and "not UTF-8" in frozen.err
    else:
        assert run.code == 1


def test_a_lock_that_cannot_be_read_is_an_error_not_damage(cli, tmp_path: Path) -> None:
    """Damage (not text, not YAML) is replaced with a warning; a lock the system will not
    let metapkg read (no permission, a folder in its place) may be perfectly good, so it
    is never replaced: the install stops and says why, as for the manifest."""
    skill = make_skill(tmp_path / "cat", "tool")
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(skill)])
    (project / "metapkg.lock").mkdir()
    run = cli("install", cwd=project)
    assert run.code == 1 and "Traceback" not in run.err
    assert run.err.startswith("metapkg.lock: error[lock]: cannot read it"), run.err
    assert (project / "metapkg.lock").is_dir() and not (project / ".agents").exists()


@pytest.mark.parametrize(
    "text",
    ["dependencies:\n  skills: [\n", "- a\n", "dependencies: [a]\n", "surprise: 1\n"],
)
def test_add_to_a_broken_manifest_reports_the_manifest(cli, tmp_path: Path, text: str) -> None:
    skill = make_skill(tmp_path / "cat", "tool")
    project = tmp_path / "proj"
    project.mkdir()
    (project / "metapkg.yaml").write_text(text)
    run = cli("add", file_origin(skill), cwd=project)
    assert run.code == 1 and "Traceback" not in run.err
    assert run.err.startswith("metapkg.yaml:")
    assert (project / "metapkg.yaml").read_text() == text


def test_invalid_jobs_is_a_usage_error(cli, tmp_path: Path) -> None:
    write_manifest(tmp_path)
    run = cli("install", cwd=tmp_path, env={"METAPKG_JOBS": "lots"})
    assert run.code == 2 and "--jobs" in run.err and "Traceback" not in run.err


def test_add_looks_at_a_local_package_instead_of_guessing_from_the_path(
    cli, tmp_path: Path
) -> None:
    # The project lives under a folder called skills/, and adds an agent.
    root = tmp_path / "skills" / "work"
    agent = make_agent(root, "rev")
    project = root / "proj"
    write_manifest(project)
    run = cli("add", "file:../agents/rev", cwd=project)
    assert run.code == 0, run.err
    assert "agents:\n    - file:../agents/rev" in (project / "metapkg.yaml").read_text()
    rendered = (project / ".claude/agents/rev.md").read_text()
    assert 'name: "rev"' in rendered and rendered.endswith("Instructions for rev.\n")
    assert agent.is_dir()


# -- the lock and the YAML reader --------------------------------------------------------


def _installed(cli, tmp_path: Path) -> Path:
    skill = make_skill(tmp_path / "cat", "tool")
    project = tmp_path / "proj"
    write_manifest(project, skills=[file_origin(skill)])
    assert cli("install", cwd=project).code == 0
    return project


def test_a_lock_checked_out_with_crlf_line_endings_is_not_stale(cli, tmp_path: Path) -> None:
    """git's core.autocrlf gives Windows checkouts CRLF; the lock says the same thing."""
    project = _installed(cli, tmp_path)
    lock = project / "metapkg.lock"
    lock.write_bytes(lock.read_bytes().replace(b"\n", b"\r\n"))
    crlf = lock.read_bytes()
    for args in (["install", "--frozen"], ["lock", "--check"], ["install"], ["lock"]):
        run = cli(*args, cwd=project)
        assert run.code == 0, f"{args}: {run.err}"
    assert lock.read_bytes() == crlf  # nothing to rewrite


def test_lock_version_true_is_refused_on_its_line(cli, tmp_path: Path) -> None:
    project = _installed(cli, tmp_path)
    lock = project / "metapkg.lock"
    text = lock.read_text().replace("lock-version: 2", "lock-version: true")
    lock.write_text(text)
    for args in (["install", "--frozen"], ["lock", "--check"]):
        run = cli(*args, cwd=project)
        assert run.code == 1 and "Traceback" not in run.err
        line = text.splitlines().index("lock-version: true") + 1
        assert run.err.startswith(f"metapkg.lock:{line}: error[lock]: lock-version must be a")
    assert lock.read_text() == text


def test_a_control_character_in_yaml_is_one_line_with_a_line_number(cli, tmp_path: Path) -> None:
    skill = make_skill(tmp_path / "cat", "tool")
    project = tmp_path / "proj"
    manifest = write_manifest(project, skills=[file_origin(skill)], extra="# a bell: \x07\n")
    line = manifest.read_text().splitlines().index("# a bell: \x07") + 1
    run = cli("install", cwd=project)
    assert run.code == 1 and run.err.count("\n") == 1, run.err
    assert run.err.startswith(f"metapkg.yaml:{line}: error[manifest]: invalid YAML: control")
    assert "U+0007" in run.err


def test_diff_of_a_lock_in_git_history_that_is_not_utf8(cli, tmp_path: Path) -> None:
    import subprocess

    project = _installed(cli, tmp_path)
    (project / "metapkg.lock").write_bytes(b"\xff\xfe not text\n")

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=project, check=True, capture_output=True)

    git("init", "-q")
    git("add", "metapkg.lock")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "broken lock")
    (project / "metapkg.lock").unlink()
    run = cli("diff", "git:HEAD", str(project / "metapkg.yaml"), cwd=project)
    assert run.code == 1 and "Traceback" not in run.err, run.err
    assert run.err.startswith("git:HEAD:metapkg.lock: error[lock]: the file is not UTF-8")
