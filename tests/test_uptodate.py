"""The up-to-date record (provision/uptodate.py): what makes a no-op install say no."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from metapkg.provision import uptodate

VALUES = {"workspaceDir": "", "sharedDir": "/shared"}


def _project(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    project = tmp_path / "project"
    (project / ".metapkg").mkdir(parents=True)
    (project / "metapkg.yaml").write_text("dependencies: {}\n")
    (project / "metapkg.lock").write_text("lock\n")
    (project / ".claude" / "skills" / "a").mkdir(parents=True)
    local = tmp_path / "local-skill"
    (local / "references").mkdir(parents=True)
    (local / "SKILL.md").write_text("---\nname: local\n---\n")
    (local / "references" / "notes.md").write_text("notes\n")
    values = {**VALUES, "workspaceDir": project.as_posix()}
    return project, local, values


def _save(project: Path, local: Path, values: dict[str, str], age: int = 10) -> None:
    text = uptodate.record(str(project), [".claude/skills/a"], [], [str(local)], values, "1.0")
    record = project / uptodate.RECORD
    record.write_text(text)
    # As if written `age` seconds after everything it describes (not racily clean).
    later = max(os.stat(project / name).st_ctime_ns for name in ("metapkg.yaml", "metapkg.lock"))
    os.utime(record, ns=(later + age * 10**9, later + age * 10**9))


def test_a_saved_record_matches_until_something_changes(tmp_path: Path) -> None:
    project, local, values = _project(tmp_path)
    _save(project, local, values)
    assert uptodate.up_to_date(str(project), "1.0")
    assert uptodate.up_to_date(str(project), "1.0", values)
    assert not uptodate.up_to_date(str(project), "1.1")  # another metapkg version
    assert not uptodate.up_to_date(str(project), "1.0", {**values, "sharedDir": "/other"})


@pytest.mark.parametrize(
    "change",
    [
        lambda p, lo: (p / "metapkg.yaml").write_text("dependencies: {skills: []}\n"),
        lambda p, lo: (p / "metapkg.lock").unlink(),
        lambda p, lo: (p / ".claude" / "skills" / "a" / "extra").mkdir(),
        lambda p, lo: (p / ".claude" / "skills" / "a").rmdir(),
        lambda p, lo: (lo / "SKILL.md").write_text("---\nname: local2\n---\n"),
        lambda p, lo: (lo / "references" / "new.md").write_text("new\n"),
        lambda p, lo: (lo / "references" / "notes.md").unlink(),
        lambda p, lo: (p / ".metapkg" / "tx-1").mkdir(),  # an interrupted install
    ],
    ids=[
        "manifest",
        "lock gone",
        "owned folder",
        "owned gone",
        "file: package",
        "file: new file",
        "file: file gone",
        "interrupted",
    ],
)
def test_any_change_is_noticed(tmp_path: Path, change: Callable[[Path, Path], object]) -> None:
    project, local, values = _project(tmp_path)
    _save(project, local, values)
    change(project, local)
    assert not uptodate.up_to_date(str(project), "1.0")


def test_same_content_with_a_new_stamp_is_still_up_to_date(tmp_path: Path) -> None:
    project, local, values = _project(tmp_path)
    _save(project, local, values)
    text = (project / "metapkg.yaml").read_text()
    (project / "metapkg.yaml").write_text(text)  # rewritten as it was (a git checkout)
    assert uptodate.up_to_date(str(project), "1.0")  # the hash decides


def test_the_stamp_is_trusted_only_when_older_than_the_record(tmp_path: Path) -> None:
    """A recorded stamp as new as the record could hide a change made in the same clock
    tick, so then the file is hashed (git's racily clean entries)."""
    project, local, values = _project(tmp_path)
    _save(project, local, values)
    record = project / uptodate.RECORD
    tokens = record.read_bytes().split(b"\0")
    at = tokens.index(b"metapkg.yaml")
    tokens[at + 2] = b"0" * 64  # a digest the manifest does not have
    stamp = os.stat(record).st_mtime_ns
    record.write_bytes(b"\0".join(tokens))
    os.utime(record, ns=(stamp, stamp))
    assert uptodate.up_to_date(str(project), "1.0")  # stamp unchanged and old: not read
    manifest_time = os.stat(project / "metapkg.yaml").st_ctime_ns
    os.utime(record, ns=(manifest_time, manifest_time))
    assert not uptodate.up_to_date(str(project), "1.0")  # racy: hashed, and it differs


def test_a_moved_project_or_another_environment_is_not_up_to_date(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project, local, values = _project(tmp_path)
    _save(project, local, {**values, "workspaceDir": "/elsewhere"})
    assert not uptodate.up_to_date(str(project), "1.0")
    _save(project, local, values)
    monkeypatch.setenv("METAPKG_SHARED_DIR", str(tmp_path / "another-shared"))
    assert not uptodate.up_to_date(str(project), "1.0")


@pytest.mark.parametrize("damage", [b"", b"\xff\xfe", b"metapkg-uptodate-1\0end", b"\0" * 50])
def test_a_damaged_or_foreign_record_is_not_up_to_date(tmp_path: Path, damage: bytes) -> None:
    project, local, values = _project(tmp_path)
    _save(project, local, values)
    (project / uptodate.RECORD).write_bytes(damage)
    assert not uptodate.up_to_date(str(project), "1.0")
    truncated = uptodate.record(str(project), [".claude/skills/a"], [], [str(local)], values, "1.0")
    (project / uptodate.RECORD).write_text(truncated[: len(truncated) // 2] + "\0end")
    assert not uptodate.up_to_date(str(project), "1.0")
