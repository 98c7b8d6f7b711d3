"""Make the project match a plan: copy what changed, remove what is no longer wanted.

Ownership comes from the local install state (state.py): metapkg replaces or removes only
paths and MCP server entries it wrote itself, and only while they still hold what it
wrote. Anything else in the way is a ``name-collision`` and nothing is changed, unless it
is byte-for-byte what metapkg would write (say, after .metapkg/ was deleted), which is
simply adopted. An owned path that was changed since (by the user, or a state file that
was never metapkg's) is left in place when no longer wanted, and reported.

Nothing is ever written through a symbolic link: a link on the way to a provisioned path
(``.claude`` pointing elsewhere) or at an MCP config file stops the install. (In user
scope only the second: the home folder's links are the user's own; see scope.py.)
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from errno import ENOSPC
from pathlib import Path

from metapkg import events, failpoint
from metapkg.diagnostics import Diagnostic, ProvisionError, error
from metapkg.hosts.config import baseline
from metapkg.hosts.config.baseline import Baseline
from metapkg.integrity import TreeError
from metapkg.provision.linkmode import place_packages
from metapkg.provision.plan import ConfigEdit, Placement, Plan, emptying, written_hash
from metapkg.provision.scope import Scope
from metapkg.provision.stage import STATE_DIR, Transaction, delete_path
from metapkg.provision.state import Owned, OwnedPath
from metapkg.textio import read_utf8


@dataclass(frozen=True)
class Applied:
    copied: tuple[str, ...]
    removed: tuple[str, ...]
    configs_changed: tuple[str, ...]  # MCP config files rewritten (or removed)
    lock_written: bool
    owned: Owned  # what metapkg owns now
    kept: tuple[str, ...] = ()  # owned paths no longer wanted but changed since: left alone


def apply(
    scope: Scope,
    plan: Plan,
    owned: Owned,
    lock: tuple[str, str] | None,
    reinstall: bool = False,
) -> Applied:
    """Make the scope match ``plan``; ``lock`` (file name, text) is written last."""
    lock_name = lock[0] if lock is not None else None
    _refuse_links(scope, plan, owned, lock_name)
    _refuse_collisions(scope, plan, owned, reinstall)
    tx: Transaction | None = None
    try:
        tx = Transaction(scope)  # creates .metapkg/tx-*/stage: read-only, or a full disk
        copied = _stage_placements(scope, tx, plan, owned, reinstall)
        gone = unwanted(scope, plan, owned)
        mine = _still_ours(scope, owned, gone)
        removed = [p for p in gone if p in mine]
        for path in removed:
            tx.remove(path)
        configs = _stage_configs(scope, tx, owned, plan, reinstall)
        if lock is not None:
            tx.write_text(*lock)
        if tx.empty:
            tx.discard()
        else:
            last = (*(edit.path for edit in plan.configs), *owned.servers, *(lock_name or ()))
            tx.commit(last=tuple(dict.fromkeys(p for p in last if p)))
    except OSError as exc:  # staging: disk full, a cache tree cleaned meanwhile, ...
        if tx is not None:
            tx.discard()
        where = exc.filename or str(scope.base)
        why = exc.strerror or type(exc).__name__
        message = f"could not stage the install ({why}); nothing was changed"
        if exc.errno == ENOSPC:
            message += ". The disk is full: make room on it, then install again"
        raise ProvisionError([error("provision", str(where), message)]) from None
    except BaseException:
        if tx is not None:
            tx.discard()
        raise
    _prune_empty_host_folders(scope, [*removed, *configs.changed])
    placed = {p.path: OwnedPath(p.integrity, p.written) for p in plan.placements}
    now = Owned(placed, configs.servers, configs.created, configs.baselines)
    kept = tuple(p for p in gone if p not in mine)
    return Applied(tuple(copied), tuple(removed), configs.changed, lock is not None, now, kept)


# Packages to copy from which a worker helps: when one is running already (it extracted
# archives); else from where its start (~0.15 s here) pays (a warm install of 300 packages
# into two host folders, 600 copies, came out 0.07 s slower with it).
SHARED_FROM = 64
STARTS_WORKER_FROM = 2000


def _stage_placements(
    scope: Scope, tx: Transaction, plan: Plan, owned: Owned, reinstall: bool
) -> list[str]:
    copied = []
    packages: list[tuple[Path, Path, str, bool]] = []  # copied after this loop
    for done, placement in enumerate(plan.placements):
        events.emit(events.Provisioning(placement.path, done, len(plan.placements)))
        if not needs_copy(scope, owned, placement, reinstall):
            continue
        if placement.source is not None:
            target = tx.staged_path(placement.path)
            packages.append((placement.source, target, plan.link_mode, placement.linkable))
        elif placement.data is not None:
            tx.write_bytes(placement.path, placement.data)
        else:
            target = tx.staged_path(placement.path)
            for relative, data in sorted((placement.files or {}).items()):
                (target / relative).parent.mkdir(parents=True, exist_ok=True)
                failpoint.charge(len(data), target / relative)
                (target / relative).write_bytes(data)
        copied.append(placement.path)
    _place(packages)
    return copied


def _place(packages: list[tuple[Path, Path, str, bool]]) -> None:
    """Copy the packages into the stage; many of them (a big install: 300 packages
    into two host folders is 3,000 files) with a worker process's help, which halves
    the interpreter's share of the work (metapkg/workers.py)."""
    if len(packages) < SHARED_FROM:  # a small install never imports the worker module
        place_packages(packages)
        return
    from metapkg import workers

    if len(packages) >= (SHARED_FROM if workers.running() else STARTS_WORKER_FROM):
        workers.share(packages, place_packages, batch=16, undo=unplace)
    else:
        place_packages(packages)


def unplace(packages: Sequence[tuple[Path, Path, str, bool]]) -> None:
    """Remove what a worker that died may have placed of ``packages`` (in the stage)."""
    for _, target, _, _ in packages:
        delete_path(target)


def needs_copy(scope: Scope, owned: Owned, placement: Placement, reinstall: bool) -> bool:
    """Is ``placement`` written (again)? Not when metapkg wrote this very content there
    and it is still there (``reinstall``: always)."""
    before = owned.paths.get(placement.path)
    same = (
        before is not None
        and before.integrity == placement.integrity
        and before.written == placement.written
    )
    return reinstall or not same or not os.path.lexists(scope.locate(placement.path))


def unwanted(scope: Scope, plan: Plan, owned: Owned) -> list[str]:
    """The owned paths still there that the plan no longer wants, sorted."""
    wanted = set(plan.paths)
    return sorted(p for p in owned.paths if p not in wanted and os.path.lexists(scope.locate(p)))


def config_edits(scope: Scope, plan: Plan, owned: Owned) -> list[ConfigEdit]:
    """The plan's config edits, and one emptying every file holding servers metapkg wrote
    that no active host wants now."""
    edits = list(plan.configs)
    planned = {edit.path for edit in edits}
    for path in sorted(owned.servers):
        emptied = emptying(path, scope.hosts)
        if path not in planned and emptied is not None:
            edits.append(emptied)
    return edits


@dataclass(frozen=True)
class Merged:
    """One config file's edit: its text before and after (None: no file; a byte-order
    mark kept), the entries metapkg owns in it after, and how to give its bytes back."""

    before: str | None
    after: str | None
    owned: dict[str, str]
    baseline: Baseline | None = None


def merge_config(scope: Scope, owned: Owned, edit: ConfigEdit, repair: bool) -> Merged:
    """A config file metapkg did not create is kept even when it ends up empty, and once
    metapkg's entries leave it, it gets the bytes back it had before metapkg's first edit
    when nobody changed it since (hosts/config/baseline.py). One metapkg has nothing to
    write into or remove from is not parsed at all (a skills-only project targeting Codex
    never imports a TOML library, and a config of the user's the host's writer cannot
    read stops nothing)."""
    path = edit.path
    file = scope.locate(path)
    existing = read_utf8(file, "mcp-json", path, keep_bom=True) if os.path.lexists(file) else None
    mine = owned.servers_in(path)
    if not edit.entries and not mine:
        return Merged(existing, existing, {})
    bom = "\ufeff" if existing is not None and existing.startswith("\ufeff") else ""
    plain = existing[len(bom) :] if existing is not None else None
    keep = existing is not None and path not in owned.created
    text, now = edit.writer.merge(plain, mine, edit.entries, repair, keep)
    after = bom + text if text is not None else None

    def settings(full: str) -> object:
        return edit.writer.settings(full.removeprefix("\ufeff"))

    before = owned.baselines.get(path)
    after, kept = baseline.settle(existing, after, before, bool(mine), bool(now), settings)
    return Merged(existing, after, now, kept)


@dataclass(frozen=True)
class StagedConfigs:
    changed: tuple[str, ...]  # the files changed
    servers: dict[str, dict[str, str]]  # what metapkg owns in each
    created: frozenset[str]  # the config files metapkg created (the only ones it may remove)
    baselines: dict[str, Baseline]  # how to give the user's files their bytes back


def _stage_configs(
    scope: Scope, tx: Transaction, owned: Owned, plan: Plan, repair: bool
) -> StagedConfigs:
    """Merge each host's servers into its config file; drop what metapkg wrote to config
    files no active host wants any more."""
    changed: list[str] = []
    servers: dict[str, dict[str, str]] = {}
    created: set[str] = set()
    baselines: dict[str, Baseline] = {}
    for edit in config_edits(scope, plan, owned):
        path = edit.path
        merged = merge_config(scope, owned, edit, repair)
        ours = merged.before is None or path in owned.created
        if merged.owned:
            servers[path] = merged.owned
        if merged.baseline is not None:
            baselines[path] = merged.baseline
        if ours and merged.after is not None:
            created.add(path)
        if merged.after == merged.before:
            continue
        changed.append(path)
        if merged.after is None:
            tx.remove(path)
        else:
            tx.write_text(path, merged.after)
    return StagedConfigs(tuple(changed), servers, frozenset(created), baselines)


def _prune_empty_host_folders(scope: Scope, gone: Iterable[str]) -> None:
    """Remove the host folders that removing ``gone`` left empty (only those: an empty
    ``~/.cursor`` the install never touched is not metapkg's to remove)."""
    above = {
        "/".join(path.split("/")[:depth])
        for path in gone
        for depth in range(1, path.count("/") + 1)
    }
    for folder in scope.allow.host_folders:  # deepest first
        if folder in above:
            with contextlib.suppress(OSError):
                scope.locate(folder).rmdir()  # only succeeds when empty


def _refuse_links(scope: Scope, plan: Plan, owned: Owned, lock_name: str | None) -> None:
    """No write may go through a symbolic link: not a host folder (in a project), not a
    config file, not metapkg's own state folder."""
    problems: list[Diagnostic] = []
    if os.path.islink(scope.base / STATE_DIR):
        problems.append(_link_error(STATE_DIR, STATE_DIR))
    files = {
        *(edit.path for edit in plan.configs),
        *owned.servers,
        *([lock_name] if lock_name else []),
    }
    seen: dict[str, bool] = {}
    for path in dict.fromkeys([*plan.paths, *owned.paths, *sorted(files)]):
        link = scope.linked_folder(path, seen)
        if link is None and path in files:
            link = path if os.path.islink(scope.locate(path)) else None
        if link is not None:
            problems.append(_link_error(path, link))
    if problems:
        raise ProvisionError(problems)


def _link_error(path: str, link: str) -> Diagnostic:
    return error(
        "link",
        link,
        f"{link} is a symbolic link, and metapkg never writes through links ({path} would "
        f"land wherever it points); replace the link with a real folder or file, then "
        f"install again. Nothing was changed",
    )


def _still_ours(scope: Scope, owned: Owned, paths: Iterable[str]) -> set[str]:
    """The owned ``paths`` that still hold exactly what metapkg wrote there."""
    return {path for path in paths if _holds(scope.locate(path), owned.paths[path].written)}


def _holds(target: Path, written: str) -> bool:
    try:
        return not os.path.islink(target) and written_hash(target) == written
    except (OSError, TreeError):
        return False


def _refuse_collisions(scope: Scope, plan: Plan, owned: Owned, reinstall: bool) -> None:
    """A path in the way that is not (still) metapkg's own is a collision. ``reinstall``
    overwrites paths metapkg wrote that were changed since (repairing drift), never a
    path it has no record of writing."""
    problems = []
    for placement in plan.placements:
        target = scope.locate(placement.path)
        record = owned.paths.get(placement.path)
        if not os.path.lexists(target):
            continue
        if record is not None:
            if record.integrity == placement.integrity and not reinstall:
                continue  # left as it is
            if reinstall or _holds(target, record.written):
                continue
        if _holds(target, placement.written):
            continue  # already exactly what metapkg would write (.metapkg/ lost?): adopt it
        problems.append(
            error(
                "name-collision",
                placement.path,
                f"{placement.path} exists and was not written by metapkg (or was changed since), "
                f"so {placement.key[0]} {placement.key[1]} cannot be provisioned there; move or "
                f"rename it, then install again",
            )
        )
    if problems:
        raise ProvisionError(problems)
