"""``metapkg diff [OLD [NEW]]``: compare two lockfiles for review."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from metapkg.diff import changelogs, inputs, reading
from metapkg.diff.compare import Change, compare, with_alerts
from metapkg.lock import format as lockfmt


@dataclass(frozen=True)
class DiffResult:
    old: str
    new: str
    changes: tuple[Change, ...]

    @property
    def alert_ids(self) -> set[str]:
        return {a.id for c in self.changes for a in c.alerts}

    def matching(self, fail_on: set[str]) -> set[str]:
        """The alert ids that ``--fail-on`` names: ids, ``any``, or a severity level
        (which counts that level and every one above it)."""
        from metapkg.diff.compare import LEVELS

        hit = set()
        for alert in (a for c in self.changes for a in c.alerts):
            levels = {level for level in LEVELS[alert.rank :]}
            if {"any", alert.id} & fail_on or levels & fail_on:
                hit.add(alert.id)
        return hit


def diff(project: Path, old: str | None, new: str | None, offline: bool = False) -> DiffResult:
    """OLD defaults to the lock at git HEAD, NEW to the lock in the working tree."""
    before = inputs.load(old or "git:HEAD", project)
    after = inputs.load(new or str(project / lockfmt.FILENAME), project)
    name = after.name if new else lockfmt.FILENAME
    return diff_locks(before.lock, after.lock, before.name, name, project, offline)


def diff_locks(
    before: lockfmt.Lockfile | None,
    after: lockfmt.Lockfile,
    old_name: str,
    new_name: str,
    project: Path,
    offline: bool = False,
) -> DiffResult:
    """Two locks compared, with CHANGELOG entries, file contents and alerts (``update
    --pr-body`` compares the lock before the update with the one it wrote)."""
    changes = compare(before, after)
    old_sources = changelogs.pinned_sources(before, offline)
    new_sources = changelogs.pinned_sources(after, offline)
    try:  # one set of sources per lock: the CHANGELOGs and the files share the fetches
        changes = changelogs.attach(changes, new_sources, project)
        changes = reading.attach(changes, old_sources, new_sources, project)
    finally:
        new_sources.close()
        old_sources.close()
    return DiffResult(old_name, new_name, tuple(with_alerts(c) for c in changes))
