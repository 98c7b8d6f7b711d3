"""The web host (github.com's shape): git smart HTTP and archive links.

* `GET /<owner>/<repo>[.git]/info/refs?service=git-upload-pack`: the ref advertisement
  (`advertise.py`); a client that asks for protocol v2 (`Git-Protocol: version=2`) gets
  git's own v2 capability advertisement instead (`gitstore.py`).
* `POST /<owner>/<repo>[.git]/git-upload-pack`: git's fetch, by `git http-backend`.
* `GET /<owner>/<repo>/archive/<ref>.tar.gz`: 302 to `<archive host>/<owner>/<repo>/tar.gz/<ref>`.

As on github.com: a renamed repository answers 301 to the same URL under its new name;
git requests for a repository that does not exist answer 401 with a Basic challenge when
they carry no credentials (it might be private) and 404 when they do; pushing is refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import parse_qs, quote, unquote

from fixture_server.advertise import CONTENT_TYPE, advertisement
from fixture_server.archive import ArchiveCache
from fixture_server.gitstore import GitStore
from fixture_server.repos import Repo, RepoStore
from fixture_server.responses import Response, text_response

CHALLENGE = {"WWW-Authenticate": 'Basic realm="GitHub"'}
_ARCHIVE_SUFFIX = ".tar.gz"


@dataclass(frozen=True)
class WebSite:
    store: RepoStore
    archives: ArchiveCache
    git: GitStore
    web_url: str
    download_url: str


@dataclass(frozen=True)
class WebRequest:
    method: str
    raw_path: str
    headers: Mapping[str, str]  # lowercased names
    body: bytes
    authenticated: bool  # carried credentials the server accepted


def web_route(site: WebSite, request: WebRequest) -> Response:
    path, _, query = request.raw_path.partition("?")
    segments = path.split("/")
    if len(segments) < 4 or segments[0] != "":
        return _page_not_found()
    owner, name = unquote(segments[1]), unquote(segments[2])
    tail = segments[3:]
    kind = _kind(tail, request.method)
    if kind is None:
        return _page_not_found()
    repo = site.store.get(owner, name.removesuffix(".git") if kind != "archive" else name)
    if repo is None:
        if kind == "archive":
            return _page_not_found()
        if not request.authenticated:
            return challenge()
        return text_response(404, "Repository not found.\n")
    if repo.renamed_to is not None:
        return _moved(site.web_url, repo.renamed_to, name.endswith(".git"), tail, query)
    if kind == "archive":
        return _archive_link(site, repo, unquote("/".join(tail[1:])))
    if kind == "upload-pack":
        return site.git.serve(repo, "POST", "git-upload-pack", query, request.headers, request.body)
    return _info_refs(site, repo, query, request.headers)


def _kind(tail: list[str], method: str) -> str | None:
    if tail == ["info", "refs"] and method in ("GET", "HEAD"):
        return "info/refs"
    if tail == ["git-upload-pack"] and method == "POST":
        return "upload-pack"
    if (
        len(tail) >= 2
        and tail[0] == "archive"
        and tail[-1].endswith(_ARCHIVE_SUFFIX)
        and method in ("GET", "HEAD")
    ):
        return "archive"
    return None


def _info_refs(site: WebSite, repo: Repo, query: str, headers: Mapping[str, str]) -> Response:
    service = parse_qs(query).get("service", [""])[0]
    if service == "git-receive-pack":
        return text_response(403, "Pushing to the fixture server is not supported.\n")
    if service != "git-upload-pack":
        # The "dumb" protocol; github.com stopped serving it long ago.
        return text_response(403, "Please upgrade your git client to one that speaks smart HTTP.\n")
    if "version=2" in headers.get("git-protocol", ""):
        return site.git.serve(repo, "GET", "info/refs", query, headers, b"")
    return Response(
        200,
        advertisement(repo),
        {"Content-Type": CONTENT_TYPE, "Cache-Control": "no-cache, max-age=0, must-revalidate"},
        truncatable=True,
    )


def _archive_link(site: WebSite, repo: Repo, ref_file: str) -> Response:
    """`archive/<ref>.tar.gz` names any ref (slashes included) or a commit SHA."""
    ref = ref_file[: -len(_ARCHIVE_SUFFIX)]
    if not ref or (repo.resolve(ref) is None and not site.archives.has_override(repo.key, ref)):
        return _page_not_found()
    location = f"{site.download_url}/{quote(repo.owner)}/{quote(repo.name)}/tar.gz/{quote(ref)}"
    return Response(302, b"", {"Location": location})


def _moved(
    base: str, target: tuple[str, str], dot_git: bool, tail: list[str], query: str
) -> Response:
    owner, name = target
    location = f"{base}/{quote(owner)}/{quote(name)}{'.git' if dot_git else ''}/" + "/".join(tail)
    if query:
        location += "?" + query
    return Response(301, b"", {"Location": location})


def challenge() -> Response:
    """github.com's answer to git requests without (valid) credentials."""
    response = text_response(401, "Invalid username or token.\n")
    response.headers.update(CHALLENGE)
    return response


def _page_not_found() -> Response:
    return text_response(404, "Not Found\n", "text/html")
