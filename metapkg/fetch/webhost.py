"""Which GitHub web host to use instead of the REST API, and its URLs.

Public repositories can be read without spending the REST quota (60 requests an hour
without a token): refs through git's smart-HTTP ref advertisement on the web host
(``gitrefs.py``), archives by commit from the archive host, and big monorepos through
``git`` itself (``sparse.py``). Where those live (``settings.github_web_url``):

* ``METAPKG_GITHUB_URL`` set: that web host (GitHub Enterprise: ``https://ghe.example``).
* unset, and ``METAPKG_GITHUB_API_URL`` unset or ``https://api.github.com``:
  ``https://github.com``, archives from ``https://codeload.github.com``.
* unset, and the API URL points elsewhere: no web host; the REST API only, as before.

The archive host: ``METAPKG_GITHUB_ARCHIVE_URL`` when set (tests, mirrors), codeload for
github.com; otherwise none is known, and archives are asked of the web host
(``<web>/<owner>/<repo>/archive/<sha>.tar.gz``), which redirects to wherever it keeps them.
Nothing here touches the network.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from urllib.parse import quote, urlsplit

from metapkg.diagnostics import FetchError, error
from metapkg.fetch.gitrefs import CONTENT_TYPE

WEB_URL_VAR = "METAPKG_GITHUB_URL"
ARCHIVE_URL_VAR = "METAPKG_GITHUB_ARCHIVE_URL"
DEFAULT_ARCHIVE_URL = "https://codeload.github.com"
# The user name github.com expects with a token as the password (any name works for a
# personal access token; GitHub App installation tokens need this one).
TOKEN_USER = "x-access-token"


@dataclass(frozen=True)
class WebHost:
    """A web host (no trailing slash) and, if known, its archive host."""

    url: str
    archive_host: str | None = None

    def advertisement_url(self, repo_id: str) -> str:
        """The smart-HTTP ref advertisement of ``owner/repo``."""
        return f"{self.clone_url(repo_id)}/info/refs?service=git-upload-pack"

    def clone_url(self, repo_id: str) -> str:
        """What ``git`` fetches from."""
        return f"{self.url}/{_path(repo_id)}.git"

    def archive_url(self, repo_id: str, commit: str) -> str:
        """A gzip tar of ``owner/repo`` at ``commit``: straight from the archive host
        (one request; the top folder is ``<repo>-<commit>``), or through the web host's
        link to it (a redirect first)."""
        if self.archive_host is not None:
            return f"{self.archive_host}/{_path(repo_id)}/tar.gz/{commit}"
        return f"{self.url}/{_path(repo_id)}/archive/{commit}.tar.gz"


def web_host() -> WebHost | None:
    """The web host to use, or None for the REST API only (see the module docstring).
    A malformed URL (or one carrying credentials) is a clear error naming the variable."""
    from metapkg import settings

    web = settings.github_web_url()
    if web is None:
        return None
    archive = settings.github_archive_url()
    if archive is None and web == settings.DEFAULT_WEB:
        archive = DEFAULT_ARCHIVE_URL
    for name, url in ((WEB_URL_VAR, web), (ARCHIVE_URL_VAR, archive)):
        if url is not None and not _well_formed(url):
            message = (
                f"{name} must be an http(s) URL without credentials, query or fragment, like "
                f"{settings.DEFAULT_WEB}; fix or unset it"
            )
            raise FetchError([error("usage", name, message)])
    return WebHost(web, archive)


def basic_authorization(token: str) -> str:
    """The ``Authorization`` header value git's HTTP transport and github.com take for a
    token: Basic, with the token as the password. Only ever for the web host's origin."""
    pair = f"{TOKEN_USER}:{token}".encode()
    return "Basic " + base64.b64encode(pair).decode("ascii")


def usable_reply(status: int, content_type: str) -> bool:
    """Whether an info/refs answer is a ref advertisement to parse. Anything else (401:
    github.com's answer for a private or missing repository without credentials, 403, 404,
    a dumb-HTTP or HTML page) means: ask the REST API instead, which says which it was.
    Retries of 5xx and rate limits happen before this, in the HTTP layer."""
    return status == 200 and content_type.split(";")[0].strip().lower() == CONTENT_TYPE


def _path(repo_id: str) -> str:
    return quote(repo_id, safe="/")


def _well_formed(value: str) -> bool:
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018  (raises ValueError for a bad port)
    except ValueError:
        return False
    return (
        parts.scheme in ("http", "https")
        and bool(parts.hostname)
        and parts.username is None
        and parts.password is None
        and not parts.query
        and not parts.fragment
    )
