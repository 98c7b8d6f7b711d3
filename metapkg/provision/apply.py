"""Make the project match a plan: copy what changed, remove what is no longer wanted.

Ownership comes from the previous lock: metapkg replaces or removes only the paths and
.mcp.json keys it recorded there. Anything else in the way is a ``name-collision`` and
nothing is changed.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from metapkg.diagnostics import ProvisionError, error
from metapkg.lock import format as lockfmt
from metapkg.lock.integrity import TreeError, tree_hash
from metapkg.provision import mcpjson
from metapkg.provision.hosts import placements
from metapkg.provision.plan import Plan
from metapkg.provision.stage import Transaction


@dataclass(frozen=True)
class Applied:
    copied: tuple[str, ...]
    removed: tuple[str, ...]
    mcp_changed: bool
    lock_written: bool


def owned_integrity(lock: lockfmt.Lockfile | None) -> dict[str, str]:
    """Path -> integrity of the package the previous install put there."""
    if lock is None:
        return {}
    owned = set(lock.provisioned)
    found = {}
    for package in lock.packages:
        name = package.fqn.rsplit("/", 1)[-1]
        for path, _ in placements(package.kind, name, lock.targets):
            if path in owned:
                found[path] = package.integrity
    return found


def apply(
    project: Path,
    plan: Plan,
    old_lock: lockfmt.Lockfile | None,
    lock_text: str | None,
    values: Mapping[str, str],
    reinstall: bool = False,
) -> Applied:
    owned_paths = set(old_lock.provisioned) if old_lock else set()
    owned_servers = set(old_lock.mcp_servers) if old_lock else set()
    _refuse_collisions(project, plan, owned_paths)
    previous = {} if reinstall else owned_integrity(old_lock)
    tx = Transaction(project)
    try:
        copied = []
        for placement in plan.placements:
            target = project / placement.path
            if previous.get(placement.path) == placement.integrity and os.path.lexists(target):
                continue
            copy_package(placement.source, tx.staged_path(placement.path), placement.linkable)
            copied.append(placement.path)
        wanted = set(plan.paths)
        removed = sorted(p for p in owned_paths - wanted if os.path.lexists(project / p))
        for path in removed:
            tx.remove(path)
        mcp_path = project / mcpjson.FILENAME
        existing = mcp_path.read_text(encoding="utf-8") if mcp_path.exists() else None
        mcp_text = mcpjson.merge(existing, owned_servers, plan.servers, values)
        mcp_changed = mcp_text != existing
        if mcp_changed:
            if mcp_text is None:
                tx.remove(mcpjson.FILENAME)
            else:
                tx.write_text(mcpjson.FILENAME, mcp_text)
        if lock_text is not None:
            tx.write_text(lockfmt.FILENAME, lock_text)
        if tx.empty:
            tx.discard()
        else:
            tx.commit(last=(mcpjson.FILENAME, lockfmt.FILENAME))
    except BaseException:
        tx.discard()
        raise
    return Applied(tuple(copied), tuple(removed), mcp_changed, lock_text is not None)


def _refuse_collisions(project: Path, plan: Plan, owned: set[str]) -> None:
    problems = [
        error(
            "name-collision",
            placement.path,
            f"{placement.path} exists and was not written by metapkg, so {placement.key[0]} "
            f"{placement.key[1]} cannot be provisioned there; move or rename it, then install "
            f"again",
        )
        for placement in plan.placements
        if placement.path not in owned
        and os.path.lexists(project / placement.path)
        and not _identical(project / placement.path, placement.source)
    ]
    if problems:
        raise ProvisionError(problems)


def _identical(existing: Path, source: Path) -> bool:
    """Already exactly what metapkg would write (e.g. after the lock was deleted): adopt it."""
    try:
        if source.is_file():
            return existing.is_file() and existing.read_bytes() == source.read_bytes()
        return existing.is_dir() and tree_hash(existing) == tree_hash(source)
    except (OSError, TreeError):
        return False


def copy_package(source: Path, target: Path, link: bool = False) -> None:
    """Copy a package folder (or one file) with its execute bits.

    With ``link``, files are hard-linked instead (about 25x faster than copying on ext4);
    where the file system refuses (another device, no link support), they are copied.
    """
    if source.is_dir():
        shutil.copytree(source, target, copy_function=_link_or_copy if link else shutil.copy)
    else:
        (_link_or_copy if link else shutil.copy)(source, target)


def _link_or_copy(source: str | Path, target: str | Path) -> None:
    try:
        os.link(source, target)
    except OSError:
        shutil.copy(source, target)
