"""The in-memory model of the fake GitHub: repositories, their commits and refs."""

from __future__ import annotations

import dataclasses
import re
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from fixture_server.gitobjects import commit_id

_FULL_SHA = re.compile(r"[0-9a-fA-F]{40}")
_REF_PREFIXES = ("refs/heads/", "heads/", "refs/tags/", "tags/")


@dataclass(frozen=True)
class Commit:
    label: str
    folder: Path
    sha: str


@dataclass(frozen=True)
class Repo:
    """One repository. Immutable: changes replace the whole object, so a request that
    already holds a `Repo` sees a consistent snapshot."""

    owner: str
    name: str
    commits: Mapping[str, Commit]
    branches: Mapping[str, str]
    tags: Mapping[str, str]
    renamed_to: tuple[str, str] | None = None
    # Names in `tags` that are annotated (a tag object pointing at the commit); the others
    # are lightweight. Only the ref advertisement and the git repository show the difference.
    annotated: frozenset[str] = frozenset()

    @property
    def key(self) -> str:
        return repo_key(self.owner, self.name)

    @property
    def default_branch(self) -> str:
        """`main` if there is one (or no branch at all), else the first branch by name."""
        if "main" in self.branches or not self.branches:
            return "main"
        return sorted(self.branches)[0]

    def by_sha(self, sha: str) -> Commit | None:
        sha = sha.lower()
        return next((c for c in self.commits.values() if c.sha == sha), None)

    def resolve(self, ref: str) -> Commit | None:
        """What GitHub would resolve `ref` to: a branch, a tag, `refs/heads/x`,
        `refs/tags/x` (and the short `heads/x`, `tags/x`), or a full SHA."""
        if ref in self.branches:
            return self.commits[self.branches[ref]]
        if ref in self.tags:
            return self.commits[self.tags[ref]]
        for prefix in _REF_PREFIXES:
            if ref.startswith(prefix):
                names = self.branches if "heads/" in prefix else self.tags
                label = names.get(ref[len(prefix) :])
                if label is not None:
                    return self.commits[label]
        if _FULL_SHA.fullmatch(ref):
            return self.by_sha(ref)
        return None

    def lookup(self, ref_or_label: str) -> Commit | None:
        """Like `resolve`, but fixture labels count too (for the Python API)."""
        found = self.resolve(ref_or_label)
        if found is None and ref_or_label in self.commits:
            found = self.commits[ref_or_label]
        return found


def repo_key(owner: str, name: str) -> str:
    """GitHub matches owner and repository names case-insensitively."""
    return f"{owner}/{name}".lower()


def parse_full_name(full_name: str) -> tuple[str, str]:
    owner, sep, name = full_name.partition("/")
    if not sep or not owner or not name or "/" in name:
        raise ValueError(f"expected 'owner/repo', got {full_name!r}")
    return owner, name


def make_repo(
    owner: str,
    name: str,
    commits: Mapping[str, Path],
    branches: Mapping[str, str],
    tags: Mapping[str, str],
    renamed_to: str | None,
    annotated: Iterable[str] = (),
) -> Repo:
    """Validate the refs and compute every commit's SHA (from the folder as it is now)."""
    built = {
        label: Commit(label, Path(p), commit_id(owner, name, label, Path(p)))
        for label, p in commits.items()
    }
    for kind, refs in (("branch", branches), ("tag", tags)):
        for ref, label in refs.items():
            if label not in built:
                raise ValueError(
                    f"{owner}/{name}: {kind} {ref!r} points to unknown commit {label!r}"
                )
    annotated_tags = frozenset(annotated)
    unknown = sorted(annotated_tags - set(tags))
    if unknown:
        raise ValueError(f"{owner}/{name}: annotated tags {unknown} are not among the tags")
    return Repo(
        owner=owner,
        name=name,
        commits=built,
        branches=dict(branches),
        tags=dict(tags),
        renamed_to=parse_full_name(renamed_to) if renamed_to else None,
        annotated=annotated_tags,
    )


class RepoStore:
    """All repositories, safe to read and change from any thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._repos: dict[str, Repo] = {}

    def put(self, repo: Repo) -> None:
        with self._lock:
            self._repos[repo.key] = repo

    def get(self, owner: str, name: str) -> Repo | None:
        with self._lock:
            return self._repos.get(repo_key(owner, name))

    def require(self, owner: str, name: str) -> Repo:
        repo = self.get(owner, name)
        if repo is None:
            raise KeyError(f"no fixture repository {owner}/{name}")
        return repo

    def set_branch(self, owner: str, name: str, branch: str, label: str) -> None:
        self._point(owner, name, branch, label, tag=False)

    def set_tag(self, owner: str, name: str, tag: str, label: str) -> None:
        self._point(owner, name, tag, label, tag=True)

    def _point(self, owner: str, name: str, ref: str, label: str, tag: bool) -> None:
        """Point the branch (or tag) ``ref`` at the commit labelled ``label``."""
        with self._lock:
            repo = self._repos.get(repo_key(owner, name))
            if repo is None:
                raise KeyError(f"no fixture repository {owner}/{name}")
            if label not in repo.commits:
                raise KeyError(f"{owner}/{name} has no commit labelled {label!r}")
            if tag:
                moved = dataclasses.replace(repo, tags={**repo.tags, ref: label})
            else:
                moved = dataclasses.replace(repo, branches={**repo.branches, ref: label})
            self._repos[repo.key] = moved

    def add_commit(self, owner: str, name: str, label: str, folder: Path) -> str:
        with self._lock:
            repo = self._repos.get(repo_key(owner, name))
            if repo is None:
                raise KeyError(f"no fixture repository {owner}/{name}")
            commit = Commit(label, folder, commit_id(repo.owner, repo.name, label, folder))
            commits = {**repo.commits, label: commit}
            self._repos[repo.key] = dataclasses.replace(repo, commits=commits)
            return commit.sha
