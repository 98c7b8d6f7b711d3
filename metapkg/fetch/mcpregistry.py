"""``mcp:`` origins: servers of an MCP Registry (``METAPKG_MCP_REGISTRY_URL``).

The registry's ``/v0.1`` API, read-only and without credentials:

* ``GET /v0.1/servers/{name}/versions/{version}`` (``latest`` for the newest) answers
  ``{"server": <server.json>, "_meta": {...}}``;
* ``GET /v0.1/servers?search=TERM&version=latest`` answers ``{"servers": [...],
  "metadata": {...}}`` (for ``metapkg search``).

A fetched server.json is written to the download cache as
``mcp-registry/<registry>/<namespace>/<name>/<version>/server.json``, re-serialised with
2-space indentation (the registry's envelope and whitespace are not the server's), and
that file is the package: its integrity is the lock's ``integrity``. A registry version
is immutable, so an exact version found in the cache is never asked again: ``install
--frozen`` and ``--offline`` work from the cache.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

from metapkg.diagnostics import Diagnostic, FetchError, error
from metapkg.fetch.source import Fetched, Located, NotFound, Place, RefPin, Tag
from metapkg.fetch.sources import FetchOptions
from metapkg.origins import McpRegistryOrigin, Origin

FILENAME = "server.json"
MAX_BYTES = 1 << 20  # a server.json is a few KiB; anything past 1 MiB is refused


class RegistryError(FetchError):
    """The registry answered something other than what its API promises."""

    @classmethod
    def at(cls, where: str, message: str) -> RegistryError:
        return cls([error("mcp-registry", where, message)])


class RegistryClient:
    """The two registry requests metapkg makes, over metapkg's HTTP client."""

    def __init__(self, base: str | None = None, workers: int = 4) -> None:
        from metapkg import settings
        from metapkg.fetch.http import Http

        self.base = base or settings.mcp_registry_url()
        self.http = Http(None, workers, service="The MCP Registry")

    def close(self) -> None:
        self.http.close()

    def server(self, name: str, version: str | None, origin: Origin) -> dict[str, Any]:
        """The server.json of ``name`` at ``version`` (None: the latest)."""
        url = (
            f"{self.base}/v0.1/servers/{quote(name, safe='')}/versions/"
            f"{quote(version or 'latest', safe='')}"
        )
        reply = self.http.get(url, accept="application/json")
        if reply.status == 404:
            at = f"version {version}" if version else "any version"
            raise NotFound(origin, f"the MCP Registry at {self.base} has no {name} at {at}")
        body = self._json(url, reply.status, reply.data)
        server = body.get("server", body)
        if not isinstance(server, dict) or server.get("name") != name:
            raise RegistryError.at(url, f"the registry's answer is not the server.json of {name}")
        if version is not None and server.get("version") != version:
            raise RegistryError.at(
                url, f"asked for {name} {version}, the registry answered {server.get('version')!r}"
            )
        return server

    def search(self, term: str, limit: int = 30) -> list[dict[str, Any]]:
        """The latest version of every server whose name matches ``term``."""
        query = urlencode({"search": term, "version": "latest", "limit": limit})
        url = f"{self.base}/v0.1/servers?{query}"
        reply = self.http.get(url, accept="application/json")
        body = self._json(url, reply.status, reply.data)
        entries = body.get("servers")
        if not isinstance(entries, list):
            raise RegistryError.at(url, "the registry's answer has no 'servers' list")
        found = []
        for entry in entries:
            server = entry.get("server", entry) if isinstance(entry, dict) else None
            if isinstance(server, dict) and isinstance(server.get("name"), str):
                found.append(server)
        return found

    def _json(self, url: str, status: int, data: bytes) -> dict[str, Any]:
        if status != 200:
            raise RegistryError.at(url, f"the MCP Registry answered HTTP {status}")
        if len(data) > MAX_BYTES:
            raise RegistryError.at(url, f"the answer is larger than {MAX_BYTES} bytes")
        try:
            body = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise RegistryError.at(url, "the answer is not JSON") from None
        if not isinstance(body, dict):
            raise RegistryError.at(url, "the answer is not a JSON object")
        return body


class McpRegistrySource:
    """The :class:`~metapkg.fetch.source.Source` for ``mcp:`` origins."""

    def __init__(self, options: FetchOptions) -> None:
        from metapkg import settings

        self.options = options
        self.base = settings.mcp_registry_url()
        self.root = settings.cache_dir()
        self._client: RegistryClient | None = None

    @property
    def client(self) -> RegistryClient:
        if self._client is None:
            self._client = RegistryClient(self.base, self.options.workers)
        return self._client

    def fetch(self, origin: Origin) -> Fetched:
        assert isinstance(origin, McpRegistryOrigin)  # the registry sends only mcp: here
        cached = self._cached(origin.name, origin.version) if origin.version else None
        if cached is None:
            if self.options.offline:
                at = f"{origin.version} is" if origin.version else "the latest version is"
                raise NotFound(
                    origin,
                    f"{at} not in the download cache and --offline forbids asking the MCP "
                    f"Registry; run once online (or pin a version already cached)",
                )
            server = self.client.server(origin.name, origin.version, origin)
            cached = self._store(origin, server)
        return Fetched(origin, cached, str(origin), FILENAME, place=Place(origin.repository, ""))

    def locate(self, origin: Origin) -> Located:
        assert isinstance(origin, McpRegistryOrigin)
        return Located(Place(origin.repository, ""))

    def versions(self, origin: Origin) -> list[Tag]:
        return []  # a registry origin names its version exactly

    def at_hand(self, origin: Origin) -> bool:
        assert isinstance(origin, McpRegistryOrigin)
        return origin.version is not None and self._cached(origin.name, origin.version) is not None

    def used_pins(self) -> Iterable[RefPin]:
        return ()

    def warnings(self) -> list[Diagnostic]:
        return []

    def close(self) -> None:
        if self._client is not None:
            self._client.close()

    def _parts(self, name: str, version: str) -> tuple[str, ...]:
        registry = hashlib.sha256(self.base.encode("utf-8")).hexdigest()[:16]
        return ("mcp-registry", registry, *name.split("/"), version)

    def _cached(self, name: str, version: str) -> Path | None:
        from metapkg.fetch import cachedirs

        parts = self._parts(name, version)
        if not self.root.is_dir() or not cachedirs.check(self.root, *parts):
            return None
        path = self.root.joinpath(*parts, FILENAME)
        return path if path.is_file() and not path.is_symlink() else None

    def _store(self, origin: McpRegistryOrigin, server: dict[str, Any]) -> Path:
        from metapkg.fetch import cachedirs
        from metapkg.textio import write_atomic

        version = server.get("version")
        if not isinstance(version, str) or not version or "/" in version or version in (".", ".."):
            raise RegistryError.at(
                str(origin), f"the server.json has no usable version: {version!r}"
            )
        self.root.mkdir(parents=True, exist_ok=True)
        folder = cachedirs.folder(self.root, *self._parts(origin.name, version))
        path = folder / FILENAME
        write_atomic(path, json.dumps(server, indent=2, ensure_ascii=False) + "\n", durable=False)
        return path
