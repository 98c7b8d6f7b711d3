"""HTTP for the GitHub source: one connection-reusing client, retries, rate limits.

* Timeouts, transport errors and 5xx are retried with exponential backoff, a bounded
  number of times, each wait jittered (x0.5 to x1.5) so 16 workers that failed together
  do not all come back in the same millisecond.
* 403 with ``X-RateLimit-Remaining: 0`` and 429 with ``Retry-After`` wait until GitHub
  allows another request, if that is within ``METAPKG_RATE_LIMIT_WAIT`` seconds (default
  60); otherwise they fail, saying when the limit resets and how to raise it. The wait is
  shared: once one answer says the limit is reached, no worker sends another request to
  that host before it resets (each would only spend the quota's next minute on a 403).
* Redirects are followed (renamed repositories answer 301, archives 302 to another
  host); httpx drops the Authorization header on any redirect to another origin.
* The token is only ever sent to the origin it belongs to (the API's): a URL that
  reaches the client any other way (a pagination link, say) goes without it.
"""

from __future__ import annotations

import random
import sys
import threading
import time
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from metapkg import __version__, events, failpoint
from metapkg.diagnostics import FetchError, error
from metapkg.fetch import deadline
from metapkg.fetch.auth import Token

if TYPE_CHECKING:
    import httpx

T = TypeVar("T")


@dataclass(frozen=True)
class Policy:
    attempts: int = 4
    backoff: float = 0.25  # seconds before the 2nd attempt; doubles each time
    rate_limit_wait: float = 60.0  # longest wait for a rate limit before failing
    timeout: float = 30.0  # the longest wait for any one read, write or connect
    deadline: float = 120.0  # a whole response, plus time per MiB (deadline.py)

    @classmethod
    def from_environment(cls) -> Policy:
        """The policy METAPKG_HTTP_* and METAPKG_RATE_LIMIT_WAIT ask for (checked)."""
        from metapkg import settings

        try:
            return cls(
                attempts=settings.http_attempts(),
                backoff=settings.http_backoff(),
                rate_limit_wait=settings.rate_limit_wait(),
                timeout=settings.http_timeout(),
                deadline=settings.http_deadline(),
            )
        except settings.BadSetting as exc:
            raise FetchError([error("usage", "environment", str(exc))]) from None


@dataclass(frozen=True)
class Reply:
    status: int
    text: str
    url: str
    link: str = ""  # the Link header (pagination)
    content_type: str = ""
    data: bytes = b""  # the body as bytes (the git ref advertisement is not text)


def _without_httpx_cli() -> None:
    """Import httpx without its command-line module. ``httpx/__init__`` imports ``httpx._main``,
    which imports click, pygments and rich whenever they are installed (they are: the MCP
    SDK brings click through uvicorn, rich is ours): 120 ms of every networked run on
    this machine, for a ``httpx`` command metapkg never runs."""
    if "httpx" not in sys.modules and "httpx._main" not in sys.modules:
        cli = types.ModuleType("httpx._main")
        cli.main = _no_httpx_cli  # type: ignore[attr-defined]
        sys.modules["httpx._main"] = cli


def _no_httpx_cli() -> None:
    raise SystemExit("the httpx command line is not available inside metapkg")


def origin_of(url: str) -> str:
    """scheme://host[:port] of a URL, lowercased: what "the same origin" compares."""
    scheme, _, rest = url.partition("://")
    return f"{scheme.lower()}://{rest.split('/', 1)[0].lower()}"


class Http:
    def __init__(
        self,
        token: Token | None,
        workers: int,
        policy: Policy | None = None,
        token_origin: str | None = None,
        web_origin: str | None = None,
        service: str = "GitHub",
    ) -> None:
        _without_httpx_cli()
        self.service = service  # who messages say did not answer ("": the URL's host)
        import httpx

        self.token = token
        self.token_origin = token_origin  # the API: "Authorization: Bearer <token>"
        self.web_origin = web_origin  # git's smart HTTP: Basic auth with the token
        # Another forge's origin (scheme://host[:port]) -> its Authorization header value,
        # sent to that origin only (see fetch/credentials.py).
        self.authorizations: dict[str, str] = {}
        # At most `workers` requests in flight, however many crawl threads are waiting.
        self._slots = threading.BoundedSemaphore(max(1, workers))
        self.policy = policy or Policy.from_environment()
        self._pause_lock = threading.Lock()
        self._paused_until: dict[str, float] = {}  # origin -> when its rate limit resets
        self.client = httpx.Client(
            follow_redirects=True,
            timeout=httpx.Timeout(self.policy.timeout, connect=min(10.0, self.policy.timeout)),
            limits=httpx.Limits(
                max_connections=max(1, workers), max_keepalive_connections=max(1, workers)
            ),
            headers={"User-Agent": f"metapkg/{__version__}", "X-GitHub-Api-Version": "2022-11-28"},
        )
        deadline.install(self.client)

    def close(self) -> None:
        self.client.close()

    def _headers(self, url: str, accept: str) -> dict[str, str]:
        """The token goes to the API's origin (Bearer) and the web host's (Basic, as git
        sends it), never anywhere else: not to the archive host, not to a redirect."""
        headers = {"Accept": accept}
        forge = self.authorizations.get(origin_of(url))
        if forge is not None:
            headers["Authorization"] = forge
        elif self.token is not None:
            origin = origin_of(url)
            if origin == self.token_origin:
                headers["Authorization"] = f"Bearer {self.token.value}"
            elif origin == self.web_origin:
                from metapkg.fetch.webhost import basic_authorization

                headers["Authorization"] = basic_authorization(self.token.value)
        return headers

    def get(self, url: str, accept: str = "application/vnd.github+json") -> Reply:
        """GET with retries; 4xx other than rate limits are returned, not raised."""

        def once() -> Reply:
            headers = self._headers(url, accept)
            started = time.perf_counter()
            with (
                self._slots,
                deadline.budget(self.policy.deadline) as budget,
                self.client.stream("GET", url, headers=headers) as response,
            ):
                data = b"".join(_within(budget, response.iter_bytes()))
            _report(url, response.status_code, started)
            self._raise_for_retry(response)
            return Reply(
                response.status_code,
                data.decode(response.encoding or "utf-8", errors="replace"),
                str(response.url),
                response.headers.get("link", ""),
                response.headers.get("content-type", ""),
                data,
            )

        return self._retrying(url, once)

    def download(self, url: str, target: Path, limit: int, large: int | None = None) -> int:
        """Stream a body into ``target``; return its HTTP status (the file holds the body).

        ``large``: stop (raise :class:`TooLarge`) once the body is announced or found to
        be past this many bytes; the caller fetches less another way."""

        def once() -> int:
            headers = self._headers(url, "*/*")
            started = time.perf_counter()
            with (
                self._slots,
                deadline.budget(self.policy.deadline) as budget,
                self.client.stream("GET", url, headers=headers) as response,
            ):
                self._raise_for_retry(response)
                if response.status_code != 200:
                    _report(url, response.status_code, started)
                    return response.status_code
                total = int(response.headers.get("content-length") or 0)
                if large is not None and total > large:
                    raise TooLarge(url)
                size = 0
                with open(target, "wb") as out:
                    for chunk in _within(budget, response.iter_bytes(1 << 16)):
                        size += len(chunk)
                        if large is not None and size > large:
                            raise TooLarge(url)
                        if size > limit:
                            raise FetchError(
                                [
                                    error(
                                        "archive",
                                        url,
                                        f"the archive is larger than the {limit} byte cap",
                                    )
                                ]
                            )
                        failpoint.charge(len(chunk), target)
                        out.write(chunk)
                        events.emit(events.Received(url, len(chunk), total))
                _report(url, 200, started)
                return 200

        return self._retrying(url, once)

    def _retrying(self, url: str, once: Callable[[], T]) -> T:
        import httpx

        attempt = 0
        while True:
            attempt += 1
            self._wait_for_pause(url)
            try:
                return once()
            except _RateLimited as limited:
                if limited.wait > self.policy.rate_limit_wait or attempt >= self.policy.attempts:
                    raise FetchError(
                        [error("rate-limit", url, limited.describe(self.token))]
                    ) from None
                self._pause(url, limited.reset_at)
            except deadline.DeadlinePassed as passed:  # not retried: it would take as long
                raise FetchError([error("fetch", url, str(passed))]) from None
            except httpx.TooManyRedirects:
                message = "it redirects in a loop (too many redirects), so it cannot be fetched"
                raise FetchError([error("fetch", url, message)]) from None
            except (_ServerError, httpx.TransportError) as exc:
                if attempt >= self.policy.attempts:
                    message = (
                        f"{self.service or _host_name(url)} did not answer after {attempt} "
                        f"attempts ({_why(exc)}); "
                        f"check the network or try again"
                    )
                    raise FetchError([error("fetch", url, message)]) from None
                time.sleep(self.policy.backoff * 2 ** (attempt - 1) * random.uniform(0.5, 1.5))

    def _pause(self, url: str, until: float) -> None:
        """Every request to ``url``'s host waits until ``until`` (a rate limit's reset)."""
        with self._pause_lock:
            origin = origin_of(url)
            self._paused_until[origin] = max(self._paused_until.get(origin, 0.0), until)

    def _wait_for_pause(self, url: str) -> None:
        with self._pause_lock:
            until = self._paused_until.get(origin_of(url), 0.0)
        wait = until - time.time()
        if wait > 0:
            time.sleep(wait)

    def _raise_for_retry(self, response: httpx.Response) -> None:
        status = response.status_code
        if status >= 500:
            raise _ServerError(f"HTTP {status}")
        headers = response.headers
        if status == 429 or (status == 403 and headers.get("x-ratelimit-remaining") == "0"):
            raise _RateLimited(status, headers.get("retry-after"), headers.get("x-ratelimit-reset"))


def _within(budget: deadline.Budget, chunks: Iterator[bytes]) -> Iterator[bytes]:
    """``chunks``, checking the response's budget after each: what holds where the
    network streams could not be wrapped (deadline.install)."""
    for chunk in chunks:
        budget.check()
        yield chunk


def _report(url: str, status: int, started: float) -> None:
    if events.active():
        events.emit(events.Request("GET", url, status, time.perf_counter() - started))


class TooLarge(Exception):
    """A download passed the size its caller asked to stop at."""


class _ServerError(Exception):
    pass


_FAR = 366 * 24 * 3600.0  # a rate limit said to reset further ahead reads as this far


def _whole(text: str | None, cap: float) -> float | None:
    """A header's whole number, at most ``cap``: a server can send any number of digits
    (``X-RateLimit-Reset: 10^40`` is past what a clock or ``int()`` can take)."""
    text = (text or "").strip()
    if not (text.isascii() and text.isdigit()):
        return None
    return cap if len(text) > 15 else min(float(text), cap)


class _RateLimited(Exception):
    def __init__(self, status: int, retry_after: str | None, reset: str | None) -> None:
        super().__init__(status)
        now = time.time()
        self.reset_at = now
        wait, reset_at = _whole(retry_after, _FAR), _whole(reset, now + _FAR)
        if wait is not None:
            self.reset_at = now + wait
        elif reset_at is not None:
            self.reset_at = reset_at
        self.wait = max(0.0, self.reset_at - now)

    def describe(self, token: Token | None) -> str:
        shape = "%H:%M:%S" if self.wait < 12 * 3600 else "%Y-%m-%d %H:%M:%S"
        when = time.strftime(shape, time.localtime(self.reset_at))
        hint = (
            "set GITHUB_TOKEN (or run `metapkg auth login`) for a much higher limit"
            if token is None
            else "wait, or use a token with a higher limit"
        )
        return (
            f"GitHub's rate limit was reached; it resets at {when} (in {int(self.wait)} s). "
            f"To go on, {hint}"
        )


def _host_name(url: str) -> str:
    """How messages name the host of ``url``: GitHub for its hosts, else the host."""
    host = url.partition("://")[2].split("/", 1)[0].rpartition("@")[2].lower()  # no user:pw
    github = host == "github.com" or host.endswith((".github.com", ".githubusercontent.com"))
    return "GitHub" if github or not host else host


def _why(exc: Exception) -> str:
    return str(exc) or type(exc).__name__
