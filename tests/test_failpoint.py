"""METAPKG_FAILPOINT=enospc:N: a full disk without root, as the write layers see it.

The fault suite drives it through the CLI (reliability/faults/disk.py); these check the
hook itself and that a full disk reaches the writers as the OSError it is.
"""

from __future__ import annotations

import errno
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from metapkg import failpoint
from metapkg.provision.linkmode import place_package
from metapkg.textio import write_atomic


@pytest.fixture
def disk_with(monkeypatch: pytest.MonkeyPatch) -> Callable[[int], None]:
    """Set enospc:N with this process's count of written bytes back at 0."""

    def room(size: int) -> None:
        monkeypatch.setenv("METAPKG_FAILPOINT", f"enospc:{size}")
        monkeypatch.setattr(failpoint, "_written", 0)

    return room


def test_writes_fail_once_the_total_would_pass_the_limit(disk_with: Callable[[int], None]) -> None:
    disk_with(10)
    failpoint.charge(6, "a")
    failpoint.charge(4, "b")
    with pytest.raises(OSError) as caught:
        failpoint.charge(1, "c")
    assert (caught.value.errno, caught.value.filename) == (errno.ENOSPC, "c")


def test_without_the_failpoint_nothing_is_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("METAPKG_FAILPOINT", raising=False)
    monkeypatch.setattr(failpoint, "_written", 0)
    failpoint.charge(10**12, "huge")
    assert failpoint._written == 0


def test_an_atomic_write_on_a_full_disk_keeps_the_old_file(
    disk_with: Callable[[int], None], tmp_path: Path
) -> None:
    target = tmp_path / "metapkg.lock"
    target.write_text("old\n")
    disk_with(3)
    with pytest.raises(OSError, match="No space left"):
        write_atomic(target, "new content\n")
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["metapkg.lock"]  # no temporary left


def test_copying_a_package_onto_a_full_disk_raises_the_disk_error(
    disk_with: Callable[[int], None], tmp_path: Path
) -> None:
    """shutil.copytree would turn it into a shutil.Error holding only text ("(Error)")."""
    package = tmp_path / "skill"
    (package / "reference").mkdir(parents=True)
    (package / "SKILL.md").write_text("x" * 100)
    (package / "reference" / "a.md").write_text("y" * 100)
    disk_with(150)
    with pytest.raises(OSError) as caught:
        place_package(package, tmp_path / "copy")
    assert not isinstance(caught.value, shutil.Error)
    assert caught.value.errno == errno.ENOSPC
    assert str(tmp_path / "copy") in caught.value.filename
