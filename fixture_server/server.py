"""`FixtureGitHub`: a fake GitHub (API host, web host, archive download host) on loopback."""

from __future__ import annotations

import base64
import binascii
import math
import re
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Literal

from fixture_server.archive import ArchiveCache
from fixture_server.faults import FaultKind, FaultRule, FaultSet, canned, rate_limited
from fixture_server.gitstore import GitStore
from fixture_server.httpd import HostKind, LoopbackServer
from fixture_server.loader import load_root
from fixture_server.repos import RepoStore, make_repo
from fixture_server.responses import Response, message
from fixture_server.routes import Site, api_route, download_route
from fixture_server.webroutes import WebRequest, WebSite, challenge, web_route

API_HOST = "127.0.0.1"
# A second loopback address, so the archive host is a different *host* from the API (as
# codeload.github.com is), and clients must not carry the Authorization header over.
DOWNLOAD_HOST = "127.0.0.2"
# And a third for the web host (github.com's role: git smart HTTP, archive links).
WEB_HOST = "127.0.0.3"

_FULL_SHA = re.compile(r"[0-9a-fA-F]{40}")


@dataclass(frozen=True)
class RequestRecord:
    """One request as the server saw it; `headers` has lowercased names."""

    host: HostKind
    method: str
    path: str
    headers: dict[str, str]
    status: int
    body_bytes: int = 0  # the length of the response body sent (after any truncation)
    arrived: float = 0.0  # time.monotonic() when the request came in
    answered: float = 0.0  # ... and when its answer was ready (after the latency)


class FixtureGitHub:
    """Serves fixture repositories through the GitHub endpoints metapkg uses: the REST API
    (`api_url`), the web host's git smart HTTP and archive links (`web_url`, see
    `webroutes.py`) and the archive download host (`download_url`).

    Repositories come from `root` (see `fixture_server.loader`) and/or `add_repo`. Faults
    (`fail`, `rate_limit`, `truncate_archive`, `slow_body`) match request paths (with the
    query string) by `re.search`, on all hosts, and fire exactly `times` times.
    """

    def __init__(self, root: Path | None = None, latency: float = 0.0) -> None:
        # Seconds slept before answering every request on both hosts; change it any time.
        self.latency = latency
        self._store = RepoStore()
        self._archives = ArchiveCache()
        self._faults = FaultSet()
        self._log: list[RequestRecord] = []
        self._log_lock = threading.Lock()
        self._token: str | None = None
        self._git = GitStore()
        self._servers: tuple[LoopbackServer, ...] | None = None
        self._site: Site | None = None
        self._web: WebSite | None = None
        if root is not None:
            for spec in load_root(Path(root)):
                self.add_repo(
                    spec.owner,
                    spec.repo,
                    spec.commits,
                    spec.branches,
                    spec.tags,
                    spec.renamed_to,
                    spec.annotated_tags,
                )

    # -- lifecycle -----------------------------------------------------------------------

    def start(self) -> None:
        if self._servers is not None:
            raise RuntimeError("FixtureGitHub is already running")
        api = LoopbackServer((API_HOST, 0), self, "api")
        download = _listen(DOWNLOAD_HOST, self, "download")
        web = _listen(WEB_HOST, self, "web")
        self._site = Site(self._store, self._archives, api.url, download.url)
        self._web = WebSite(self._store, self._archives, self._git, web.url, download.url)
        self._servers = (api, download, web)
        for server in self._servers:
            server.start()

    def stop(self) -> None:
        servers, self._servers = self._servers, None
        if servers is not None:
            for server in servers:
                server.close()
        self._git.close()

    def __enter__(self) -> FixtureGitHub:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def api_url(self) -> str:
        """`http://127.0.0.1:<port>`: the API base URL (no trailing slash)."""
        return self._running_site().api_url

    @property
    def download_url(self) -> str:
        """`http://127.0.0.2:<port>`: the archive host the tarball endpoint redirects to."""
        return self._running_site().download_url

    @property
    def web_url(self) -> str:
        """`http://127.0.0.3:<port>`: the web host (github.com's role), no trailing slash."""
        return self._running_web().web_url

    def _running_web(self) -> WebSite:
        if self._web is None:
            raise RuntimeError("FixtureGitHub has not been started")
        return self._web

    def _running_site(self) -> Site:
        if self._site is None:
            raise RuntimeError("FixtureGitHub has not been started")
        return self._site

    # -- repositories --------------------------------------------------------------------

    def add_repo(
        self,
        owner: str,
        repo: str,
        commits: Mapping[str, Path],
        branches: Mapping[str, str] | None = None,
        tags: Mapping[str, str] | None = None,
        renamed_to: str | None = None,
        annotated: Iterable[str] = (),
    ) -> None:
        """Add (or replace) a repository. Commit SHAs are computed from the folders now: they
        are real git commit ids (see `gitobjects.py`). Tags named in `annotated` are
        annotated tags (the ref advertisement shows the tag object and its peeled commit)."""
        self._store.put(
            make_repo(owner, repo, commits, branches or {}, tags or {}, renamed_to, annotated)
        )

    def add_commit(self, owner: str, repo: str, label: str, folder: Path) -> str:
        """Add one more commit to an existing repository; returns its SHA."""
        return self._store.add_commit(owner, repo, label, Path(folder))

    def sha(self, owner: str, repo: str, ref_or_label: str) -> str:
        """The commit SHA a branch, tag, fixture label or full SHA resolves to."""
        commit = self._store.require(owner, repo).lookup(ref_or_label)
        if commit is None:
            raise KeyError(f"{owner}/{repo} has no ref or commit {ref_or_label!r}")
        return commit.sha

    def set_branch(self, owner: str, repo: str, branch: str, label: str) -> None:
        """Point `branch` (created if needed) at the commit labelled `label`."""
        self._store.set_branch(owner, repo, branch, label)

    def set_tag(self, owner: str, repo: str, tag: str, label: str) -> None:
        """Point tag `tag` (created if needed) at the commit labelled `label`."""
        self._store.set_tag(owner, repo, tag, label)

    def set_archive(self, owner: str, repo: str, sha: str, data: bytes) -> None:
        """Serve exactly `data` as the tarball of `sha` (which need not be a known commit)."""
        if not _FULL_SHA.fullmatch(sha):
            raise ValueError(f"not a full 40-hex SHA: {sha!r}")
        self._archives.set_override(self._store.require(owner, repo).key, sha, data)

    # -- faults --------------------------------------------------------------------------

    def fail(
        self,
        path_regex: str,
        status: int,
        times: int = 1,
        headers: dict[str, str] | None = None,
        body: bytes = b"",
    ) -> None:
        """The next `times` matching requests get this status, headers and body."""
        make = canned(status, headers, body)
        self._faults.add(FaultRule(FaultKind.RESPOND, re.compile(path_regex), times, make))

    def rate_limit(
        self,
        path_regex: str,
        times: int = 1,
        kind: Literal["403", "429"] = "403",
        reset_after: float = 1.0,
        until_reset: bool = False,
    ) -> None:
        """403 with `X-RateLimit-Remaining: 0` and `X-RateLimit-Reset` (epoch seconds, now +
        reset_after rounded up), or 429 with `Retry-After: ceil(reset_after)`.
        ``until_reset``: every matching request until that reset, not `times` of them (a
        spent quota: a client that does not wait for the reset gets another 403)."""
        reset = math.ceil(time.time() + reset_after) if until_reset else None
        make = rate_limited(kind, reset_after, reset_at=reset)
        self._faults.add(
            FaultRule(FaultKind.RESPOND, re.compile(path_regex), times, make, until=reset)
        )

    def truncate_archive(self, path_regex: str, times: int = 1) -> None:
        """The next `times` matching *archive* or *ref advertisement* responses carry only
        the first half of their body (with a matching Content-Length, or a well-formed end
        of a chunked body). Other responses don't use it up."""
        self._faults.add(FaultRule(FaultKind.TRUNCATE, re.compile(path_regex), times))

    def slow_body(self, path_regex: str, seconds: float, times: int = 1, chunks: int = 4) -> None:
        """Send the next `times` matching bodies in `chunks` pieces, sleeping
        `seconds / chunks` before each (headers go out at once; an empty body is instead
        delayed as a whole). A per-read timeout shorter than that gap will fire."""
        rule = FaultRule(FaultKind.SLOW, re.compile(path_regex), times, None, seconds, chunks)
        self._faults.add(rule)

    def clear_faults(self) -> None:
        self._faults.clear()

    def require_token(self, token: str | None) -> None:
        """When set, API requests need `Authorization: Bearer <token>` (or `token <token>`),
        and web-host requests HTTP Basic auth with the token as the password (any user name,
        e.g. `x-access-token`, as github.com takes it); others get 401. The download host
        never checks."""
        self._token = token

    # -- request log ---------------------------------------------------------------------

    @property
    def requests(self) -> list[RequestRecord]:
        """A snapshot of the request log, oldest first."""
        with self._log_lock:
            return list(self._log)

    def count(self, pattern: str, host: str | None = None) -> int:
        """How many logged requests have a path (with query) matching `pattern` (re.search)."""
        regex = re.compile(pattern)
        return sum(
            1
            for record in self.requests
            if regex.search(record.path) and (host is None or record.host == host)
        )

    def most_at_once(self, pattern: str = "") -> int:
        """The most requests matching ``pattern`` that were in flight at the same time (a
        client that asks one after another: 1)."""
        with self._log_lock:
            found = [r for r in self._log if re.search(pattern, r.path)]
        edges = sorted([(r.arrived, 1) for r in found] + [(r.answered, -1) for r in found])
        most = now = 0
        for _, step in edges:  # at equal times an answer (-1) sorts before an arrival
            now += step
            most = max(most, now)
        return most

    def clear_log(self) -> None:
        with self._log_lock:
            self._log.clear()

    # -- serving (called from the HTTP threads) ------------------------------------------

    def handle(
        self, host: HostKind, method: str, path: str, headers: dict[str, str], body: bytes = b""
    ) -> Response:
        """Build the answer to one request, apply body faults and log it (before any byte is
        sent, so a client that got a response always finds it in the log)."""
        arrived = time.monotonic()
        delay = self.latency
        if delay > 0:
            time.sleep(delay)
        response = self._answer(host, method, path, headers, body)
        if response.truncatable and self._faults.take(FaultKind.TRUNCATE, path):
            response.body = response.body[: len(response.body) // 2]
        slow = self._faults.take(FaultKind.SLOW, path)
        if slow is not None:
            response.trickle_seconds, response.trickle_chunks = slow.seconds, slow.chunks
        with self._log_lock:
            self._log.append(
                RequestRecord(
                    host,
                    method,
                    path,
                    headers,
                    response.status,
                    len(response.body),
                    arrived,
                    time.monotonic(),
                )
            )
        return response

    def _answer(
        self, host: HostKind, method: str, path: str, headers: dict[str, str], body: bytes
    ) -> Response:
        fault = self._faults.take(FaultKind.RESPOND, path)
        if fault is not None and fault.make is not None:
            return fault.make()
        site = self._running_site()
        if host == "download":
            return download_route(site, path)
        if host == "web":
            password = _basic_password(headers.get("authorization"))
            if self._token is not None and password != self._token:
                return challenge()
            request = WebRequest(method, path, headers, body, password is not None)
            return web_route(self._running_web(), request)
        denied = self._check_token(headers.get("authorization"))
        return denied if denied is not None else api_route(site, path, headers)

    def _check_token(self, authorization: str | None) -> Response | None:
        expected = self._token
        if expected is None:
            return None
        if not authorization:
            return message(401, "Requires authentication")
        scheme, _, value = authorization.partition(" ")
        if scheme.lower() in ("bearer", "token") and value.strip() == expected:
            return None
        return message(401, "Bad credentials")


def _listen(address: str, app: FixtureGitHub, host: HostKind) -> LoopbackServer:
    try:
        return LoopbackServer((address, 0), app, host)
    except OSError:
        # Not every OS routes all of 127/8 (macOS); a different port is still a
        # different origin, which is what the Authorization rule is about.
        return LoopbackServer((API_HOST, 0), app, host)


def _basic_password(authorization: str | None) -> str | None:
    """The password of an HTTP Basic `Authorization` header; None without one."""
    scheme, _, value = (authorization or "").partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        decoded = base64.b64decode(value.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None
    _user, sep, password = decoded.partition(":")
    return password if sep else None
