"""Local install state, so an up-to-date ``metapkg install`` is decided without work.

After a successful install metapkg records, in ``.metapkg/state.json``, hashes of the
manifest, the lock and .mcp.json, the placeholder values, and the size and mtime of every
provisioned path and of every file of every ``file:`` package (those are re-read on each
install). If all of it still matches, nothing can have changed and install stops there:
no YAML parsing, no HTTP stack, no hashing of package trees.

This module must stay cheap to import: standard library only.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

STATE_FILE = ".metapkg/state.json"
_VERSION = 1


def _digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        return None


def _stamp(path: Path) -> list[int] | None:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return [st.st_mtime_ns, st.st_size]


def _stamps(paths: Iterable[Path]) -> dict[str, list[int] | None]:
    stamps: dict[str, list[int] | None] = {}
    for path in paths:
        stamps[str(path)] = _stamp(path)
        if path.is_dir():
            for folder, _, files in os.walk(path):
                for name in files:
                    child = os.path.join(folder, name)
                    stamps[child] = _stamp(Path(child))
    return stamps


def snapshot(
    project: Path,
    provisioned: Iterable[str],
    file_roots: Iterable[str],
    values: Mapping[str, str],
    version: str,
) -> dict[str, object]:
    roots = sorted(set(file_roots))
    return {
        "version": _VERSION,
        "metapkg": version,
        "values": dict(values),
        "manifest": _digest(project / "metapkg.yaml"),
        "lock": _digest(project / "metapkg.lock"),
        "mcp": _digest(project / ".mcp.json"),
        "provisioned": {p: _stamp(project / p) for p in sorted(provisioned)},
        "file-roots": roots,
        "file-packages": _stamps(Path(r) for r in roots),
    }


def save(project: Path, state: Mapping[str, object]) -> None:
    path = project / STATE_FILE
    path.parent.mkdir(exist_ok=True)
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(state, sort_keys=True), encoding="utf-8")
    temporary.replace(path)


def up_to_date(project: Path, values: Mapping[str, str], version: str) -> bool:
    """True when the last install's snapshot still describes the project exactly."""
    try:
        saved = json.loads((project / STATE_FILE).read_text(encoding="utf-8"))
        pending = any(name.startswith("tx-") for name in os.listdir(project / ".metapkg"))
    except (OSError, ValueError):
        return False
    if pending or not isinstance(saved, dict) or saved.get("version") != _VERSION:
        return False
    current = snapshot(
        project, saved.get("provisioned", {}), saved.get("file-roots", []), values, version
    )
    return bool(current == saved)


def forget(project: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        (project / STATE_FILE).unlink()
