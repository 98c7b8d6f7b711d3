"""Where the two lockfiles of a diff come from: a path, or ``git:REV``."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from metapkg.diagnostics import MetapkgError, UsageError
from metapkg.lock import format as lockfmt
from metapkg.textio import decode_utf8

EMPTY = lockfmt.Lockfile((), (), (), (), ())


@dataclass(frozen=True)
class LockInput:
    name: str  # how headers name it: "git:HEAD", "metapkg.lock"
    lock: lockfmt.Lockfile


def load(spec: str, project: Path) -> LockInput:
    if spec.startswith("git:"):
        return LockInput(spec, _from_git(spec[4:], project))
    path = Path(spec)
    if spec == os.devnull or (path.is_file() and path.stat().st_size == 0):
        return LockInput(spec, EMPTY)  # git's side of an added or deleted lockfile
    if path.is_dir():
        path = path / lockfmt.FILENAME
    lock = lockfmt.read(path)
    if lock is None:
        raise UsageError.single("usage", spec, "no such lockfile; give a path or git:REV")
    return LockInput(spec, lock)


def _from_git(revision: str, project: Path) -> lockfmt.Lockfile:
    """The lock as committed at ``revision``; an empty lock if it did not exist then."""
    if not revision:
        raise UsageError.single("usage", "git:", "git: needs a revision, e.g. git:HEAD")
    try:
        exists = subprocess.run(
            ["git", "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}"],
            cwd=project,
            capture_output=True,
            text=True,
            check=False,
        )
    except FileNotFoundError:
        raise MetapkgError.single("git", f"git:{revision}", "git is not installed") from None
    if exists.returncode != 0:
        raise UsageError.single(
            "usage", f"git:{revision}", "not a git revision here (is this a git repository?)"
        )
    shown = subprocess.run(
        ["git", "show", f"{revision}:./{lockfmt.FILENAME}"],
        cwd=project,
        capture_output=True,
        check=False,
    )
    if shown.returncode != 0:
        return EMPTY  # the lock did not exist at that revision: everything is added
    display = f"git:{revision}:{lockfmt.FILENAME}"
    return lockfmt.parse(decode_utf8(shown.stdout, "lock", display), display)
