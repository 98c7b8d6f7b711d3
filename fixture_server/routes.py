"""The GitHub endpoints metapkg uses, as pure functions from a request to a `Response`."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import parse_qs, quote, unquote

from fixture_server.archive import ArchiveCache, archive_prefix, codeload_prefix
from fixture_server.repos import Commit, Repo, RepoStore
from fixture_server.responses import (
    DOCS_URL,
    Response,
    json_response,
    message,
    not_found,
    text_response,
)

_SHA_MEDIA_TYPE = re.compile(r"application/vnd\.github(?:\.[\w-]+)?\.sha", re.IGNORECASE)
_FULL_SHA = re.compile(r"[0-9a-fA-F]{40}")
DEFAULT_PER_PAGE = 30
MAX_PER_PAGE = 100


@dataclass(frozen=True)
class Site:
    """Everything a route needs: the data and the two base URLs."""

    store: RepoStore
    archives: ArchiveCache
    api_url: str
    download_url: str


def api_route(site: Site, raw_path: str, headers: Mapping[str, str]) -> Response:
    """Dispatch `GET /repos/{owner}/{repo}/...` (headers have lowercased names).

    The ref after the action is taken from the raw path, so it may arrive either
    percent-encoded (`release%2F1.x`) or with literal slashes (`release/1.x`).
    """
    path, _, query = raw_path.partition("?")
    segments = path.split("/")
    if len(segments) < 4 or segments[0] != "" or segments[1] != "repos":
        return not_found()
    repo = site.store.get(unquote(segments[2]), unquote(segments[3]))
    if repo is None:
        return not_found()
    if repo.renamed_to is not None:
        return _moved(site.api_url + "/repos", repo.renamed_to, segments[4:], query)
    if len(segments) == 4 or segments[4:] == [""]:
        return _repo_info(repo)
    action, ref = segments[4], unquote("/".join(segments[5:]))
    if action == "commits" and ref:
        return _commit(site, repo, ref, headers.get("accept", ""))
    if action == "tarball":
        return _tarball(site, repo, ref or _default_branch(repo))
    if action == "tags" and not ref:
        return _tags(site, repo, query)
    return not_found()


def download_route(site: Site, raw_path: str) -> Response:
    """`GET /{owner}/{repo}/legacy.tar.gz/{ref}` (where the REST tarball endpoint points)
    or `GET /{owner}/{repo}/tar.gz/{ref}` (where the web host's archive links point) on the
    download host, in codeload's shapes: see `archive.py` for their top folders."""
    path, _, query = raw_path.partition("?")
    segments = path.split("/")
    if len(segments) < 5 or segments[0] != "" or segments[3] not in ("legacy.tar.gz", "tar.gz"):
        return text_response(404, "404: Not Found")
    repo = site.store.get(unquote(segments[1]), unquote(segments[2]))
    if repo is None:
        return text_response(404, "404: Not Found")
    if repo.renamed_to is not None:
        return _moved(site.download_url, repo.renamed_to, segments[3:], query)
    ref = unquote("/".join(segments[4:]))
    found = _archive_sha(site, repo, ref)
    if found is None:
        return text_response(404, "404: Not Found")
    sha, commit = found
    legacy = segments[3] == "legacy.tar.gz"
    if legacy:
        prefix = archive_prefix(repo.owner, repo.name, sha)
    else:
        is_tag = ref.startswith("refs/tags/") or (ref in repo.tags and ref not in repo.branches)
        prefix = codeload_prefix(repo.name, ref, is_tag)
    data = site.archives.get(repo.key, sha, commit.folder if commit else None, prefix)
    if data is None:
        return text_response(404, "404: Not Found")
    return Response(
        200,
        data,
        {
            "Content-Type": "application/x-gzip",
            "Content-Disposition": f"attachment; filename={prefix}.tar.gz",
            "ETag": f'"{sha}"',
        },
        truncatable=True,
        # codeload streams the archives it makes: no Content-Length (the legacy shape keeps
        # one here, as the fixture always sent it).
        chunked=not legacy,
    )


def _moved(base: str, target: tuple[str, str], tail: list[str], query: str) -> Response:
    """301 to the same URL with the new owner/repo (GitHub's answer for a renamed repo)."""
    owner, name = target
    location = f"{base}/{quote(owner)}/{quote(name)}"
    if tail:
        location += "/" + "/".join(tail)
    if query:
        location += "?" + query
    body = {"message": "Moved Permanently", "url": location, "documentation_url": DOCS_URL}
    return json_response(301, body, {"Location": location})


def _repo_info(repo: Repo) -> Response:
    return json_response(
        200,
        {
            "name": repo.name,
            "full_name": f"{repo.owner}/{repo.name}",
            "owner": {"login": repo.owner},
            "default_branch": _default_branch(repo),
        },
    )


def _default_branch(repo: Repo) -> str:
    return repo.default_branch


def _commit(site: Site, repo: Repo, ref: str, accept: str) -> Response:
    commit = repo.resolve(ref)
    if commit is None:
        return message(422, f"No commit found for SHA: {ref}")
    if _SHA_MEDIA_TYPE.search(accept):
        return text_response(200, commit.sha)
    url = f"{site.api_url}/repos/{repo.owner}/{repo.name}/commits/{commit.sha}"
    return json_response(200, {"sha": commit.sha, "url": url})


def _archive_sha(site: Site, repo: Repo, ref: str) -> tuple[str, Commit | None] | None:
    """The SHA to serve for `ref`: a known commit, or a bare SHA given bytes by `set_archive`."""
    commit = repo.resolve(ref)
    if commit is not None:
        return commit.sha, commit
    if _FULL_SHA.fullmatch(ref) and site.archives.has_override(repo.key, ref):
        return ref.lower(), None
    return None


def _tarball(site: Site, repo: Repo, ref: str) -> Response:
    found = _archive_sha(site, repo, ref)
    if found is None:
        return not_found()
    location = f"{site.download_url}/{repo.owner}/{repo.name}/legacy.tar.gz/{found[0]}"
    return Response(302, b"", {"Location": location})


def _tags(site: Site, repo: Repo, query: str) -> Response:
    params = parse_qs(query)
    per_page = _positive_int(params.get("per_page"), DEFAULT_PER_PAGE)
    per_page = min(per_page, MAX_PER_PAGE)
    page = _positive_int(params.get("page"), 1)
    names = sorted(repo.tags, reverse=True)
    base = f"{site.api_url}/repos/{repo.owner}/{repo.name}"
    items = []
    for name in names[(page - 1) * per_page : page * per_page]:
        sha = repo.commits[repo.tags[name]].sha
        quoted = quote(name, safe="/")
        items.append(
            {
                "name": name,
                "commit": {"sha": sha, "url": f"{base}/commits/{sha}"},
                "zipball_url": f"{base}/zipball/refs/tags/{quoted}",
                "tarball_url": f"{base}/tarball/refs/tags/{quoted}",
            }
        )
    last = max(1, math.ceil(len(names) / per_page))
    link = _link_header(f"{base}/tags?per_page={per_page}&page=", page, last)
    return json_response(200, items, {"Link": link} if link else None)


def _link_header(url: str, page: int, last: int) -> str:
    """GitHub's pagination links, in GitHub's order: prev, next, last, first."""
    links: list[tuple[int, str]] = []
    if page > 1:
        links.append((min(page - 1, last), "prev"))
    if page < last:
        links += [(page + 1, "next"), (last, "last")]
    if page > 1:
        links.append((1, "first"))
    return ", ".join(f'<{url}{number}>; rel="{rel}"' for number, rel in links)


def _positive_int(values: list[str] | None, default: int) -> int:
    """GitHub ignores malformed or non-positive paging numbers."""
    try:
        number = int(values[0]) if values else default
    except ValueError:
        return default
    return number if number >= 1 else default
