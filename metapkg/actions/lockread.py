"""The project's metapkg.lock as install, lock and update read it: once, and what to do
when it is damaged or holds merge conflicts (replace or merge it, or refuse under
``--frozen`` and ``lock --check``)."""

from __future__ import annotations

from pathlib import Path

from metapkg.diagnostics import Diagnostic, LockError, MetapkgError, UnreadableFile, warning
from metapkg.lock import format as lockfmt


def read_lock(project: Path) -> tuple[lockfmt.Lockfile | None, str | None]:
    text = _lock_text(project)
    return (None, None) if text is None else (lockfmt.parse(text), text)


def _lock_text(project: Path) -> str | None:
    """metapkg.lock's text, None when there is none."""
    try:
        return lockfmt.read_text(project / lockfmt.FILENAME)
    except FileNotFoundError:
        return None
    except UnreadableFile as exc:  # the system said no: not damage, so never replaced
        raise LockError(exc.diagnostics) from None
    except MetapkgError as exc:  # not even text: as damaged as a lock gets
        raise lockfmt.UnreadableLock(exc.diagnostics) from None


def read_lock_or_replace(
    project: Path, frozen: bool, clean: bool = False
) -> tuple[lockfmt.Lockfile | None, str | None, list[Diagnostic]]:
    """Like read_lock, but a damaged lock reads as none (with a warning) unless frozen:
    install and lock are about to write a correct one. A lock with merge conflicts reads
    as both sides merged (lock/merge.py), and says what was kept. With ``frozen`` or
    ``clean`` (`lock --check`) either is an error instead. The file is read once."""
    from metapkg.lock.merge import has_conflicts

    try:
        text = _lock_text(project)
        if text is None:
            return None, None, []
        if not has_conflicts(text):
            return lockfmt.parse(text), text, []
    except lockfmt.UnreadableLock as exc:
        if frozen or clean:
            raise
        notes = [
            warning(d.rule, d.path, d.message.split("; run")[0] + "; writing a new lock", d.line)
            for d in exc.diagnostics
        ]
        return None, "", notes
    return _merged(text, frozen, clean)


def _merged(
    text: str, frozen: bool, clean: bool
) -> tuple[lockfmt.Lockfile | None, str | None, list[Diagnostic]]:
    from metapkg.lock.merge import merge

    if frozen:
        raise LockError.single(
            "lock",
            lockfmt.FILENAME,
            "metapkg.lock has merge conflicts, and --frozen installs only a clean lock; run "
            "`metapkg install` (which merges both sides) and commit metapkg.lock",
        )
    if clean:
        raise LockError.single(
            "lock",
            lockfmt.FILENAME,
            "metapkg.lock has merge conflicts; run `metapkg lock` (which merges both "
            "sides) and commit metapkg.lock",
        )
    try:
        merged = merge(text)
    except lockfmt.UnreadableLock as exc:
        notes = [warning(d.rule, d.path, d.message.split("; run")[0] + "; writing a new lock")
                 for d in exc.diagnostics]  # fmt: skip
        return None, text, notes
    said = "; ".join(merged.notes) if merged.notes else "both sides agreed on every pin"
    note = warning(
        "lock-merge",
        lockfmt.FILENAME,
        f"metapkg.lock had merge conflicts: merged both sides, keeping every pin either "
        f"pinned ({said}); writing a clean lock",
    )
    return merged.lock, text, [note]
