"""A loopback git forge for tests: real bare repositories served by `git http-backend`.

Repositories live at the paths forges give them (GitLab ``group/sub/repo.git``, Gitea
``owner/repo.git``, Azure DevOps ``org/project/_git/repo`` without ``.git``), so every
URL layout metapkg parses reaches a real smart-HTTP server. A repository can be private
(Basic auth with one user and password). Every request's path and Authorization header
is recorded, so tests can check which credential reached which host.
"""

from __future__ import annotations

import base64
import os
import shutil
import subprocess
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

_CONFIG = "[uploadpack]\n\tallowFilter = true\n\tallowAnySHA1InWant = true\n"
_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}


def git(*args: str, cwd: Path) -> str:
    env = {
        **os.environ,
        **_ENV,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


@dataclass
class Seen:
    path: str
    authorization: str | None


@dataclass
class Forge:
    root: Path
    private: dict[str, tuple[str, str]] = field(default_factory=dict)  # repo -> (user, pw)
    seen: list[Seen] = field(default_factory=list)
    server: ThreadingHTTPServer | None = None

    @property
    def host(self) -> str:
        assert self.server is not None
        return f"127.0.0.1:{self.server.server_address[1]}"

    @property
    def url(self) -> str:
        return f"http://{self.host}"

    def publish(self, repo: str, work: Path, tags: tuple[str, ...] = ()) -> str:
        """Commit everything in ``work`` and push it (with ``tags``) to the bare repository
        at ``repo`` (its path on the forge, with ``.git`` if it has one); the commit."""
        if not (work / ".git").exists():
            git("init", "-q", "-b", "main", cwd=work)
        git("add", "-A", cwd=work)
        git("commit", "-q", "--allow-empty", "-m", "release", cwd=work)
        for tag in tags:
            git("tag", "-a", tag, "-m", tag, cwd=work)
        bare = self.root / repo
        if not bare.exists():
            bare.mkdir(parents=True)
            git("init", "-q", "--bare", "-b", "main", cwd=bare)
            with (bare / "config").open("a", encoding="utf-8") as config:
                config.write(_CONFIG)
        git("push", "-q", "--force", "--tags", str(bare), "main", cwd=work)
        return git("rev-parse", "HEAD", cwd=work)

    def start(self) -> Forge:
        forge = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                self._serve(b"")

            def do_POST(self) -> None:
                self._serve(self.rfile.read(int(self.headers.get("Content-Length") or 0)))

            def _serve(self, body: bytes) -> None:
                parts = urlsplit(self.path)
                authorization = self.headers.get("Authorization")
                forge.seen.append(Seen(parts.path, authorization))
                for repo, (user, password) in forge.private.items():
                    if parts.path.startswith(f"/{repo}/"):
                        token = base64.b64encode(f"{user}:{password}".encode()).decode()
                        if authorization != f"Basic {token}":
                            self.send_response(401)
                            self.send_header("WWW-Authenticate", 'Basic realm="forge"')
                            self.send_header("Content-Length", "0")
                            self.end_headers()
                            return
                self._backend(parts.path, parts.query, body)

            def _backend(self, path: str, query: str, body: bytes) -> None:
                env = {
                    "PATH": os.environ.get("PATH", ""),
                    **_ENV,
                    "GIT_PROJECT_ROOT": str(forge.root),
                    "GIT_HTTP_EXPORT_ALL": "1",
                    "PATH_INFO": path,
                    "REQUEST_METHOD": self.command,
                    "QUERY_STRING": query,
                    "REMOTE_ADDR": "127.0.0.1",
                    "CONTENT_LENGTH": str(len(body)),
                    "CONTENT_TYPE": self.headers.get("Content-Type", ""),
                    "HTTP_GIT_PROTOCOL": self.headers.get("Git-Protocol", ""),
                }
                git_program = shutil.which("git") or "git"
                done = subprocess.run(
                    [git_program, "http-backend"], input=body, capture_output=True, env=env
                )
                head, _, payload = done.stdout.partition(b"\r\n\r\n")
                status, headers = 200, []
                for line in head.decode("latin-1").splitlines():
                    name, _, value = line.partition(":")
                    if name.lower() == "status":
                        status = int(value.split()[0])
                    elif name.lower() != "content-length":
                        headers.append((name.strip(), value.strip()))
                self.send_response(status)
                for name, value in headers:
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
