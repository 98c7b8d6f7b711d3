"""``metapkg verify``: do the provisioned files still match metapkg.lock?

Read-only. The expected state is planned exactly as install plans it (the same host
registry, the same rendering of agent files, the same MCP entries in each host's config
file), from the locked packages found offline: in the download cache at their pinned
commits, or on disk for ``file:`` packages, each used only while its content still
matches the lock. Folders are compared file by file, generated files byte for byte, and
each MCP entry metapkg wrote as its host's file reads it. A package with no unaltered
local copy can only be compared by hash (and a rendered agent file not at all); the
notes say so.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import hashlib
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from metapkg.diagnostics import LockError, MetapkgError
from metapkg.fetch.sources import FetchOptions, Sources
from metapkg.hosts.placeholders import Mode
from metapkg.integrity import TreeError, tree_files, tree_hash
from metapkg.lock import format as lockfmt
from metapkg.origins import OriginSyntaxError, parse_origin
from metapkg.packages.load import load_package
from metapkg.provision import scope as scopes
from metapkg.provision.hostrules import judge
from metapkg.provision.plan import ConfigEdit, Item, Placement, plan_placements
from metapkg.textio import read_utf8


@dataclass(frozen=True)
class Drift:
    kind: str  # modified, missing, extra
    path: str  # project-relative (user scope: a user-level path template)
    detail: str = ""


@dataclass(frozen=True)
class Verification:
    drifts: tuple[Drift, ...]
    checked: int  # provisioned paths and servers compared
    notes: tuple[str, ...] = ()  # what could only be checked by hash


def verify(project: Path, scope: scopes.Scope | None = None) -> Verification:
    """``scope``: where the lock's packages were provisioned (default: the project)."""
    where = scope or scopes.project(project)
    lock = lockfmt.read(project / lockfmt.FILENAME)
    if lock is None:
        raise LockError.single(
            "lock", lockfmt.FILENAME, "there is no metapkg.lock to verify against"
        )
    items, missing = _local_items(project, lock, _trusted_plugins(project))
    refused = judge(items, where.active(lock.targets)).refused  # as install left them out
    plan = plan_placements(
        items, lock.targets, where, where.values(), _mode(project), refused=refused
    )
    owned = set(lock.provisioned)
    drifts: list[Drift] = []
    notes: list[str] = []
    checked = 0
    planned = {p.path for p in plan.placements}
    for placement in plan.placements:
        if placement.path in owned:
            checked += 1
            drifts.extend(_compare(where.locate(placement.path), placement))
    for path in sorted(owned - planned):  # packages with no unaltered local copy
        if not where.allow.is_provisioned(path):
            continue  # a path of the other scope: not this scope's to look at
        checked += 1
        drifts.extend(_by_hash(where.locate(path), path, missing, notes))
    for edit in plan.configs:
        wanted = set(lock.mcp_servers.get(edit.path, ()))
        checked += len(wanted)
        drifts.extend(_compare_servers(where.locate(edit.path), edit, wanted))
    return Verification(tuple(drifts), checked, tuple(notes))


def _mode(project: Path) -> Mode:
    from metapkg import manifest

    try:
        chosen = manifest.read(project).mcp_paths
    except MetapkgError:
        chosen = "absolute"
    return "host-variables" if chosen == "host-variables" else "absolute"


def _trusted_plugins(project: Path) -> tuple[str, ...]:
    from metapkg import manifest

    try:
        return manifest.read(project).trusted_plugins
    except MetapkgError:
        return ()


def _local_items(
    project: Path, lock: lockfmt.Lockfile, trusted: tuple[str, ...] = ()
) -> tuple[list[Item], dict[str, lockfmt.LockedPackage]]:
    """The locked packages found unaltered on this machine, and (by name) the others."""
    pins = lock.pins
    sources = Sources(FetchOptions(pins=pins, offline=True, frozen=True, renamed=lock.renamed))
    items: list[Item] = []
    missing: dict[str, lockfmt.LockedPackage] = {}
    try:
        for package in lock.packages:
            item = _item(package, project, sources)
            if item is not None and any(fnmatch.fnmatchcase(package.fqn, g) for g in trusted):
                item = dataclasses.replace(item, trusted=package.kind == "plugin")
            if item is None:
                missing[package.fqn.rsplit("/", 1)[-1]] = package
            else:
                items.append(item)
    finally:
        sources.close()
    return items, missing


def _item(package: lockfmt.LockedPackage, project: Path, sources: Sources) -> Item | None:
    try:
        fetched = sources.fetch(parse_origin(package.origin, project))
        if tree_hash(fetched.path) != package.integrity:
            return None
        loaded = load_package(
            fetched.path, fetched.display, folder_name=fetched.folder_name, consumer=True
        )
    except (MetapkgError, OriginSyntaxError, TreeError, OSError):
        return None
    if loaded.package is None:
        return None
    return Item(loaded.package, package.integrity, linkable=fetched.shared)


def _digest_files(root: Path) -> dict[str, tuple[bool, str]]:
    return {
        relative: (executable, hashlib.sha256(path.read_bytes()).hexdigest())
        for relative, path, executable in tree_files(root)
    }


def _digest_data(files: Mapping[str, bytes]) -> dict[str, tuple[bool, str]]:
    return {relative: (False, hashlib.sha256(data).hexdigest()) for relative, data in files.items()}


def _compare(target: Path, placement: Placement) -> list[Drift]:
    path = placement.path
    label = f"{placement.key[0]} {placement.key[1]}"
    if not os.path.lexists(target):
        return [Drift("missing", path, f"{label} is not provisioned")]
    try:
        if placement.data is not None:
            same = target.is_file() and target.read_bytes() == placement.data
            return [] if same else [Drift("modified", path)]
        have = _digest_files(target)
        if placement.source is not None and placement.source.is_file():
            want = {placement.source.name: _digest_files(placement.source)[placement.source.name]}
        elif placement.source is not None:
            want = _digest_files(placement.source)
        else:
            want = _digest_data(placement.files or {})
    except (TreeError, OSError) as exc:
        return [Drift("modified", path, str(exc))]
    drifts = []
    for relative in sorted(want.keys() | have.keys()):
        shown = f"{path}/{relative}"
        if relative not in have:
            drifts.append(Drift("missing", shown))
        elif relative not in want:
            drifts.append(Drift("extra", shown))
        elif have[relative][1] != want[relative][1]:
            drifts.append(Drift("modified", shown))
        elif have[relative][0] != want[relative][0]:
            drifts.append(Drift("modified", shown, "execute bit differs"))
    return drifts


def _by_hash(
    target: Path, path: str, missing: Mapping[str, lockfmt.LockedPackage], notes: list[str]
) -> list[Drift]:
    name = path.rsplit("/", 1)[-1]
    package = missing.get(name)
    if not os.path.lexists(target):
        return [Drift("missing", path)]
    if package is None or not target.is_dir():
        notes.append(f"{path}: no local copy of its package to compare with")
        return []
    notes.append(
        f"{path}: no unaltered copy of {package.label} in the download cache, compared by hash only"
    )
    try:
        same = tree_hash(target) == package.integrity
    except TreeError as exc:
        return [Drift("modified", path, str(exc))]
    return [] if same else [Drift("modified", path, "differs from the locked content")]


def _compare_servers(file: Path, edit: ConfigEdit, wanted: set[str]) -> list[Drift]:
    if not wanted:
        return []
    try:
        text = read_utf8(file, "mcp-json", edit.path)
        present = edit.writer.entries(text)
    except FileNotFoundError:
        return [Drift("missing", edit.path)]
    except MetapkgError:
        return [Drift("modified", edit.path, "cannot be read")]
    drifts = []
    for key in sorted(wanted):
        where = f'{edit.path} server "{key}"'
        entry = edit.entries.get(key)
        if key not in present:
            drifts.append(Drift("missing", where))
        elif entry is None or present[key] != edit.writer.as_written(text, entry):
            drifts.append(Drift("modified", where, "differs from the locked server config"))
    return drifts
