"""An in-memory forge: the third Source, for in-process resolver tests (as PDM's
TestRepository stands in for an index).

Repositories are commits (real package folders on disk, built with the conftest
builders), branches and tags. `forge.registry` plugs it into `resolve_project` for the
`github` scheme, so tests write ordinary `https://github.com/...` origins. It counts what
the resolver asked: tag listings per repository and fetches per (repository, commit).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from conftest import make_agent, make_mcp, make_skill

from metapkg.diagnostics import Diagnostic
from metapkg.fetch.source import Fetched, Located, NotFound, Place, RefPin, Source, Tag
from metapkg.fetch.sources import REGISTRY, FetchOptions, SourceFactory
from metapkg.fetch.tags import package_tags
from metapkg.origins import GitHubOrigin, Origin

Content = dict[str, Any]  # {"skills": {name: make_skill kwargs}, "agents": ..., "mcps": ...}


@dataclass
class Repo:
    commits: dict[str, Path] = field(default_factory=dict)  # sha -> folder
    refs: dict[str, str] = field(default_factory=dict)  # branch or tag -> sha
    tags: set[str] = field(default_factory=set)


class FakeForge:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.repos: dict[str, Repo] = {}
        self.listings: Counter[str] = Counter()
        self.fetches: Counter[tuple[str, str]] = Counter()
        self._folders = 0

    # -- building -------------------------------------------------------------------------------

    def commit(self, repo: str, content: Content, branch: str | None = "main") -> str:
        """A new commit of ``repo`` holding ``content``; moves ``branch`` to it."""
        self._folders += 1
        folder = self.root / f"c{self._folders}"
        folder.mkdir(parents=True)
        for name, kwargs in content.get("skills", {}).items():
            make_skill(folder, name, **kwargs)
        for name, kwargs in content.get("agents", {}).items():
            make_agent(folder, name, **kwargs)
        for fqn, kwargs in content.get("mcps", {}).items():
            make_mcp(folder, fqn, **kwargs)
        sha = hashlib.sha1(f"{repo}:{self._folders}".encode()).hexdigest()
        entry = self.repos.setdefault(repo, Repo())
        entry.commits[sha] = folder
        if branch is not None:
            entry.refs[branch] = sha
        return sha

    def tag(self, repo: str, name: str, sha: str) -> None:
        self.repos[repo].refs[name] = sha
        self.repos[repo].tags.add(name)

    def release(self, repo: str, name: str, version: str, tag: str | None = None, **kw: Any) -> str:
        """One commit of a repository holding skill ``name`` at ``version``, tagged."""
        sha = self.commit(repo, {"skills": {name: {"version": version, **kw}}}, branch="main")
        self.tag(repo, tag or f"v{version}", sha)
        return sha

    @property
    def registry(self) -> Mapping[str, SourceFactory]:
        return {**REGISTRY, "github": lambda options: FakeSource(self, options)}


class FakeSource(Source):
    def __init__(self, forge: FakeForge, options: FetchOptions) -> None:
        self.forge = forge
        self.pins = {
            (p.repo, p.ref): p.commit
            for p in options.pins
            if (p.repo, p.ref) not in options.unpinned
        }
        self.used: set[RefPin] = set()

    def _resolve(self, origin: GitHubOrigin) -> tuple[str, str, str]:
        repo = self.forge.repos.get(origin.repo_id)
        for ref, path in origin.splits():
            if (origin.repo_id, ref) in self.pins:
                return ref, path, self.pins[(origin.repo_id, ref)]
            if repo is not None and ref in repo.refs:
                return ref, path, repo.refs[ref]
        raise NotFound(origin, f"no ref matching {origin.tree!r} in {origin.repo_id}")

    def fetch(self, origin: Origin) -> Fetched:
        assert isinstance(origin, GitHubOrigin)
        ref, path, sha = self._resolve(origin)
        self.forge.fetches[(origin.repo_id, sha)] += 1
        folder = self.forge.repos[origin.repo_id].commits[sha]
        package = folder / path if path else folder
        if not package.exists():
            raise NotFound(origin, f"{path} does not exist at {ref}")
        pin = RefPin(origin.repo_id, ref, sha)
        self.used.add(pin)
        name = PurePosixPath(path).name if path else origin.repo
        return Fetched(
            origin, package, str(origin), name, pin, place=Place(origin.repository, path)
        )

    def locate(self, origin: Origin) -> Located:
        assert isinstance(origin, GitHubOrigin)
        ref, path, sha = self._resolve(origin)
        return Located(Place(origin.repository, path), RefPin(origin.repo_id, ref, sha))

    def versions(self, origin: Origin) -> list[Tag]:
        assert isinstance(origin, GitHubOrigin)
        _, path, _ = self._resolve(origin)
        repo = self.forge.repos[origin.repo_id]
        self.forge.listings[origin.repo_id] += 1
        listed = {name: repo.refs[name] for name in repo.tags}
        folder = PurePosixPath(path).name if path else origin.repo
        return [
            Tag(version, name, origin.with_tree(name, path))
            for version, name in package_tags(listed, folder)
        ]

    def at_hand(self, origin: Origin) -> bool:
        return False  # a forge is remote: loads go to the pool, as downloads do

    def used_pins(self) -> Iterable[RefPin]:
        return sorted(self.used, key=lambda p: (p.repo, p.ref))

    def warnings(self) -> list[Diagnostic]:
        return []

    def close(self) -> None:
        pass
