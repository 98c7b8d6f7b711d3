"""A fake MCP Registry on loopback: the read-only ``/v0.1`` API over server.json files.

Serves ``GET /v0.1/servers?search=&version=latest`` and
``GET /v0.1/servers/{name}/versions/{version|latest}`` with the registry's envelopes
(``{"server": ..., "_meta": {...official: {...}}}``), built from the server.json files of
``registry-fixtures/mcp-registry/servers`` (or any given). ``requests`` records each
path asked, so a test can prove that a cached or frozen install asked nothing.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

SERVERS = Path(__file__).resolve().parent.parent / "registry-fixtures" / "mcp-registry" / "servers"
_OFFICIAL = "io.modelcontextprotocol.registry/official"


def _semver_key(version: str) -> tuple[int, ...]:
    return tuple(int(p) if p.isdigit() else 0 for p in version.split("-")[0].split("."))


class FakeRegistry:
    def __init__(self, documents: list[dict[str, Any]]) -> None:
        self.documents = list(documents)
        self.requests: list[str] = []
        self.url = ""

    @classmethod
    def from_folder(cls, folder: Path = SERVERS) -> FakeRegistry:
        return cls([json.loads(p.read_text("utf-8")) for p in sorted(folder.glob("*.json"))])

    def latest(self, name: str) -> dict[str, Any] | None:
        mine = [d for d in self.documents if d["name"] == name]
        return max(mine, key=lambda d: _semver_key(d["version"])) if mine else None

    def envelope(self, document: dict[str, Any]) -> dict[str, Any]:
        latest = self.latest(document["name"])
        return {
            "server": document,
            "_meta": {
                _OFFICIAL: {
                    "status": "active",
                    "publishedAt": "2026-10-01T12:00:00Z",
                    "isLatest": latest is document,
                }
            },
        }

    def answer(self, target: str) -> tuple[int, Any]:
        parts = urlsplit(target)
        path = parts.path
        if path == "/v0.1/servers":
            query = parse_qs(parts.query)
            term = query.get("search", [""])[0].lower()
            names = sorted({d["name"] for d in self.documents if term in d["name"].lower()})
            found = [self.envelope(self.latest(n) or {}) for n in names]
            return 200, {"servers": found, "metadata": {"count": len(found)}}
        prefix = "/v0.1/servers/"
        if path.startswith(prefix) and "/versions/" in path:
            quoted, _, version = path[len(prefix) :].partition("/versions/")
            name, version = unquote(quoted), unquote(version)
            if version == "latest":
                document = self.latest(name)
            else:
                document = next(
                    (d for d in self.documents if d["name"] == name and d["version"] == version),
                    None,
                )
            if document is None:
                return 404, {"title": "Not Found", "status": 404, "detail": "Server not found"}
            return 200, self.envelope(document)
        return 404, {"title": "Not Found", "status": 404}


@contextmanager
def serve(registry: FakeRegistry) -> Iterator[FakeRegistry]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            registry.requests.append(self.path)
            status, body = registry.answer(self.path)
            data = json.dumps(body).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    registry.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield registry
    finally:
        server.shutdown()
        server.server_close()
