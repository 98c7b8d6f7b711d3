"""``metapkg install`` and ``metapkg lock``."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from metapkg import __version__, events, orphans
from metapkg.actions.projectlock import project_lock
from metapkg.diagnostics import Diagnostic, LockError, error, warning
from metapkg.provision import state
from metapkg.provision.stage import recover
from metapkg.provision.uptodate import STATE_FILE, up_to_date
from metapkg.provision.values import placeholder_values

if TYPE_CHECKING:
    from metapkg.actions.resolution import Resolution
    from metapkg.lock import format as lockfmt
    from metapkg.manifest import Manifest
    from metapkg.provision.apply import Applied
    from metapkg.provision.scope import Scope

T = TypeVar("T")

# Everything that resolves, parses YAML or talks HTTP is imported inside the functions
# that need it. (cli/install.py decides an up-to-date project before importing this.)


@dataclass(frozen=True)
class InstallReport:
    up_to_date: bool
    resolution: Resolution | None = None
    applied: Applied | None = None  # with dry_run: what would be applied
    recovered: tuple[str, ...] = ()
    dry_run: bool = False
    warnings: tuple[Diagnostic, ...] = ()
    scope: Scope | None = None  # where it provisioned, when not the project (--global)


def install(
    project: Path,
    frozen: bool = False,
    offline: bool = False,
    workers: int = 16,
    unpin: Callable[[lockfmt.Lockfile], frozenset[tuple[str, str]]] | None = None,
    reinstall: bool = False,
    fresh: frozenset[str] | None = None,
    link_mode: str | None = None,
    dry_run: bool = False,
    manifest: Manifest | None = None,
    scope: Scope | None = None,
    checked: bool = False,
    audit: str = "warn",
    policy: str | None = None,
    strict: bool = False,
) -> InstallReport:
    """Resolve (reusing the lock's pins), fetch, write the lock, provision.

    ``unpin`` and ``fresh`` are for ``metapkg update``: given the current lock, ``unpin``
    names the (repo, ref) pins to ask the host about again, and ``fresh`` the fqns whose
    locked versions are not reused, so ranges move to their newest versions (empty: all).
    ``reinstall`` copies every package again (repairing drift that ``metapkg verify``
    reports) instead of only what changed.
    ``dry_run`` resolves and reports what would change, writing nothing in the project
    (no lock, no files, no state); ``manifest`` stands in for metapkg.yaml (`add
    --dry-run` resolves an edit it does not write). ``scope``: where to provision (default:
    the project; provision/scope.user() for ``--global``, whose manifest, lock and state
    are in ``project``, the user-scope folder). ``checked``: the caller has just swept
    the project and found it not up to date (cli/install.py, before importing this).
    ``audit`` and ``policy``: the audit gate (actions/audit.py) between resolving and
    writing anything: off, warn or block, and a policy file or URL that tightens the
    project's.
    ``strict``: every finding a consumer's install tolerates is an error (it resolves
    even an up-to-date project, to judge every package again).
    """
    values = placeholder_values(project) if scope is None else scope.values()
    asked = unpin is not None or reinstall or manifest is not None or scope is not None
    asked = asked or strict
    if not checked:
        orphans.sweep_project(project)
    if not (asked or checked) and up_to_date(str(project), __version__, values):
        return InstallReport(up_to_date=True, dry_run=dry_run)
    from metapkg.actions.lockread import read_lock
    from metapkg.actions.resolution import resolve_project
    from metapkg.fetch.sources import FetchOptions
    from metapkg.lock import format as lockfmt
    from metapkg.provision import scope as scopes
    from metapkg.provision.apply import apply

    where = scope or scopes.project(project)

    def resolved() -> Resolution:
        unpinned: frozenset[tuple[str, str]] = frozenset()
        if unpin is not None:
            current, _ = read_lock(project)
            unpinned = unpin(current) if current is not None else frozenset()
        options = FetchOptions(offline=offline, frozen=frozen, workers=workers, unpinned=unpinned)
        resolution = resolve_project(
            project,
            options,
            fresh,
            link_mode=link_mode,
            manifest=manifest,
            scope=where,
            strict=strict,
        )
        if frozen:
            check_frozen(resolution)
        return resolution

    def audited() -> tuple[Resolution, list[Diagnostic]]:
        from metapkg.actions.audit import gate

        resolution = timed("resolving", resolved)
        return resolution, gate(resolution, project, audit, offline, policy)

    if dry_run:  # no project lock, no recovery: both write under .metapkg/
        from metapkg.actions.preview import preview

        resolution, found = audited()
        owned = state.owned(where) or state.Owned()
        would = preview(where, resolution.plan, owned, reinstall)
        return InstallReport(
            False, resolution, would, dry_run=True, warnings=tuple(found), scope=scope
        )
    with project_lock(project):
        recovered = tuple(recover(where))
        resolution, found = audited()
        lock_text = resolution.lock_text if resolution.lock_changed and not frozen else None
        lock = (lockfmt.FILENAME, lock_text) if lock_text is not None else None
        # No record (a fresh clone): metapkg owns nothing yet; what is already there
        # byte-for-byte as it would write it is adopted, anything else is a collision.
        owned = state.owned(where) or state.Owned()
        applied = timed(
            "provisioning", lambda: apply(where, resolution.plan, owned, lock, reinstall)
        )
        warnings = found + _record(project, where, resolution, applied, values)
    return InstallReport(
        False, resolution, applied, recovered, warnings=tuple(warnings), scope=scope
    )


def _record(
    project: Path,
    where: Scope,
    resolution: Resolution,
    applied: Applied,
    values: Mapping[str, str],
) -> list[Diagnostic]:
    """Save what the committed install owns (the state file, the .gitignore block). This
    is bookkeeping, which a full disk must not turn into a failure of an install that
    happened: each failure is a warning saying what the next install does about it."""
    file_roots = [
        str(node.fetched.path)
        for node in resolution.resolved.packages.values()
        if node.origin.is_local
    ]
    warnings = []
    try:
        state.save(project, applied.owned, file_roots, values, __version__)
    except OSError as exc:
        again = "the next install checks the provisioned files again"
        warnings.append(_unrecorded(STATE_FILE, exc, again))
    try:
        if not where.user:  # the home folder has no .gitignore of metapkg's
            _update_gitignore(project, applied)
    except OSError as exc:
        warnings.append(_unrecorded(".gitignore", exc, "its metapkg block is out of date"))
    return warnings


def _unrecorded(path: str, exc: OSError, consequence: str) -> Diagnostic:
    why = exc.strerror or type(exc).__name__
    return warning("state", path, f"installed, but could not update {path} ({why}); {consequence}")


def timed(name: str, work: Callable[[], T]) -> T:
    """Run ``work`` and report how long it took (``-v`` shows it)."""
    started = time.perf_counter()
    result = work()
    events.emit(events.Phase(name, time.perf_counter() - started))
    return result


def _update_gitignore(project: Path, applied: Applied) -> None:
    """The managed .gitignore block lists exactly what metapkg owns now."""
    from metapkg.actions.gitignore import update
    from metapkg.hosts.paths import CONFIG_FILES

    paths = list(applied.owned.paths)
    for config in applied.owned.servers:  # only config files holding nothing but ours
        if config in CONFIG_FILES and _only_ours(project / config, applied, config):
            paths.append(config)
    update(project, paths)


def _only_ours(path: Path, applied: Applied, config: str) -> bool:
    """The config file holds metapkg's servers and nothing else: a JSON document whose
    only top-level key holds the servers (no user settings, no comments, no other
    servers). Read once: the entries and the settings come from the same text."""
    import json

    from metapkg.provision.plan import emptying
    from metapkg.textio import read_utf8

    edit = emptying(config)
    if edit is None or not path.is_file():
        return False
    writer = edit.writer
    try:
        text = read_utf8(path, "mcp-json", config)
        present = writer.entries(text)
        document = json.loads(text)
    except Exception:
        return False
    if set(present) != set(applied.owned.servers_in(config)):
        return False
    return isinstance(document, dict) and len(document) <= 1


def lock(
    project: Path,
    check: bool = False,
    offline: bool = False,
    workers: int = 16,
    strict: bool = False,
) -> Resolution:
    """Resolve and write metapkg.lock only; with ``check``, raise if it would change;
    with ``strict``, fail on every finding install would tolerate."""
    from metapkg.actions.resolution import resolve_project
    from metapkg.fetch.sources import FetchOptions
    from metapkg.lock import format as lockfmt
    from metapkg.provision import scope as scopes
    from metapkg.textio import write_atomic

    with project_lock(project):
        # an interrupted install's rollback must not undo this lock later
        recover(scopes.project(project))
        orphans.sweep_project(project)
        # --check: a lock with conflicts, or damaged, is an error, not "no lock yet"
        options = FetchOptions(offline=offline, workers=workers)
        resolution = resolve_project(project, options, clean_lock=check, strict=strict)
        if check:
            if resolution.lock_changed:
                raise LockError(stale_reasons(resolution))
            return resolution
        if resolution.lock_changed:
            write_atomic(project / lockfmt.FILENAME, resolution.lock_text)
    return resolution


def check_frozen(resolution: Resolution) -> None:
    from metapkg.lock import format as lockfmt

    if resolution.old_lock is None:
        raise LockError.single(
            "lock",
            lockfmt.FILENAME,
            "--frozen needs a metapkg.lock, and there is none; run `metapkg lock` and commit it",
        )
    if resolution.lock_changed:
        raise LockError(stale_reasons(resolution))


def stale_reasons(resolution: Resolution) -> list[Diagnostic]:
    """Why the lock on disk is not what the manifest and the packages give now."""
    from metapkg.actions.prechecks import STALE_HINT, stale
    from metapkg.diff.compare import compare
    from metapkg.lock import format as lockfmt

    old, new = resolution.old_lock, resolution.lock
    if old is None:
        return [error("lock", lockfmt.FILENAME, f"there is no metapkg.lock yet; {STALE_HINT}")]
    reasons: list[tuple[str, str]] = []  # (rule, why)
    for change in compare(old, new, moves=True):
        a, b = change.old, change.new
        if a is None:
            reasons.append(("lock", f"{change.label} is required but not locked"))
        elif b is None:
            reasons.append(("lock", f"{change.label} is locked but no longer required"))
        elif a.integrity != b.integrity:
            found = f"locked {a.integrity[:19]}..., found {b.integrity[:19]}..."
            reasons.append(("integrity", f"the content of {change.label} differs ({found})"))
        else:
            reasons.append(
                (
                    "lock",
                    f"{change.label} is locked differently (origin, commit, "
                    f"version or dependencies)",
                )
            )
    if not reasons and lockfmt.normalized(old) == lockfmt.normalized(new):
        reasons.append(("lock", "it says the same but not in the form metapkg writes (edited?)"))
    elif not reasons:
        reasons.append(("lock", "the manifest's requirements, targets or overrides changed"))
    return [stale(rule, why) for rule, why in reasons]
