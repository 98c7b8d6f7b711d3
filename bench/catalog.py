"""Synthetic catalogs for benchmarks: layered graphs spread over many repositories.

Packages sit in ``depth`` levels; every package depends on ``fanout`` packages of the
next level. Each level lives in its own group of repositories, so every level of a cold
crawl needs new ref lookups and downloads: the critical path is ``depth`` levels long,
which is what the cold-install bound measures.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

GH = "https://github.com"


@dataclass(frozen=True)
class Shape:
    packages: int = 300
    repos: int = 30
    depth: int = 6
    fanout: int = 3
    files: int = 3  # extra files per skill besides SKILL.md and CHANGELOG.md
    file_bytes: int = 2048

    def __str__(self) -> str:
        return (
            f"{self.packages} packages, {self.repos} repos, depth {self.depth}, "
            f"fan-out {self.fanout}, {self.files}x{self.file_bytes} B files"
        )


@dataclass(frozen=True)
class Catalog:
    repos: dict[str, Path]  # "owner/repo" -> folder with skills/
    roots: list[str]  # origins for the manifest


def _level_sizes(shape: Shape) -> list[int]:
    base, extra = divmod(shape.packages, shape.depth)
    return [base + (1 if level < extra else 0) for level in range(shape.depth)]


def _repo_of(shape: Shape, level: int, index: int) -> str:
    per_level = max(1, shape.repos // shape.depth)
    return f"bench/repo-{level * per_level + index % per_level:04d}"


def generate(root: Path, shape: Shape) -> Catalog:
    sizes = _level_sizes(shape)
    repos: dict[str, Path] = {}
    roots: list[str] = []
    filler = ("metapkg benchmark filler line.\n" * (shape.file_bytes // 31 + 1))[: shape.file_bytes]
    for level, size in enumerate(sizes):
        for index in range(size):
            repo = _repo_of(shape, level, index)
            folder = repos.setdefault(repo, root / repo.replace("/", "__"))
            name = f"p{level}-{index}"
            deps = []
            if level + 1 < len(sizes):
                following = sizes[level + 1]
                for k in range(min(shape.fanout, following)):
                    child = (index * shape.fanout + k) % following
                    child_repo = _repo_of(shape, level + 1, child)
                    deps.append(f"{GH}/{child_repo}/tree/main/skills/p{level + 1}-{child}")
            _write_skill(folder / "skills" / name, name, deps, shape.files, filler)
            if level == 0:
                roots.append(f"{GH}/{repo}/tree/main/skills/{name}")
    return Catalog(repos, roots)


def _write_skill(folder: Path, name: str, deps: list[str], files: int, filler: str) -> None:
    write_skill(folder, name, "1.0.0", deps)
    (folder / "references").mkdir(parents=True, exist_ok=True)
    for i in range(files):
        (folder / "references" / f"ref-{i}.md").write_text(filler)


def write_skill(folder: Path, name: str, version: str, deps: list[str]) -> None:
    """A MetaAgents skill of scope ``bench`` at ``version`` depending on ``deps``."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = ["---", f"name: {name}", "scope: bench", f"description: Benchmark skill {name}.",
             f"version: {version}"]  # fmt: skip
    if deps:
        lines += ["dependencies:", "  skills:", *(f"    - {json.dumps(d)}" for d in deps)]
    lines += ["---", f"# {name}", "", "Do the benchmark thing.", ""]
    (folder / "SKILL.md").write_text("\n".join(lines))
    changelog = f"# Changelog\n\n## {version} (2026-01-01)\n\n- Release.\n"
    (folder / "CHANGELOG.md").write_text(changelog)


def manifest(roots: list[str]) -> str:
    return "dependencies:\n  skills:\n" + "".join(f"    - {r}\n" for r in roots)


def flat_catalog(root: Path, count: int, shape: Shape) -> Path:
    """A single catalog folder of ``count`` skills (for `metapkg check`)."""
    filler = ("metapkg benchmark filler line.\n" * (shape.file_bytes // 31 + 1))[: shape.file_bytes]
    for index in range(count):
        name = f"s{index}"
        deps = [f"{GH}/bench/catalog/tree/main/skills/s{(index + 1) % count}"]
        _write_skill(root / "skills" / name, name, deps, shape.files, filler)
    return root
