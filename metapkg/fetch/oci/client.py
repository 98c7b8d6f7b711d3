"""A client of one registry over the distribution API (OCI distribution spec 1.1).

Anonymous, basic and bearer-token auth: a request is sent as it is, and a 401's
``WWW-Authenticate`` says what to do: ``Basic`` (send the credential), or ``Bearer
realm=...,service=...,scope=...`` (get a token from the realm, with the credential if
there is one, and send that). Tokens are kept per scope for the run. A credential is
only ever sent to its registry's host, and to a token realm on that host or on a sibling
of it (``auth.docker.io`` for ``registry-1.docker.io``): never to a blob redirect's
host (httpx drops the header on a redirect to another origin), never elsewhere.
"""

from __future__ import annotations

import base64
import hashlib
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlencode, urljoin, urlsplit

from metapkg import __version__
from metapkg.diagnostics import FetchError, error
from metapkg.fetch.oci.credentials import Credential, find
from metapkg.fetch.oci.reference import base_url

if TYPE_CHECKING:
    import httpx

MANIFEST_CAP = 4 * 1024 * 1024
_CHALLENGE = re.compile(r'(\w+)="([^"]*)"')


class RegistryError(FetchError):
    def __init__(self, where: str, message: str, rule: str = "oci") -> None:
        super().__init__([error(rule, where, message)])
        self.where = where
        self.message = message


class Registry:
    def __init__(
        self,
        registry: str,
        credential: Callable[[str], Credential | None] = find,
        workers: int = 8,
        timeout: float = 30.0,
    ) -> None:
        from metapkg.fetch.http import _without_httpx_cli

        _without_httpx_cli()
        import httpx

        self.registry = registry
        self.url = base_url(registry)
        self._find_credential = credential
        self._credential: Credential | None = None
        self._looked_up = False
        self._lock = threading.Lock()
        self._auth: dict[str, str] = {}  # scope -> Authorization header value
        self.client = httpx.Client(
            follow_redirects=True,
            timeout=httpx.Timeout(timeout, connect=min(10.0, timeout)),
            limits=httpx.Limits(max_connections=workers, max_keepalive_connections=workers),
            headers={"User-Agent": f"metapkg/{__version__}"},
        )

    def close(self) -> None:
        self.client.close()

    # -- reading ----------------------------------------------------------------------------

    def manifest(self, repository: str, reference: str, accept: str) -> tuple[bytes, str] | None:
        """The manifest's bytes and digest, or None when there is no such manifest."""
        url = f"{self.url}/v2/{repository}/manifests/{reference}"
        response = self._send("GET", url, repository, "pull", {"Accept": accept})
        if response.status_code == 404:
            return None
        self._expect(response, 200, url)
        data = response.content
        if len(data) > MANIFEST_CAP:
            raise RegistryError(url, f"the manifest is over {MANIFEST_CAP} bytes")
        digest = "sha256:" + hashlib.sha256(data).hexdigest()
        if reference.startswith("sha256:") and reference != digest:
            raise RegistryError(url, f"the registry sent a manifest whose digest is {digest}")
        return data, digest

    def has_manifest(self, repository: str, reference: str, accept: str) -> bool:
        url = f"{self.url}/v2/{repository}/manifests/{reference}"
        response = self._send("HEAD", url, repository, "pull", {"Accept": accept})
        if response.status_code == 404:
            return False
        self._expect(response, 200, url)
        return True

    def tags(self, repository: str, page: int = 1000) -> list[str]:
        """Every tag of ``repository`` (``/tags/list``, its ``Link`` pages followed on this
        registry only); empty when there is no such repository. For ``oci://`` origins'
        version ranges, as git tags are for a forge's."""
        url: str | None = f"{self.url}/v2/{repository}/tags/list?n={page}"
        found: list[str] = []
        while url is not None:
            response = self._send("GET", url, repository, "pull", {"Accept": "application/json"})
            if response.status_code == 404:
                return found
            self._expect(response, 200, url)
            try:
                listed = response.json().get("tags") or []
            except (ValueError, AttributeError):
                raise RegistryError(url, "the tag list is not JSON") from None
            found += [tag for tag in listed if isinstance(tag, str)]
            url = _next_page(response.headers.get("link", ""), url)
            if url is not None and _origin(url) != _origin(self.url):
                break
        return found

    def blob(self, repository: str, digest: str, target: Path, limit: int) -> None:
        """Stream a blob into ``target``, at most ``limit`` bytes, checked against its
        digest (a registry or a cache between may be wrong; the caller verifies the
        package's integrity too)."""
        url = f"{self.url}/v2/{repository}/blobs/{digest}"
        hashed = hashlib.sha256()
        size = 0
        response = self._send("GET", url, repository, "pull", {}, stream=True)
        try:
            self._expect(response, 200, url)
            with target.open("wb") as out:
                for chunk in response.iter_bytes():
                    size += len(chunk)
                    if size > limit:
                        raise RegistryError(url, f"the blob is over {limit} bytes")
                    hashed.update(chunk)
                    out.write(chunk)
        finally:
            response.close()
        if "sha256:" + hashed.hexdigest() != digest:
            raise RegistryError(url, "the blob's content does not match its digest")

    def blob_bytes(self, repository: str, digest: str, limit: int) -> bytes:
        url = f"{self.url}/v2/{repository}/blobs/{digest}"
        response = self._send("GET", url, repository, "pull", {})
        self._expect(response, 200, url)
        data = response.content
        if len(data) > limit or "sha256:" + hashlib.sha256(data).hexdigest() != digest:
            raise RegistryError(url, "the blob's content does not match its digest")
        return data

    # -- writing ----------------------------------------------------------------------------

    def push_blob(self, repository: str, data: bytes) -> str:
        """Upload a blob (monolithic: POST then PUT), unless the registry has it."""
        digest = "sha256:" + hashlib.sha256(data).hexdigest()
        url = f"{self.url}/v2/{repository}/blobs/{digest}"
        if self._send("HEAD", url, repository, "pull,push", {}).status_code == 200:
            return digest
        start = f"{self.url}/v2/{repository}/blobs/uploads/"
        response = self._send("POST", start, repository, "pull,push", {})
        self._expect(response, 202, start)
        location = urljoin(start, response.headers.get("location", ""))
        if _origin(location) != _origin(self.url):
            raise RegistryError(start, "the registry sent the upload to another host")
        joiner = "&" if "?" in location else "?"
        put = f"{location}{joiner}{urlencode({'digest': digest})}"
        headers = {"Content-Type": "application/octet-stream"}
        response = self._send("PUT", put, repository, "pull,push", headers, data)
        self._expect(response, 201, start)
        return digest

    def put_manifest(self, repository: str, reference: str, body: bytes, media_type: str) -> str:
        url = f"{self.url}/v2/{repository}/manifests/{reference}"
        response = self._send(
            "PUT", url, repository, "pull,push", {"Content-Type": media_type}, body
        )
        self._expect(response, 201, url)
        return "sha256:" + hashlib.sha256(body).hexdigest()

    # -- auth -------------------------------------------------------------------------------

    def _send(
        self,
        method: str,
        url: str,
        repository: str,
        actions: str,
        headers: dict[str, str],
        body: bytes | None = None,
        stream: bool = False,
    ) -> httpx.Response:
        import httpx

        scope = f"repository:{repository}:{actions}"
        for attempt in range(2):
            sent = dict(headers)
            with self._lock:
                known = self._auth.get(scope)
            if known is not None:
                sent["Authorization"] = known
            try:
                request = self.client.build_request(method, url, headers=sent, content=body)
                response = self.client.send(request, stream=stream)
            except httpx.HTTPError as exc:
                raise RegistryError(
                    url, f"the registry did not answer ({type(exc).__name__})"
                ) from None
            if response.status_code != 401 or attempt:
                return response
            challenge = response.headers.get("www-authenticate", "")
            response.close()
            value = self._authorize(challenge, scope, url)
            with self._lock:
                self._auth[scope] = value
        raise AssertionError("unreachable")

    def credential(self) -> Credential | None:
        with self._lock:
            if not self._looked_up:
                self._credential = self._find_credential(self.registry)
                self._looked_up = True
            return self._credential

    def _authorize(self, challenge: str, scope: str, url: str) -> str:
        kind, _, rest = challenge.strip().partition(" ")
        params = dict(_CHALLENGE.findall(rest))
        credential = self.credential()
        if kind.lower() == "basic":
            if credential is None:
                raise self._refused(url, None)
            return _basic(credential)
        if kind.lower() != "bearer" or "realm" not in params:
            raise RegistryError(url, f"the registry asks for auth metapkg does not speak: {kind!r}")
        realm = params["realm"]
        query = {"service": params.get("service", self.registry)}
        query["scope"] = params.get("scope", scope)
        headers = {}
        if credential is not None and _may_send(realm, self.registry):
            headers["Authorization"] = _basic(credential)
        import httpx

        try:
            response = self.client.get(realm, params=query, headers=headers)
        except httpx.HTTPError as exc:
            raise RegistryError(
                realm, f"the token service did not answer ({type(exc).__name__})"
            ) from None
        if response.status_code in (401, 403):
            raise self._refused(url, credential)
        self._expect(response, 200, realm)
        try:
            data = response.json()
            token = data.get("token") or data.get("access_token")
        except (ValueError, AttributeError):
            token = None
        if not isinstance(token, str) or not token:
            raise RegistryError(realm, "the token service's answer holds no token")
        return f"Bearer {token}"

    def _refused(self, url: str, credential: Credential | None) -> RegistryError:
        from metapkg.fetch.oci.credentials import variable

        if credential is None:
            how = (
                f"no credential was found; set {variable(self.registry)} (user:password) "
                f"or log in with `docker login {self.registry}`"
            )
        else:
            how = f"the credential from {credential.source} was refused"
        return RegistryError(url, f"the registry wants a login and {how}", rule="auth")

    def _expect(self, response: httpx.Response, status: int, url: str) -> None:
        if response.status_code == status or (status == 200 and response.status_code == 200):
            return
        if response.status_code in (401, 403):
            raise self._refused(url, self.credential())
        raise RegistryError(
            url, f"unexpected answer from the registry (HTTP {response.status_code})"
        )


def _basic(credential: Credential) -> str:
    pair = f"{credential.username}:{credential.secret}".encode()
    return "Basic " + base64.b64encode(pair).decode("ascii")


def _next_page(header: str, current: str) -> str | None:
    """The rel="next" URL of a Link header, resolved against the current page."""
    for part in header.split(","):
        target, _, params = part.partition(";")
        if 'rel="next"' in params:
            return urljoin(current, target.strip().strip("<>"))
    return None


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def _may_send(realm: str, registry: str) -> bool:
    """May the registry's credential go to this token realm? Its host, or a host under
    the same parent domain (``auth.docker.io`` beside ``registry-1.docker.io``), over
    HTTPS unless the registry itself is plain (loopback)."""
    import ipaddress

    parts = urlsplit(realm)
    host = (parts.hostname or "").lower()
    registry_host = (urlsplit(f"//{registry}").hostname or "").lower()
    if parts.netloc.lower() == registry.lower():
        return True
    try:
        ipaddress.ip_address(registry_host)
        return False  # an address has no sibling hosts
    except ValueError:
        pass
    if parts.scheme != "https" or "." not in registry_host:
        return False
    parent = registry_host.split(".", 1)[1] if registry_host.count(".") >= 2 else registry_host
    return host == parent or host.endswith(f".{parent}")
