"""Bare git repositories mirroring the fixture repositories, served by `git http-backend`.

The pack protocol (negotiation, shallow, filters, protocol v2) is git's own job, so the
fixture does not reimplement it: on the first request of a git client (a protocol v2 ref
listing or any `git-upload-pack` POST) the repository's objects are written as loose
objects into a bare repository under a temporary folder, from the commit folders, with
the ids `gitobjects.py` gives (the SHAs the REST answers use), and its refs are rewritten
from the current snapshot on every request. The request is then handed to
`git http-backend` as a CGI program, which runs `git upload-pack --stateless-rpc`.

Only this path needs the `git` binary; without one it answers 501.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
import threading
import zlib
from collections.abc import Mapping
from pathlib import Path

from fixture_server.advertise import advertised_refs
from fixture_server.gitobjects import commit_id, tag_id
from fixture_server.repos import Repo
from fixture_server.responses import Response, text_response

GIT_TIMEOUT = 600.0
_CONFIG = """\
[core]
\trepositoryformatversion = 0
\tbare = true
[uploadpack]
\tallowFilter = true
\tallowAnySHA1InWant = true
"""
# Request headers passed to the CGI program as HTTP_* variables.
_CGI_HEADERS = ("git-protocol", "content-encoding", "content-type", "accept")


class GitStore:
    """One bare repository per fixture repository, made on first use, deleted by `close`."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._root: Path | None = None
        self._repo_locks: dict[str, threading.Lock] = {}
        self._written: dict[str, set[str]] = {}  # repository key -> object ids written

    def close(self) -> None:
        with self._lock:
            root, self._root = self._root, None
            self._written.clear()
        if root is not None:
            shutil.rmtree(root, ignore_errors=True)

    def serve(
        self,
        repo: Repo,
        method: str,
        service: str,
        query: str,
        headers: Mapping[str, str],
        body: bytes,
    ) -> Response:
        """Run `git http-backend` for `<repo>.git/<service>` (e.g. `git-upload-pack`)."""
        git = shutil.which("git")
        if git is None:
            return text_response(501, "the fixture server needs the git binary for this\n")
        root, name = self.sync(repo)
        env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": str(root),
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_PROJECT_ROOT": str(root),
            "GIT_HTTP_EXPORT_ALL": "1",
            "PATH_INFO": f"/{name}/{service}",
            "REQUEST_METHOD": method,
            "QUERY_STRING": query,
            "REMOTE_ADDR": "127.0.0.1",
            "CONTENT_LENGTH": str(len(body)),
        }
        for header in _CGI_HEADERS:
            if header in headers:
                cgi_name = header.upper().replace("-", "_")
                prefix = "" if header == "content-type" else "HTTP_"
                env[prefix + cgi_name] = headers[header]
        done = subprocess.run(
            [git, "http-backend"], input=body, capture_output=True, env=env, timeout=GIT_TIMEOUT
        )
        return _cgi_response(done.stdout, done.stderr)

    def sync(self, repo: Repo) -> tuple[Path, str]:
        """Make the bare repository match `repo` (objects added, refs rewritten); return the
        project root and the repository's folder name under it."""
        with self._lock:
            if self._root is None:
                self._root = Path(tempfile.mkdtemp(prefix="fixture-github-git-"))
            root = self._root
            lock = self._repo_locks.setdefault(repo.key, threading.Lock())
            written = self._written.setdefault(repo.key, set())
        name = hashlib.sha1(repo.key.encode()).hexdigest()[:16] + ".git"
        git_dir = root / name
        with lock:
            if not (git_dir / "HEAD").exists():
                _init_bare(git_dir)
            _write_objects(repo, git_dir, written)
            _write_refs(repo, git_dir)
        return root, name


def _init_bare(git_dir: Path) -> None:
    for folder in ("objects", "refs/heads", "refs/tags"):
        (git_dir / folder).mkdir(parents=True, exist_ok=True)
    (git_dir / "config").write_text(_CONFIG, encoding="utf-8")
    (git_dir / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")


def _write_objects(repo: Repo, git_dir: Path, written: set[str]) -> None:
    def sink(kind: str, oid: str, content: bytes) -> None:
        path = git_dir / "objects" / oid[:2] / oid[2:]
        if path.exists():
            return
        path.parent.mkdir(exist_ok=True)
        temp = path.with_name(f".{oid[2:]}.{threading.get_ident()}.tmp")
        # Level 1: loose objects of a big benchmark repository are written quickly.
        temp.write_bytes(zlib.compress(f"{kind} {len(content)}\0".encode() + content, 1))
        os.replace(temp, path)

    for commit in repo.commits.values():
        if commit.sha in written:
            continue
        made = commit_id(repo.owner, repo.name, commit.label, commit.folder, sink)
        if made != commit.sha:
            raise RuntimeError(
                f"{repo.owner}/{repo.name}: the folder of commit {commit.label!r} changed after "
                f"it was added ({commit.folder}); add the repository again"
            )
        written.add(commit.sha)
    for tag in repo.annotated:
        tag_id(repo.commits[repo.tags[tag]].sha, tag, sink)


def _write_refs(repo: Repo, git_dir: Path) -> None:
    lines = ["# pack-refs with: peeled fully-peeled sorted \n"]
    for name, oid in advertised_refs(repo):
        if name == "HEAD":
            continue
        lines.append(f"^{oid}\n" if name.endswith("^{}") else f"{oid} {name}\n")
    temp = git_dir / f"packed-refs.{threading.get_ident()}.tmp"
    temp.write_text("".join(lines), encoding="utf-8")
    os.replace(temp, git_dir / "packed-refs")
    head = git_dir / f"HEAD.{threading.get_ident()}.tmp"
    head.write_text(f"ref: refs/heads/{repo.default_branch}\n", encoding="utf-8")
    os.replace(head, git_dir / "HEAD")


def _cgi_response(output: bytes, errors: bytes) -> Response:
    """A CGI program's output: header lines, a blank line, the body."""
    for separator in (b"\r\n\r\n", b"\n\n"):
        head, found, body = output.partition(separator)
        if found:
            break
    else:
        message = errors.decode("utf-8", "replace").strip() or "no output"
        return text_response(500, f"git http-backend failed: {message}\n")
    status = 200
    headers: dict[str, str] = {}
    for line in head.decode("latin-1").splitlines():
        name, _, value = line.partition(":")
        if name.lower() == "status":
            status = int(value.split()[0])
        elif name.lower() != "content-length":
            headers[name.strip()] = value.strip()
    return Response(status, body, headers)
