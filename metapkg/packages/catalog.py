"""Catalogs: the flat ``agents/`` ``skills/`` ``mcps/`` layout and its cross-entry rules."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from metapkg.diagnostics import Diagnostic, error
from metapkg.packages.load import Loaded, detect_kind, load_package
from metapkg.packages.models import Kind

BUCKETS: dict[str, Kind] = {"agents": "agent", "skills": "skill", "mcps": "mcp"}


def is_catalog(path: Path) -> bool:
    return (
        path.is_dir()
        and detect_kind(path) is None
        and any((path / bucket).is_dir() for bucket in BUCKETS)
    )


def check_catalog(root: Path, display: str) -> list[Diagnostic]:
    diags: list[Diagnostic] = []
    seen: dict[tuple[Kind, str], str] = {}
    for bucket, kind in BUCKETS.items():
        folder = root / bucket
        if not folder.is_dir():
            continue
        for entry in sorted(folder.iterdir(), key=lambda p: p.name):
            if entry.name.startswith("."):
                continue
            shown = (
                f"{display}/{bucket}/{entry.name}" if display != "." else f"{bucket}/{entry.name}"
            )
            problem = _layout_problem(entry, kind, bucket)
            if problem:
                diags.append(error("layout", shown, problem))
                continue
            loaded = load_package(entry, shown, kind)
            diags.extend(loaded.diagnostics)
            diags.extend(_uniqueness(loaded, shown, seen))
    return diags


def _layout_problem(entry: Path, kind: Kind, bucket: str) -> str | None:
    found = detect_kind(entry)
    if kind == "mcp":
        if found == "mcp":
            return None
        return "mcps/ holds only <namespace>_<short>.json files; move this entry out"
    if found == kind:
        return None
    if entry.is_file():
        return f"{bucket}/ holds only package folders; move this file out"
    if found is None:
        expected = "AGENTS.md (or <name>.3md)" if kind == "agent" else "SKILL.md"
        return f"{bucket}/<name>/ must contain {expected}; add it or move this entry out"
    article = "an" if kind == "agent" else "a"
    return f"this is a {found}, not {article} {kind}; move it to {found}s/"


def _uniqueness(
    loaded: Loaded, shown: str, seen: dict[tuple[Kind, str], str]
) -> Iterator[Diagnostic]:
    package = loaded.package
    if package is None:
        return
    key = (package.kind, package.fqn)
    if key in seen:
        yield error(
            "fqn-unique",
            shown,
            f"{package.label} is also defined by {seen[key]}; fully-qualified names must be "
            f"unique per kind in a catalog",
        )
    else:
        seen[key] = shown
