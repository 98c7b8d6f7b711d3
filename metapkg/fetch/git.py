"""Any git forge (GitLab, Gitea, Forgejo, Bitbucket, Azure DevOps, a plain git server).

* refs: ``GET <clone URL>/info/refs?service=git-upload-pack``, git's smart HTTP ref
  advertisement (parsed by gitrefs.py), once per repository and run, never when the
  lock pins the ref;
* content: the package's folder only, at the commit, through a partial clone of the real
  ``git`` program (sparse.py: ``--filter=blob:none``, depth 1, the folder's blobs), kept
  in the download cache under ``git/<host>/<path>/`` by commit and folder;
* credentials: none until the host answers 401, then the host's own (credentials.py),
  sent to that host only, to the advertisement and to git alike; ssh origins use the
  user's own ssh (``git ls-remote``, then the same partial clone).

Pins carry the host (``RefPin.host``); their repository is the path on the host.
"""

from __future__ import annotations

import os
import re
import subprocess
import threading
from collections.abc import Iterable
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from metapkg.diagnostics import Diagnostic, FetchError, error
from metapkg.fetch.cache import Cache
from metapkg.fetch.githubtrees import part_key
from metapkg.fetch.gitrefs import CONTENT_TYPE, Advertisement, parse_advertisement
from metapkg.fetch.once import Once
from metapkg.fetch.source import (
    Fetched,
    Located,
    NotFound,
    Place,
    RefPin,
    Tag,
    unpinned_under_frozen,
)
from metapkg.fetch.sources import FetchOptions
from metapkg.fetch.tags import read_tags
from metapkg.origins import GitOrigin, Origin
from metapkg.redact import redact

if TYPE_CHECKING:
    from metapkg.fetch.http import Http

GIT_TIMEOUT = 120.0
_OID = re.compile(r"[0-9a-f]{40}")


def _git(origin: Origin) -> GitOrigin:
    assert isinstance(origin, GitOrigin)  # the registry sends only git origins here
    return origin


class GitSource:
    def __init__(self, options: FetchOptions, cache: Cache | None = None) -> None:
        self.options = options
        self.cache = cache or Cache()
        self.pins = {
            p.key: p.commit
            for p in options.pins
            if p.host != "github.com" and p.key not in options.unpinned
        }
        self._adverts: Once[str, Advertisement] = Once()
        self._trees: Once[tuple[str, str], Path] = Once()
        self._http: Http | None = None
        self._lock = threading.Lock()
        self._used: set[RefPin] = set()
        self._notes: dict[Diagnostic, None] = {}
        self._asked: dict[str, dict[str, str]] = {}  # refs asked this run, for --offline

    # -- the Source interface ------------------------------------------------------------

    def fetch(self, origin: Origin) -> Fetched:
        git = _git(origin)
        commit = self._commit(git)
        tree = self._tree(git, commit)
        package = tree / git.path if git.path else tree
        if not os.path.lexists(package):
            raise NotFound(
                origin, f"{git.path or '/'} does not exist in {git.repository} at {git.ref}"
            )
        pin = self._use(git, commit)
        folder_name = PurePosixPath(git.path).name if git.path else git.repo_path.split("/")[-1]
        place = Place(git.repository, git.path)
        return Fetched(origin, package, str(origin), folder_name, pin, True, None, place)

    def locate(self, origin: Origin) -> Located:
        git = _git(origin)
        commit = self._commit(git)
        return Located(Place(git.repository, git.path), self._pin(git, git.ref, commit))

    def versions(self, origin: Origin) -> list[Tag]:
        """The package's tagged versions, newest first (the tag forms of fetch/tags.py)."""
        git = _git(origin)
        if self.options.offline:
            known = self.cache.known_tags(git.repository)
        else:
            known = self._advertisement(git).tags()
        folder = PurePosixPath(git.path).name if git.path else git.repo_path.split("/")[-1]
        read = read_tags(known, folder)
        shown = f"{git.repository} ({git.path})" if git.path else git.repository
        found = []
        with self._lock:
            for note in read.notes(git.clone_url, shown):
                self._notes.setdefault(note)
            for version, name in read.tags:
                self.pins.setdefault((git.repository, name), known[name])
                found.append(Tag(version, name, git.at(name)))
        return found

    def used_pins(self) -> Iterable[RefPin]:
        with self._lock:
            return sorted(self._used, key=lambda p: (p.host, p.repo, p.ref))

    def at_hand(self, origin: Origin) -> bool:
        git = _git(origin)
        commit = self.pins.get((git.repository, git.ref))
        return commit is not None and self.cache.has_tree(git.repository, self._key(git, commit))

    def warnings(self) -> list[Diagnostic]:
        with self._lock:
            return list(self._notes)

    def close(self) -> None:
        for repository, refs in self._asked.items():
            self.cache.remember_refs(repository, refs)
        if self._http is not None:
            self._http.close()

    # -- refs ------------------------------------------------------------------------------

    def _pin(self, git: GitOrigin, ref: str, commit: str) -> RefPin:
        return RefPin(git.repo_path, ref, commit, git.host)

    def _use(self, git: GitOrigin, commit: str) -> RefPin:
        pin = self._pin(git, git.ref, commit)
        with self._lock:
            self._used.add(pin)
        return pin

    def _commit(self, git: GitOrigin) -> str:
        """The commit ``git.ref`` names: the lock's pin, else the host's advertisement
        (offline: what the cache remembers)."""
        pinned = self.pins.get((git.repository, git.ref))
        if pinned is not None:
            return pinned
        if self.options.frozen:
            raise unpinned_under_frozen([git])
        if self.options.offline:
            known = self.cache.known_refs(git.repository)
            for name in (git.ref, f"refs/heads/{git.ref}", f"refs/tags/{git.ref}"):
                if name in known:
                    return known[name]
            raise FetchError(
                [
                    error(
                        "offline",
                        str(git),
                        f"offline, and {git.ref} of {git.repository} was never seen",
                    )
                ]
            )
        advertised = self._advertisement(git)
        commit = advertised.resolve(git.ref)
        if commit is None:
            raise NotFound(git, f"{git.repository} has no branch, tag or commit {git.ref!r}")
        with self._lock:
            self._asked.setdefault(git.repository, {})[git.ref] = commit
        return commit

    def _advertisement(self, git: GitOrigin) -> Advertisement:
        advertised = self._adverts.get(git.clone_url, lambda: self._ask_refs(git))
        with self._lock:
            remembered = self._asked.setdefault(git.repository, {})
            remembered.update({f"refs/tags/{n}": c for n, c in advertised.tags().items()})
        return advertised

    def _ask_refs(self, git: GitOrigin) -> Advertisement:
        if git.transport == "ssh":
            return _ls_remote(git)
        url = f"{git.clone_url}/info/refs?service=git-upload-pack"
        reply = self.http.get(url, accept=CONTENT_TYPE)
        if reply.status == 401 and self._authenticate(git):
            reply = self.http.get(url, accept=CONTENT_TYPE)
        if reply.status in (401, 403):
            raise FetchError([error("auth", str(git), self._refused(git, reply.status))])
        if reply.status == 404:
            raise NotFound(git, f"no repository {git.repository} (404 from {git.host})")
        if reply.status != 200 or reply.content_type.split(";")[0].strip() != CONTENT_TYPE:
            why = f"{git.host} answered {reply.status} ({reply.content_type or 'no type'})"
            raise FetchError([error("fetch", str(git), f"{why}; is this a git repository URL?")])
        return parse_advertisement(reply.data, str(git))

    def _authenticate(self, git: GitOrigin) -> bool:
        """Find the host's credential (once per run) and use it for that host only."""
        from metapkg.fetch import credentials
        from metapkg.fetch.http import origin_of

        origin = origin_of(git.clone_url)
        if origin in self.http.authorizations:
            return False  # already sent, and refused
        found = credentials.find(git.transport, git.host)
        if found is None:
            return False
        self.http.authorizations[origin] = found.authorization()
        return True

    def _refused(self, git: GitOrigin, status: int) -> str:
        from metapkg.fetch.credentials import env_name
        from metapkg.fetch.http import origin_of

        if origin_of(git.clone_url) in self.http.authorizations:
            return f"{git.host} refused the credential found for it ({status}); check it"
        return (
            f"{git.host} asks for credentials ({status}): a private repository. Configure a "
            f"git credential helper for {git.host}, set {env_name(git.host)}, or store a "
            f"token in the keyring (service 'metapkg', account '{git.host}')"
        )

    @property
    def http(self) -> Http:
        with self._lock:
            if self._http is None:
                from metapkg.fetch.http import Http

                self._http = Http(None, self.options.workers, service="")  # named by host
            return self._http

    # -- trees -----------------------------------------------------------------------------

    def _key(self, git: GitOrigin, commit: str) -> str:
        return part_key(commit, git.path) if git.path else commit

    def _tree(self, git: GitOrigin, commit: str) -> Path:
        """The package's folder at ``commit`` (in a tree of just that folder), from the
        cache or fetched into it once."""
        key = self._key(git, commit)
        repository = git.repository
        if self.cache.has_tree(repository, key):
            return self.cache.tree(repository, key)
        if self.options.offline:
            message = f"offline, and {repository} at {commit[:12]} is not in the cache"
            raise FetchError([error("offline", str(git), message)])
        return self._trees.get((repository, key), lambda: self._download(git, commit, key))

    def _download(self, git: GitOrigin, commit: str, key: str) -> Path:
        from metapkg.fetch.http import origin_of
        from metapkg.fetch.sparse import SparseError, fetch_subtree

        source = redact(str(git))

        def build(folder: Path) -> dict[str, tuple[int, bool, str]]:
            authorization = self.http.authorizations.get(origin_of(git.clone_url))
            ssh = git.transport == "ssh"
            return fetch_subtree(
                git.clone_url, commit, git.path, folder, source, authorization, ssh
            )

        try:
            return self.cache.store_tree(git.repository, key, build)
        except SparseError:
            # a private repository whose refs came from the lock: ask for its credential
            if not self._authenticate(git):
                raise
            return self.cache.store_tree(git.repository, key, build)


def _ls_remote(git: GitOrigin) -> Advertisement:
    """An ssh origin's refs, from ``git ls-remote`` (the same advertisement, over ssh,
    with the user's keys and agent; never a prompt)."""
    from metapkg.fetch.sparse import SparseError, find_git, git_environment

    program = find_git()
    if program is None:
        raise SparseError([error("fetch", str(git), "git 2.29 or newer is not installed")])
    env = git_environment(git.clone_url, None, ssh=True)
    try:
        done = subprocess.run(
            [program, "ls-remote", "--symref", "--", git.clone_url],
            capture_output=True,
            env=env,
            timeout=GIT_TIMEOUT,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        raise FetchError([error("fetch", str(git), f"git ls-remote failed: {exc}")]) from None
    if done.returncode != 0:
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
        why = redact(lines[-1] if lines else f"exit code {done.returncode}")
        raise FetchError([error("fetch", str(git), f"git ls-remote failed: {why}")])
    return _listing(done.stdout.decode("utf-8", "replace"), str(git))


def _listing(text: str, source: str) -> Advertisement:
    """``<sha> TAB <ref>`` lines (``ref: refs/heads/main TAB HEAD`` for the symref),
    annotated tags followed by their ``^{}`` peeled commit."""
    refs: dict[str, str] = {}
    head_target = None
    for line in text.splitlines():
        left, _, name = line.partition("\t")
        if left.startswith("ref: ") and name == "HEAD":
            head_target = left[len("ref: ") :]
        elif _OID.fullmatch(left) and name:
            refs[name.removesuffix("^{}")] = left  # a peeled line follows its tag's
        else:
            raise FetchError([error("fetch", source, "git ls-remote printed an unknown line")])
    head = refs.pop("HEAD", None)
    return Advertisement(refs, head, head_target)
