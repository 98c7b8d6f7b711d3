"""``metapkg verify``: do the provisioned files still match metapkg.lock?

Read-only. Each path metapkg owns is compared with the locked package: file by file when
the package is in the download cache (or is a local ``file:`` package whose content still
matches the lock), else by its integrity hash. The ``.mcp.json`` servers metapkg owns
must equal the locked server configs with placeholders substituted.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from metapkg.diagnostics import LockError, MetapkgError
from metapkg.fetch.source import RefPin
from metapkg.fetch.sources import FetchOptions, Sources
from metapkg.integrity import TreeError, tree_files, tree_hash
from metapkg.lock import format as lockfmt
from metapkg.origins import OriginSyntaxError, parse_origin
from metapkg.packages import placeholders
from metapkg.provision import mcpjson
from metapkg.provision.hosts import placements
from metapkg.provision.values import placeholder_values
from metapkg.textio import read_utf8


@dataclass(frozen=True)
class Drift:
    kind: str  # modified, missing, extra
    path: str  # project-relative
    detail: str = ""


@dataclass(frozen=True)
class Verification:
    drifts: tuple[Drift, ...]
    checked: int  # provisioned paths and servers compared
    notes: tuple[str, ...] = ()  # what could only be checked by hash


def verify(project: Path) -> Verification:
    lock = lockfmt.read(project / lockfmt.FILENAME)
    if lock is None:
        raise LockError.single(
            "lock", lockfmt.FILENAME, "there is no metapkg.lock to verify against"
        )
    owned = set(lock.provisioned)
    pins = tuple(RefPin(p.repo, p.ref, p.commit) for p in lock.pins)
    sources = Sources(FetchOptions(pins=pins, offline=True, frozen=True))
    drifts: list[Drift] = []
    notes: list[str] = []
    checked = 0
    try:
        for package in lock.packages:
            name = package.fqn.rsplit("/", 1)[-1]
            mine = [(p, i) for p, i in placements(package.kind, name, lock.targets) if p in owned]
            if not mine:
                continue
            tree = _expected_tree(package, project, sources)  # once per package, not per path
            for path, inner in mine:
                checked += 1
                expected = (tree / inner if inner else tree) if tree else None
                if expected is None:
                    notes.append(
                        f"{path}: no unaltered copy of {package.label} in the download "
                        f"cache, compared by hash only (`metapkg cache clean` if the "
                        f"cache copy was edited)"
                    )
                drifts.extend(_compare(project, path, package, expected, inner))
    finally:
        sources.close()
    servers = _compare_servers(project, lock)
    return Verification(tuple(drifts + servers), checked + len(lock.mcp_servers), tuple(notes))


def _expected_tree(package: lockfmt.LockedPackage, project: Path, sources: Sources) -> Path | None:
    """The locked package's files on local disk, if they are there and match the lock."""
    try:
        fetched = sources.fetch(parse_origin(package.origin, project))
        if tree_hash(fetched.path) != package.integrity:
            return None
    except (MetapkgError, OriginSyntaxError, TreeError, OSError):
        return None
    return fetched.path


def _digest_files(root: Path) -> dict[str, tuple[bool, str]]:
    files = {}
    for relative, path, executable in tree_files(root):
        files[relative] = (executable, hashlib.sha256(path.read_bytes()).hexdigest())
    return files


def _compare(
    project: Path, path: str, package: lockfmt.LockedPackage, expected: Path | None, inner: str
) -> list[Drift]:
    target = project / path
    if not os.path.lexists(target):
        return [Drift("missing", path, f"{package.label} is not provisioned")]
    try:
        if expected is None:
            if inner:  # a single file we have no copy of: nothing to compare with
                return []
            same = tree_hash(target) == package.integrity
            return [] if same else [Drift("modified", path, "differs from the locked content")]
        if inner:
            return [] if target.read_bytes() == expected.read_bytes() else [Drift("modified", path)]
        have, want = _digest_files(target), _digest_files(expected)
    except TreeError as exc:
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


def _compare_servers(project: Path, lock: lockfmt.Lockfile) -> list[Drift]:
    if not lock.mcp_servers:
        return []
    values = placeholder_values(project)
    try:
        document = json.loads(read_utf8(project / mcpjson.FILENAME, "mcp-json"))
        present = document.get("mcpServers", {}) if isinstance(document, dict) else {}
    except FileNotFoundError:
        return [Drift("missing", mcpjson.FILENAME)]
    except (ValueError, MetapkgError):
        return [Drift("modified", mcpjson.FILENAME, "not valid JSON")]
    servers = {p.fqn: p.server for p in lock.packages if p.kind == "mcp"}
    drifts = []
    for name in lock.mcp_servers:
        where = f'{mcpjson.FILENAME} mcpServers["{name}"]'
        if name not in present:
            drifts.append(Drift("missing", where))
        elif present[name] != placeholders.substitute(
            dict(servers.get(name) or {}), values, f"metapkg.lock {name}"
        ):
            drifts.append(Drift("modified", where, "differs from the locked server config"))
    return drifts
