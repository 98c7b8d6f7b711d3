"""What an install, update, add or remove did (or, with --dry-run, would do), as data.

The command line prints it as lines people read or, with ``--json``, as the object the
README documents; both come from the one :class:`Summary`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from metapkg.actions.findings import Finding, Group, group
from metapkg.diagnostics import Diagnostic, capped
from metapkg.packages.models import Kind, label

if TYPE_CHECKING:
    from metapkg.actions.install import InstallReport
    from metapkg.lock.format import Lockfile


@dataclass(frozen=True)
class PackageChange:
    change: str  # added, removed, upgraded, downgraded, moved, changed
    kind: Kind
    fqn: str
    old_version: str | None
    new_version: str | None
    bump: str | None = None  # major, minor, patch, prerelease (upgraded or downgraded)
    commit: str | None = None  # the new commit (moved: where the same content is now)
    same_content: bool = False  # changed: only the origin or the dependencies differ

    @property
    def label(self) -> str:
        return label((self.kind, self.fqn))

    def as_json(self) -> dict[str, Any]:
        return {
            "change": self.change,
            "kind": self.kind,
            "fqn": self.fqn,
            "from": self.old_version,
            "to": self.new_version,
            "bump": self.bump,
            "commit": self.commit,
        }


def package_changes(old: Lockfile | None, new: Lockfile) -> tuple[PackageChange, ...]:
    """What a new lock adds, drops, moves or changes, package by package."""
    from metapkg.diff.compare import compare

    found = []
    for c in compare(old, new, moves=True):
        same = bool(c.old and c.new and c.old.integrity == c.new.integrity)
        commit = c.new.commit if c.new is not None else None
        found.append(
            PackageChange(
                c.change, c.kind, c.fqn, c.from_version, c.to_version, c.bump, commit, same
            )
        )
    return tuple(found)


@dataclass(frozen=True)
class Summary:
    dry_run: bool
    up_to_date: bool
    packages: int | None = None  # locked packages (None: up to date, the lock unread)
    changes: tuple[PackageChange, ...] = ()
    provisioned: tuple[str, ...] = ()  # paths copied (or that would be)
    removed: tuple[str, ...] = ()
    configs: tuple[str, ...] = ()  # MCP config files rewritten
    kept: tuple[str, ...] = ()  # no longer wanted, but changed since metapkg wrote them
    lock_changed: bool = False
    lock_written: bool = False
    recovered: tuple[str, ...] = ()  # interrupted installs rolled back first
    notes: tuple[str, ...] = ()  # what each host still needs from the user
    warnings: tuple[Diagnostic, ...] = ()  # all of them, the packages' findings included
    findings: tuple[Finding, ...] = ()  # the packages' findings (printed grouped)
    targets: tuple[str, ...] = ()  # the active hosts, for what each does with a finding

    @property
    def groups(self) -> tuple[Group, ...]:
        """The packages' findings, one line per rule."""
        return group(self.findings, self.targets)

    @property
    def other_warnings(self) -> tuple[Diagnostic, ...]:
        """The warnings that are not about one package (fetching, trust, hosts...)."""
        about_packages = {f.diagnostic for f in self.findings}
        return tuple(w for w in self.warnings if w not in about_packages)

    @property
    def provisioning_changed(self) -> bool:
        return bool(self.provisioned or self.removed or self.configs)

    def as_json(self) -> dict[str, Any]:
        return {
            "dry_run": self.dry_run,
            "up_to_date": self.up_to_date,
            "packages": self.packages,
            "changes": [c.as_json() for c in self.changes],
            "provisioned": list(self.provisioned),
            "removed": list(self.removed),
            "configs": list(self.configs),
            "kept": list(self.kept),
            "lock_changed": self.lock_changed,
            "lock_written": self.lock_written,
            "notes": list(self.notes),
            "diagnostics": [d.as_json() for d in capped(self.warnings)],
        }


def summarize(report: InstallReport) -> Summary:
    if report.up_to_date:
        return Summary(report.dry_run, True)
    resolution, applied = report.resolution, report.applied
    assert resolution is not None and applied is not None
    scope = report.scope

    def shown(paths: tuple[str, ...]) -> tuple[str, ...]:
        """--global's user-level path templates as this machine's paths (~/.codex/...)."""
        return paths if scope is None else tuple(scope.show(p) for p in paths)

    return Summary(
        dry_run=report.dry_run,
        up_to_date=False,
        packages=len(resolution.lock.packages),
        changes=package_changes(resolution.old_lock, resolution.lock),
        provisioned=shown(applied.copied),
        removed=shown(applied.removed),
        configs=shown(applied.configs_changed),
        kept=shown(applied.kept),
        lock_changed=resolution.lock_changed,
        lock_written=applied.lock_written,
        recovered=report.recovered,
        notes=resolution.plan.notes_for((*applied.copied, *applied.configs_changed)),
        warnings=resolution.warnings + report.warnings,
        findings=resolution.findings,
        targets=resolution.manifest.targets,
    )
