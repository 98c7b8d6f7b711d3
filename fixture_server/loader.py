"""Reading fixture repositories from `<root>/<owner>/<repo>/repo.yaml` files."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ruamel.yaml import YAML


@dataclass(frozen=True)
class RepoSpec:
    """Arguments for `FixtureGitHub.add_repo`, as read from one repo.yaml."""

    owner: str
    repo: str
    commits: dict[str, Path] = field(default_factory=dict)
    branches: dict[str, str] = field(default_factory=dict)
    tags: dict[str, str] = field(default_factory=dict)
    renamed_to: str | None = None
    annotated_tags: tuple[str, ...] = ()


def load_root(root: Path) -> list[RepoSpec]:
    """Every `<owner>/<repo>/repo.yaml` directly under `root`, sorted by name."""
    if not root.is_dir():
        raise NotADirectoryError(f"fixture root does not exist: {root}")
    return [load_repo_yaml(path) for path in sorted(root.glob("*/*/repo.yaml"))]


def load_repo_yaml(path: Path) -> RepoSpec:
    data = YAML(typ="safe").load(path.read_text(encoding="utf-8")) or {}
    if not isinstance(data, Mapping):
        raise ValueError(f"{path}: expected a mapping at the top level")
    unknown = set(data) - {"commits", "branches", "tags", "renamed_to", "annotated_tags"}
    if unknown:
        raise ValueError(f"{path}: unknown keys {sorted(map(str, unknown))}")
    base = path.parent
    commits = {
        label: (base / folder).resolve()
        for label, folder in _str_mapping(path, "commits", data.get("commits")).items()
    }
    renamed_to = data.get("renamed_to")
    if renamed_to is not None and not isinstance(renamed_to, str):
        raise ValueError(f"{path}: renamed_to must be a string 'owner/repo'")
    annotated = data.get("annotated_tags") or []
    if not isinstance(annotated, list) or not all(isinstance(tag, str) for tag in annotated):
        raise ValueError(f"{path}: annotated_tags must be a list of tag names (quote them)")
    return RepoSpec(
        owner=base.parent.name,
        repo=base.name,
        commits=commits,
        branches=_str_mapping(path, "branches", data.get("branches")),
        tags=_str_mapping(path, "tags", data.get("tags")),
        renamed_to=renamed_to,
        annotated_tags=tuple(annotated),
    )


def _str_mapping(path: Path, key: str, value: object) -> dict[str, str]:
    """A mapping of strings; anything else (e.g. an unquoted `1.10`, read as a float) is
    refused rather than silently converted."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ValueError(f"{path}: {key} must be a mapping")
    result: dict[str, str] = {}
    for name, target in value.items():
        if not isinstance(name, str) or not isinstance(target, str):
            raise ValueError(f"{path}: {key}: {name!r}: {target!r} must be strings (quote them)")
        result[name] = target
    return result
