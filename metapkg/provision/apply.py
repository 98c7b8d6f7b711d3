"""Make the project match a plan: copy what changed, remove what is no longer wanted.

Ownership comes from the local install state (state.py): metapkg replaces or removes only
paths and .mcp.json keys it wrote itself. Anything else in the way is a
``name-collision`` and nothing is changed, unless it is byte-for-byte what metapkg would
write (say, after .metapkg/ was deleted), which is simply adopted.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path

from metapkg.diagnostics import ProvisionError, error
from metapkg.lock import format as lockfmt
from metapkg.lock.integrity import TreeError, tree_hash
from metapkg.provision import mcpjson
from metapkg.provision.plan import Placement, Plan
from metapkg.provision.stage import Transaction
from metapkg.provision.state import Owned
from metapkg.textio import read_utf8

# Host folders metapkg may remove once they are empty (never .claude/ itself).
_HOST_FOLDERS = (".agents/skills", ".agents/agents", ".claude/skills", ".claude/agents", ".agents")


@dataclass(frozen=True)
class Applied:
    copied: tuple[str, ...]
    removed: tuple[str, ...]
    mcp_changed: bool
    lock_written: bool
    owned: Owned  # what metapkg owns now


def apply(
    project: Path,
    plan: Plan,
    owned: Owned,
    lock_text: str | None,
    values: Mapping[str, str],
    reinstall: bool = False,
) -> Applied:
    _refuse_collisions(project, plan, owned.paths.keys())
    tx = Transaction(project)
    try:
        copied = []
        for placement in plan.placements:
            unchanged = owned.paths.get(placement.path) == placement.integrity
            if unchanged and not reinstall and os.path.lexists(project / placement.path):
                continue
            copy_package(placement.source, tx.staged_path(placement.path), placement.linkable)
            copied.append(placement.path)
        wanted = set(plan.paths)
        removed = sorted(p for p in owned.paths if p not in wanted and os.path.lexists(project / p))
        for path in removed:
            tx.remove(path)
        mcp_changed = _stage_mcp_json(project, tx, owned, plan, values)
        if lock_text is not None:
            tx.write_text(lockfmt.FILENAME, lock_text)
        if tx.empty:
            tx.discard()
        else:
            tx.commit(last=(mcpjson.FILENAME, lockfmt.FILENAME))
    except OSError as exc:  # staging: disk full, a cache tree cleaned meanwhile, ...
        tx.discard()
        where = exc.filename or str(project)
        raise ProvisionError(
            [
                error(
                    "provision",
                    str(where),
                    f"could not stage the install ({exc.strerror}); nothing was changed",
                )
            ]
        ) from None
    except BaseException:
        tx.discard()
        raise
    _prune_empty_host_folders(project)
    now = Owned({p.path: p.integrity for p in plan.placements}, frozenset(plan.servers))
    return Applied(tuple(copied), tuple(removed), mcp_changed, lock_text is not None, now)


def _stage_mcp_json(
    project: Path, tx: Transaction, owned: Owned, plan: Plan, values: Mapping[str, str]
) -> bool:
    path = project / mcpjson.FILENAME
    existing = read_utf8(path, "mcp-json") if path.exists() else None
    text = mcpjson.merge(existing, owned.servers, plan.servers, values)
    if text == existing:
        return False
    if text is None:
        tx.remove(mcpjson.FILENAME)
    else:
        tx.write_text(mcpjson.FILENAME, text)
    return True


def _prune_empty_host_folders(project: Path) -> None:
    for folder in _HOST_FOLDERS:
        with contextlib.suppress(OSError):
            (project / folder).rmdir()  # only succeeds when empty


def _refuse_collisions(project: Path, plan: Plan, owned: Collection[str]) -> None:
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
        and not _identical(project / placement.path, placement)
    ]
    if problems:
        raise ProvisionError(problems)


def _identical(existing: Path, placement: Placement) -> bool:
    """Already exactly what metapkg would write (e.g. after .metapkg/ was lost): adopt it.

    A folder is the package's whole tree, so its hash is the integrity already computed;
    a single file (.claude/agents/<name>.md) is compared byte for byte.
    """
    source = placement.source
    try:
        if source.is_file():
            return existing.is_file() and existing.read_bytes() == source.read_bytes()
        return existing.is_dir() and tree_hash(existing) == placement.integrity
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
