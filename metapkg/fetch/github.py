"""GitHub origins: ref -> commit, one archive per (repo, commit), trees from the cache.

With a web host (github.com by default; see fetch/webhost.py), a cold install of public
repositories spends no REST request:

* ``GET <web>/{repo}.git/info/refs?service=git-upload-pack``: git's ref advertisement,
  every branch and tag with its commit (annotated tags peeled), once per repository and
  run, never when the lock pins every ref the run needs;
* ``GET <archive host>/{repo}/tar.gz/{commit}``: the archive by commit, at most once per
  (repo, commit) ever, since the extracted tree is kept in the cache by commit.

The REST API (relative to METAPKG_GITHUB_API_URL) is the fallback, chosen per repository:
when there is no web host (an API URL pointed elsewhere: GitHub Enterprise, tests), when
the advertisement is refused (a private repository without credentials answers 401), for
an abbreviated SHA, or when the archive host refuses an archive:

* ``GET /repos/{repo}/commits/{ref}`` with ``Accept: application/vnd.github.sha``;
* ``GET /repos/{repo}/tags?per_page=100`` (paginated), for version ranges;
* ``GET /repos/{repo}/tarball/{commit}`` (302 to the download host).

Calls arrive from many threads at once; ``Once`` makes concurrent callers of the same
lookup share one request.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING
from urllib.parse import quote

from metapkg import jsonsafe, settings
from metapkg.diagnostics import Diagnostic, FetchError, error
from metapkg.fetch.cache import Cache
from metapkg.fetch.githubtrees import Trees
from metapkg.fetch.gitrefs import Advertisement, might_be_abbreviated_sha, parse_advertisement
from metapkg.fetch.once import Once
from metapkg.fetch.renames import Renames
from metapkg.fetch.source import (
    Fetched,
    Located,
    NotFound,
    Place,
    RefPin,
    Renamed,
    Tag,
    unpinned_under_frozen,
)
from metapkg.fetch.sources import FetchOptions
from metapkg.fetch.tags import read_tags
from metapkg.fetch.webhost import usable_reply, web_host
from metapkg.origins import GitHubOrigin, Origin

SHA_MEDIA_TYPE = "application/vnd.github.sha"
_HOST = "github.com"  # the host pins and renames name (the lock's ``host``)
_SHA = re.compile(r"^[0-9a-f]{40}$")

if TYPE_CHECKING:
    from metapkg.fetch.http import Http
    from metapkg.fetch.oci.mirror import Mirrors


class GitHubSource:
    def __init__(self, options: FetchOptions, cache: Cache | None = None) -> None:
        self.options = options
        self.cache = cache or Cache()
        # repositories GitHub redirected to a new name (the lock's, then this run's)
        self.renames = Renames((r.old, r.new) for r in options.renamed if r.host == _HOST)
        self.api = settings.github_api_url()
        self.pins = {
            (p.repo, p.ref): p.commit
            for p in options.pins
            if p.host == _HOST and p.key not in options.unpinned
        }
        self._refs: Once[tuple[str, str], str | None] = Once()
        self._tags: Once[str, dict[str, str]] = Once()
        self._adverts: Once[str, Advertisement | None] = Once()
        self.web = web_host()  # None: the REST API only (see fetch/webhost.py)
        self.trees = Trees(
            self.cache,
            options.offline,
            self.web,
            self.api,
            lambda: self.http,
            self._check_auth,
            _mirrors(options),
        )
        self._http_lock = threading.Lock()
        self._http: Http | None = None
        self._used: set[RefPin] = set()
        self._used_lock = threading.Lock()
        self._resolved: dict[str, dict[str, str]] = {}  # refs asked of GitHub, for --offline
        self._tag_notes: dict[Diagnostic, None] = {}  # tags left out (tag-ignored, -duplicate)

    # -- the Source interface ------------------------------------------------------------

    def fetch(self, origin: Origin, verify: bool = True) -> Fetched:
        """The package at ``origin``. A tree path can be read several ways (``release`` +
        ``1.x/skills/x`` or ``release/1.x`` + ``skills/x``): shortest ref first, and a
        ref that exists but lacks the path falls through to the next reading. Without
        ``verify`` (``add`` looking around a repository) no integrity is computed: the
        folder is not installed, only read to find the packages in it."""
        assert isinstance(origin, GitHubOrigin)
        repo = origin.repo_id
        missing: NotFound | None = None
        for ref, path, commit in self._readings(origin):
            canonical = self.renames.canonical(repo)
            tree, key = self.trees.tree(canonical, commit, path, str(origin))
            package = tree / path if path else tree
            if os.path.lexists(package) or self.trees.recorded(canonical, key, path):
                return self._fetched(origin, ref, path, commit, key, package, verify)
            missing = missing or NotFound(
                origin, f"{path or '/'} does not exist in {repo} at {ref} ({commit[:12]})"
            )
        raise missing or self._no_ref(origin)

    def _fetched(
        self,
        origin: GitHubOrigin,
        ref: str,
        path: str,
        commit: str,
        key: str,
        package: Path,
        verify: bool,
    ) -> Fetched:
        """``key``: the cache entry the package's tree is (its commit, or a part of it)."""
        canonical = self.renames.canonical(origin.repo_id)
        integrity = self.trees.integrity(canonical, key, path, str(origin)) if verify else None
        pin = RefPin(canonical, ref, commit)  # one pin for a repository named both ways
        with self._used_lock:
            self._used.add(pin)
        folder_name = PurePosixPath(path).name if path else origin.repo
        place = Place(origin.repository, path)
        return Fetched(origin, package, str(origin), folder_name, pin, True, integrity, place)

    def versions(self, origin: Origin) -> list[Tag]:
        """The package's tagged versions, newest first: its own monorepo tags
        (``<name>@1.2.3``, ``<name>/v1.2.3``) when the repository has any, else the plain
        ``v1.2.3`` / ``1.2.3`` tags. One tag listing per repository and run; offline, the
        tags the cache remembers. Tags left out (no version, a version tagged twice) are
        said once per package (see fetch/tags.py)."""
        assert isinstance(origin, GitHubOrigin)
        _, path, _ = self.resolve(origin)
        repo = origin.repo_id
        listed = self.cache.known_tags(repo) if self.options.offline else self.tag_commits(repo)
        folder = PurePosixPath(path).name if path else origin.repo
        read = read_tags(listed, folder)
        shown = f"{repo} ({path})" if path else repo
        where = f"https://github.com/{repo}/tags"  # where the tags are fixed
        with self._used_lock:
            for note in read.notes(where, shown):
                self._tag_notes.setdefault(note)
        found = []
        canonical = self.renames.canonical(repo)
        for version, name in read.tags:
            with self._used_lock:
                self.pins.setdefault((canonical, name), listed[name])
            found.append(Tag(version, name, origin.with_tree(name, path)))
        return found

    def warm(self) -> None:
        """Create the HTTP client now (importing httpx, finding the token)."""
        self.http  # noqa: B018

    def at_hand(self, origin: Origin) -> bool:
        """The lock pins the origin's ref, and that commit (or the package's part of it)
        is in the download cache."""
        assert isinstance(origin, GitHubOrigin)
        repo = origin.repo_id
        for ref, path in origin.splits():
            commit = self._pinned(repo, ref)
            if commit is not None:
                return self.trees.cached(self.renames.canonical(repo), commit, path)
        return False

    def used_pins(self) -> Iterable[RefPin]:
        return sorted(self._used, key=lambda p: (p.repo, p.ref))

    def renamed(self) -> list[Renamed]:
        return [Renamed(old, new, _HOST) for old, new in self.renames.used()]

    def warnings(self) -> list[Diagnostic]:
        with self._used_lock:
            return self.renames.warnings() + list(self._tag_notes) + self.trees.warnings()

    def close(self) -> None:
        for repo, refs in self._resolved.items():
            self.cache.remember_refs(repo, refs)
        self.trees.close()
        if self._http is not None:
            self._http.close()

    # -- refs ------------------------------------------------------------------------------

    def locate(self, origin: Origin) -> Located:
        """Where the package at ``origin`` lives (its ref resolved only to split the path)."""
        assert isinstance(origin, GitHubOrigin)
        ref, path, commit = self.resolve(origin)
        pin = RefPin(self.renames.canonical(origin.repo_id), ref, commit)
        return Located(Place(origin.repository, path), pin)

    def resolve(self, origin: GitHubOrigin) -> tuple[str, str, str]:
        """(ref, path inside the repository, commit) for an origin, shortest ref first."""
        for reading in self._readings(origin):
            return reading
        raise self._no_ref(origin)

    def _no_ref(self, origin: GitHubOrigin) -> NotFound:
        """No reading of ``origin``'s tree is a ref: say whether the repository or the ref
        is missing. The advertisement the lookups used tells (a repository without one
        answers 404); over REST, one more request for the repository asks."""
        from metapkg.fetch import missingref

        advertised = self.advertisement(origin.repo_id)
        if advertised is None and not self._repository_exists(origin.repo_id):
            return missingref.no_such_repository(origin)
        return missingref.no_such_ref(origin, advertised)

    def _repository_exists(self, repo: str) -> bool:
        reply = self.http.get(f"{self.api}/repos/{repo}")
        self._check_auth(reply.status, reply.url)
        return reply.status == 200

    def _readings(self, origin: GitHubOrigin) -> Iterator[tuple[str, str, str]]:
        """Every (ref, path, commit) reading of an origin whose ref exists: the lock's pins
        first (then nothing else is asked), shortest ref first."""
        repo = origin.repo_id
        splits = list(origin.splits())
        pinned = [(ref, path, c) for ref, path in splits if (c := self._pinned(repo, ref))]
        if pinned:
            yield from pinned
            return
        if self.options.frozen:
            raise unpinned_under_frozen([origin])
        if self.options.offline:
            yield self._locate_offline(origin, splits)
            return
        for ref, path in splits:
            commit = self.resolve_ref(repo, ref)
            if commit is not None:
                yield ref, path, commit

    def _pinned(self, repo: str, ref: str) -> str | None:
        """The lock's commit for ``ref`` of ``repo``: pinned under the repository's new
        name when it was renamed (or, in a lock from before renames were recorded, under
        the name asked)."""
        found = self.pins.get((self.renames.canonical(repo), ref))
        return found if found is not None else self.pins.get((repo, ref))

    def _locate_offline(
        self, origin: GitHubOrigin, splits: list[tuple[str, str]]
    ) -> tuple[str, str, str]:
        known = self.cache.known_refs(origin.repo_id)
        for ref, path in splits:
            if ref in known and self.cache.has_tree(origin.repo_id, known[ref]):
                return ref, path, known[ref]
        raise FetchError(
            [
                error(
                    "offline",
                    str(origin),
                    "offline, and neither metapkg.lock nor the cache knows which commit this ref "
                    "is at; run once online (or drop --offline / METAPKG_OFFLINE)",
                )
            ]
        )

    def _resolve_ref(self, repo: str, ref: str) -> str | None:
        reply = self.http.get(
            f"{self.api}/repos/{repo}/commits/{quote(ref, safe='')}", SHA_MEDIA_TYPE
        )
        if reply.status in (404, 422):
            return None
        self._check_auth(reply.status, reply.url)
        self.renames.learn(repo, reply.url)
        commit = reply.text.strip()
        if reply.status != 200 or not _SHA.match(commit):
            raise FetchError(
                [
                    error(
                        "fetch",
                        reply.url,
                        f"unexpected answer (HTTP {reply.status}) for ref {ref!r} of {repo}",
                    )
                ]
            )
        with self._used_lock:
            self._resolved.setdefault(repo, {})[ref] = commit
        return commit

    def resolve_ref(self, repo: str, ref: str) -> str | None:
        """Ask GitHub (once per run) which commit a ref is at; None if there is no such ref.

        From the git ref advertisement when the web host serves it (one request per
        repository for every ref and tag, off the REST quota); else the REST API."""
        advertised = self.advertisement(repo)
        if advertised is not None:
            commit = advertised.resolve(ref)
            if commit is not None or not might_be_abbreviated_sha(ref):
                if commit is not None:
                    with self._used_lock:
                        self._resolved.setdefault(repo, {})[ref] = commit
                return commit
        found: str | None = self._refs.get((repo, ref), lambda: self._resolve_ref(repo, ref))
        return found

    def default_branch(self, repo: str) -> str:
        """The branch a repository's web page shows (for sources given without a ref)."""
        advertised = self.advertisement(repo)
        if advertised is not None and advertised.head_target:
            return advertised.head_target.removeprefix("refs/heads/")
        reply = self.http.get(f"{self.api}/repos/{repo}")
        self._check_auth(reply.status, reply.url)
        try:
            branch = (
                jsonsafe.loads(reply.text).get("default_branch") if reply.status == 200 else None
            )
        except (jsonsafe.JsonProblem, AttributeError):
            branch = None
        if not isinstance(branch, str) or not branch:
            raise FetchError(
                [error("missing", f"https://github.com/{repo}", f"no repository {repo} on GitHub")]
            )
        return branch

    def advertisement(self, repo: str) -> Advertisement | None:
        """Every ref of ``repo`` from git's smart-HTTP advertisement (once per run), or
        None when there is no web host or it did not serve one (then: REST)."""
        if self.web is None:
            return None
        return self._adverts.get(repo, lambda: self._advertise(repo))

    def _advertise(self, repo: str) -> Advertisement | None:
        assert self.web is not None
        url = self.web.advertisement_url(repo)
        reply = self.http.get(url, accept="*/*")
        if not usable_reply(reply.status, reply.content_type):
            return None
        self.renames.learn(repo, reply.url)
        advertised = parse_advertisement(reply.data, url)
        tags = {f"refs/tags/{name}": commit for name, commit in advertised.tags().items()}
        with self._used_lock:  # remembered for --offline, like refs asked of the API
            self._resolved.setdefault(repo, {}).update(tags)
        return advertised

    def tag_commits(self, repo: str) -> dict[str, str]:
        """Every tag of a repository with its commit (annotated tags peeled), once per run:
        from the ref advertisement, else the REST listing (all pages)."""
        advertised = self.advertisement(repo)
        if advertised is not None:
            return advertised.tags()
        return self._tags.get(repo, lambda: self._list_tags(repo))

    def _list_tags(self, repo: str) -> dict[str, str]:
        from metapkg.fetch.http import origin_of

        names: dict[str, str] = {}
        url: str | None = f"{self.api}/repos/{repo}/tags?per_page=100"
        while url:
            reply = self.http.get(url)
            self._check_auth(reply.status, reply.url)
            if reply.status != 200:
                return names
            self.renames.learn(repo, reply.url)
            try:
                page = jsonsafe.loads(reply.text)
            except jsonsafe.JsonProblem:
                return names
            for item in page if isinstance(page, list) else ():
                name, commit = _tag_entry(item)
                if name is not None:
                    names[name] = commit
            url = _next_link(reply.link)
            if url is not None and origin_of(url) != origin_of(self.api):
                break  # pagination never leads off the API host
        with self._used_lock:  # remembered for --offline, like resolved refs
            self._resolved.setdefault(repo, {}).update(
                {f"refs/tags/{name}": commit for name, commit in names.items()}
            )
        return names

    # -- plumbing --------------------------------------------------------------------------

    @property
    def http(self) -> Http:
        with self._http_lock:
            if self._http is None:
                from metapkg.fetch import auth
                from metapkg.fetch.http import Http, origin_of

                try:
                    token = auth.find()
                except auth.BadToken as exc:
                    raise FetchError([error("auth", "GITHUB_TOKEN", str(exc))]) from None
                web = origin_of(self.web.url) if self.web is not None else None
                self._http = Http(
                    token, self.options.workers, token_origin=origin_of(self.api), web_origin=web
                )
            return self._http

    def _check_auth(self, status: int, url: str) -> None:
        if status in (401, 403):
            token = self._http.token if self._http is not None else None
            where = f"the token from {token.source}" if token else "no token"
            raise FetchError(
                [
                    error(
                        "auth",
                        url,
                        f"GitHub refused the request (HTTP {status}) with {where}; check that the "
                        f"token is valid and can read this repository (`metapkg auth status`)",
                    )
                ]
            )


def _mirrors(options: FetchOptions) -> Mirrors | None:
    """The mirrors to try first for the lock's packages (none offline, or without any)."""
    if not options.mirrors or not options.mirrored or options.offline:
        return None
    from metapkg.fetch.oci.mirror import Mirrors, Wanted

    wanted = {
        (item.commit, path): Wanted(item.kind, item.fqn, item.integrity)
        for item in options.mirrored
        for path in item.paths
    }
    return Mirrors(options.mirrors, wanted, max(1, min(options.workers, 16)))


def _tag_entry(item: object) -> tuple[str | None, str]:
    """(name, commit) of one entry of GitHub's tag listing, or (None, "") if malformed."""
    if not isinstance(item, dict):
        return None, ""
    name, commit = item.get("name"), item.get("commit")
    sha = commit.get("sha") if isinstance(commit, dict) else None
    if not isinstance(name, str) or not isinstance(sha, str) or not _SHA.match(sha):
        return None, ""
    return name, sha


def _next_link(header: str) -> str | None:
    """The rel="next" URL of a GitHub Link header, if any."""
    for part in header.split(","):
        url, _, params = part.partition(";")
        if 'rel="next"' in params:
            return url.strip().strip("<>")
    return None
