"""Find the packages in a folder the way people lay repositories out.

Looked at, in order:

* a folder with SKILL.md is one skill (its scripts/ and references/ are its own files),
  and a folder with ``<name>.3md`` (or ``agent.3md``) one agent;
* a folder named ``agents``, ``skills`` or ``mcps`` is that bucket of a catalog;
* the catalog buckets ``agents/<name>/AGENTS.md``, ``skills/<name>/SKILL.md`` and
  ``mcps/<file>.json``, including group folders inside a bucket: dot-folders such as
  ``skills/.curated/<name>/`` and plain folders that hold packages
  (``skills/document-skills/pdf/``); files beside the packages of a group are its own;
* without buckets, skills at the top level (``<name>/SKILL.md``) or one group below it
  (``<group>/<name>/SKILL.md``);
* a root AGENTS.md is an agent package when it has frontmatter or nothing else was
  found; otherwise it is the repository's agents.md instructions file, not a package.

Folders named like ``.git`` or ``node_modules`` are never entered. Layout problems inside
the buckets (a stray file, a folder without its manifest) are findings of the
``metaagents`` profile.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from metapkg.diagnostics import Diagnostic, error
from metapkg.packages.frontmatter import opens_frontmatter
from metapkg.packages.load import MANIFEST_FILES, detect_kind
from metapkg.packages.models import Kind

BUCKETS: dict[str, Kind] = {"agents": "agent", "skills": "skill", "mcps": "mcp"}
NEVER_ENTERED = frozenset({"node_modules", "__pycache__", "venv", "dist", "build"})


@dataclass(frozen=True)
class Found:
    path: Path
    display: str
    kind: Kind


@dataclass
class Discovery:
    packages: list[Found] = field(default_factory=list)
    layout: list[Diagnostic] = field(default_factory=list)  # metaagents findings
    notes: list[str] = field(default_factory=list)  # what was passed over, for -v


def discover(root: Path, display: str) -> Discovery:
    """Every package under ``root`` (a folder), named relative to ``display``."""
    result = Discovery()
    if (root / MANIFEST_FILES["skill"]).is_file():
        result.packages.append(Found(root, display, "skill"))
        return result
    if not (root / MANIFEST_FILES["agent"]).exists() and detect_kind(root) == "agent":
        result.packages.append(Found(root, display, "agent"))  # a <name>.3md agent folder
        return result
    if root.resolve().name in BUCKETS:  # `metapkg check skills/`: the bucket itself
        _bucket(root, display, BUCKETS[root.resolve().name], result, nested=False)
        return result
    buckets = [b for b in BUCKETS if (root / b).is_dir()]
    for bucket in buckets:
        _bucket(root / bucket, _join(display, bucket), BUCKETS[bucket], result, nested=False)
    if not buckets:
        _top_level(root, display, result)
    agents_md = root / MANIFEST_FILES["agent"]
    if agents_md.is_file():
        if not result.packages or _has_frontmatter(agents_md):
            result.packages.insert(0, Found(root, display, "agent"))
        else:
            result.notes.append(
                f"{_join(display, 'AGENTS.md')}: the repository's agents.md instructions "
                f"file (no frontmatter), not an agent package; skipped"
            )
    return result


def _join(display: str, name: str) -> str:
    return name if display in (".", "") else f"{display}/{name}"


def _bucket(folder: Path, display: str, kind: Kind, result: Discovery, nested: bool) -> None:
    for entry in sorted(folder.iterdir(), key=lambda p: p.name):
        shown = _join(display, entry.name)
        found = detect_kind(entry)
        if found == kind:
            result.packages.append(Found(entry, shown, kind))
        elif entry.name.startswith("."):
            if entry.is_dir() and not nested and entry.name != ".git":
                _bucket(entry, shown, kind, result, nested=True)
        elif entry.is_dir() and found is None and not nested and _holds(entry, kind):
            _bucket(entry, shown, kind, result, nested=True)
        elif nested and entry.is_file() and kind != "mcp":
            continue  # a group's README and the like
        else:
            result.layout.append(error("layout", shown, _layout_problem(entry, kind, found)))


def _holds(folder: Path, kind: Kind) -> bool:
    return any(
        detect_kind(child) == kind for child in folder.iterdir() if child.is_dir() or kind == "mcp"
    )


def _layout_problem(entry: Path, kind: Kind, found: Kind | None) -> str:
    bucket = f"{kind}s"
    if kind == "mcp":
        return "mcps/ holds only <namespace>_<short>.json files; move this entry out"
    if entry.is_file():
        return f"{bucket}/ holds only package folders; move this file out"
    if found is None:
        expected = MANIFEST_FILES[kind] + (" (or <name>.3md)" if kind == "agent" else "")
        return f"{bucket}/<name>/ must contain {expected}; add it or move this entry out"

    def a(word: str) -> str:
        return f"an {word}" if word == "agent" else f"a {word}"

    return f"this is {a(found)}, not {a(kind)}; move it to {found}s/"


def _top_level(root: Path, display: str, result: Discovery) -> None:
    for entry in _folders(root):
        shown = _join(display, entry.name)
        if (entry / MANIFEST_FILES["skill"]).is_file():
            result.packages.append(Found(entry, shown, "skill"))
            continue
        for child in _folders(entry):
            if (child / MANIFEST_FILES["skill"]).is_file():
                result.packages.append(Found(child, _join(shown, child.name), "skill"))


def _folders(folder: Path) -> list[Path]:
    return sorted(
        (
            entry
            for entry in folder.iterdir()
            if entry.is_dir()
            and not entry.is_symlink()
            and not entry.name.startswith(".")
            and entry.name not in NEVER_ENTERED
        ),
        key=lambda p: p.name,
    )


def _has_frontmatter(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            head = handle.read(64)
    except OSError:
        return False
    return opens_frontmatter(head.decode("utf-8", errors="replace"))
