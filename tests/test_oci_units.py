"""The OCI pieces on their own: references and mirror names, credentials (found per
host, never lent to another), the deterministic layer, the manifest checks, and the
bearer-token challenge against a loopback token service."""

from __future__ import annotations

import base64
import hashlib
import http.server
import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest
from conftest import make_skill

from metapkg.fetch.oci import artifact, credentials
from metapkg.fetch.oci.client import Registry, RegistryError, _may_send
from metapkg.fetch.oci.reference import BadReference, base_url, parse, parse_namespace

# -- references ---------------------------------------------------------------------------


def test_references_parse_with_tag_digest_and_port() -> None:
    ref = parse("oci://Registry.Example.com:5000/team/skills/review:1.2.0")
    assert (ref.registry, ref.repository, ref.tag) == (
        "registry.example.com:5000",
        "team/skills/review",
        "1.2.0",
    )
    digest = "sha256:" + "a" * 64
    pinned = parse(f"oci://ghcr.io/acme/review@{digest}")
    assert pinned.digest == digest and pinned.reference == digest
    assert str(pinned) == f"oci://ghcr.io/acme/review@{digest}"


@pytest.mark.parametrize(
    "text",
    [
        "https://ghcr.io/acme/x:1",
        "oci://ghcr.io",
        "oci://ghcr.io/Acme/x:1",
        "oci://ghcr.io/acme/x:bad tag",
        "oci://ghcr.io/acme/x@sha256:short",
        "oci://bad host/x",
    ],
)
def test_bad_references_say_what_is_wrong(text: str) -> None:
    with pytest.raises(BadReference, match=r"oci|repository|tag|digest|registry"):
        parse(text)


def test_mirror_names_come_from_the_lock_entry_alone() -> None:
    space = parse_namespace("oci://127.0.0.1:5000/fleet/")
    integrity = "sha256:" + "0123456789abcdef" * 4
    where = space.locate("mcp", "io.github.Acme/Weather_Server", integrity)
    assert where.repository == "fleet/mcp/io-github-acme/weather-server"
    assert where.tag == "sha256-" + "0123456789abcdef" * 4
    assert where == space.locate("mcp", "io.github.Acme/Weather_Server", integrity)
    assert parse_namespace("oci://ghcr.io").locate("skill", "x", integrity).repository == "skill/x"


def test_plain_http_only_on_loopback() -> None:
    assert base_url("127.0.0.1:5000") == "http://127.0.0.1:5000"
    assert base_url("localhost:5000") == "http://localhost:5000"
    assert base_url("ghcr.io") == "https://ghcr.io"
    assert base_url("127.0.0.1.evil.com") == "https://127.0.0.1.evil.com"


# -- credentials --------------------------------------------------------------------------


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in list(os.environ):
        if name.startswith("METAPKG_TOKEN_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("DOCKER_CONFIG", str(tmp_path / "docker"))
    (tmp_path / "docker").mkdir()
    return tmp_path / "docker"


def _config(home: Path, data: dict[str, object]) -> None:
    (home / "config.json").write_text(json.dumps(data))


def test_the_variable_is_per_host(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert credentials.variable("registry.example.com:5000") == (
        "METAPKG_TOKEN_REGISTRY_EXAMPLE_COM_5000"
    )
    monkeypatch.setenv("METAPKG_TOKEN_GHCR_IO", "bot:tok")
    found = credentials.find("ghcr.io")
    assert found is not None and (found.username, found.secret) == ("bot", "tok")
    assert "tok" not in repr(found)
    assert credentials.find("registry.example.com") is None
    monkeypatch.setenv("METAPKG_TOKEN_GHCR_IO", "bare-token")
    bare = credentials.find("ghcr.io")
    assert bare is not None and (bare.username, bare.secret) == ("metapkg", "bare-token")


def test_docker_auths_are_read_for_their_host_only(home: Path) -> None:
    auth = base64.b64encode(b"ci:pw").decode()
    _config(home, {"auths": {"https://registry.example.com": {"auth": auth}}})
    found = credentials.find("registry.example.com")
    assert found is not None and (found.username, found.secret) == ("ci", "pw")
    assert credentials.find("other.example.com") is None


def test_credential_helpers_are_asked_by_host(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    helper = bin_dir / "docker-credential-fake"
    helper.write_text(
        "#!/bin/sh\nread host\n"
        'if [ "$1" = get ] && [ "$host" = reg.example.com ]; then\n'
        '  echo \'{"Username": "helper-user", "Secret": "helper-secret"}\'\n'
        "else echo 'credentials not found' >&2; exit 1; fi\n"
    )
    helper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    _config(home, {"credHelpers": {"reg.example.com": "fake"}})
    found = credentials.find("reg.example.com")
    assert found is not None and found.secret == "helper-secret"
    assert found.source == "docker-credential-fake"
    assert credentials.find("else.example.com") is None  # no helper for it, no store
    _config(home, {"credsStore": "fake"})
    assert credentials.find("else.example.com") is None  # the store says it has none
    stored = credentials.find("reg.example.com")
    assert stored is not None and stored.username == "helper-user"


def test_a_token_realm_gets_the_credential_only_on_its_registrys_host() -> None:
    assert _may_send("https://ghcr.io/token", "ghcr.io")
    assert _may_send("https://auth.docker.io/token", "registry-1.docker.io")
    assert not _may_send("https://evil.example/token", "ghcr.io")
    assert not _may_send("http://auth.docker.io/token", "registry-1.docker.io")
    assert _may_send("http://127.0.0.1:5000/token", "127.0.0.1:5000")
    assert not _may_send("http://127.0.0.2:5000/token", "127.0.0.1:5000")
    assert not _may_send("https://1.0.0.1/token", "127.0.0.1")


# -- the artifact -------------------------------------------------------------------------


def test_the_layer_is_deterministic(tmp_path: Path) -> None:
    one = make_skill(tmp_path / "a", "same", files={"bin/run.sh": "echo hi\n"})
    two = make_skill(tmp_path / "b", "same", files={"bin/run.sh": "echo hi\n"})
    (two / "bin/run.sh").chmod(0o755)
    (one / "bin/run.sh").chmod(0o755)
    os.utime(two / "SKILL.md", (1, 1))
    facts = artifact.Facts("skill", "acme/same", "sha256:" + "0" * 64)
    first, second = artifact.build(one, facts), artifact.build(two, facts)
    assert first.layer == second.layer and first.digest == second.digest
    parsed = artifact.parse_manifest(first.manifest)
    assert parsed.layer_digest == "sha256:" + hashlib.sha256(first.layer).hexdigest()
    assert artifact.parse_config(first.config) == facts


def test_a_manifest_of_another_kind_is_refused() -> None:
    image = {
        "schemaVersion": 2,
        "config": {"mediaType": "application/vnd.oci.image.config.v1+json"},
    }
    with pytest.raises(artifact.BadArtifact, match="artifactType"):
        artifact.parse_manifest(json.dumps(image).encode())


# -- bearer tokens ------------------------------------------------------------------------


class _TokenRegistry(http.server.BaseHTTPRequestHandler):
    """A registry that asks for a bearer token from a realm on its own host."""

    seen: ClassVar[list[tuple[str, str | None]]] = []
    realm: ClassVar[str | None] = None  # the token service's host:port (default: this registry)

    def do_GET(self) -> None:
        _TokenRegistry.seen.append((self.path, self.headers.get("Authorization")))
        if self.path.startswith("/token"):
            good = "Basic " + base64.b64encode(b"ci:pw").decode()
            if self.headers.get("Authorization") != good:
                self._send(401, b"{}")
                return
            self._send(200, json.dumps({"token": "T0KEN"}).encode())
            return
        if self.headers.get("Authorization") != "Bearer T0KEN":
            host = _TokenRegistry.realm or self.headers["Host"]
            challenge = (
                f'Bearer realm="http://{host}/token",service="test",scope="repository:team/x:pull"'
            )
            self._send(401, b"{}", {"WWW-Authenticate": challenge})
            return
        self._send(200, b'{"manifest": true}')

    def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def token_registry() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _TokenRegistry)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _TokenRegistry.seen = []
    _TokenRegistry.realm = None
    try:
        yield f"127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_a_bearer_challenge_gets_a_token_with_the_credential(token_registry: str) -> None:
    found = credentials.Credential("ci", "pw", "test")
    registry = Registry(token_registry, credential=lambda host: found)
    try:
        got = registry.manifest("team/x", "1.0", artifact.MANIFEST_TYPE)
        assert got is not None and got[0] == b'{"manifest": true}'
        registry.manifest("team/x", "1.0", artifact.MANIFEST_TYPE)  # the token is reused
    finally:
        registry.close()
    paths = [path for path, _ in _TokenRegistry.seen]
    assert paths.count("/token?service=test&scope=repository%3Ateam%2Fx%3Apull") == 1


def test_a_refused_login_is_an_auth_error_naming_the_variable(token_registry: str) -> None:
    registry = Registry(token_registry, credential=lambda host: None)
    try:
        with pytest.raises(RegistryError) as caught:
            registry.manifest("team/x", "1.0", artifact.MANIFEST_TYPE)
    finally:
        registry.close()
    assert caught.value.diagnostics[0].rule == "auth"
    assert credentials.variable(token_registry) in caught.value.message


def test_a_token_realm_on_another_host_never_gets_the_credential(token_registry: str) -> None:
    elsewhere = http.server.ThreadingHTTPServer(("127.0.0.2", 0), _TokenRegistry)
    threading.Thread(target=elsewhere.serve_forever, daemon=True).start()
    _TokenRegistry.realm = f"127.0.0.2:{elsewhere.server_address[1]}"
    found = credentials.Credential("ci", "pw", "test")
    registry = Registry(token_registry, credential=lambda host: found)
    try:
        with pytest.raises(RegistryError):
            registry.manifest("team/x", "1.0", artifact.MANIFEST_TYPE)
    finally:
        registry.close()
        elsewhere.shutdown()
        elsewhere.server_close()
    asked = [auth for path, auth in _TokenRegistry.seen if path.startswith("/token")]
    assert asked == [None]  # the realm was asked, without the registry's credential


class _Storage(http.server.BaseHTTPRequestHandler):
    """Blob storage on another host, as registries redirect blob downloads to S3."""

    seen: ClassVar[list[str | None]] = []
    body = b"layer bytes"

    def do_GET(self) -> None:
        _Storage.seen.append(self.headers.get("Authorization"))
        self.send_response(200)
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, *args: object) -> None:
        pass


class _BasicRegistry(http.server.BaseHTTPRequestHandler):
    storage = ""

    def do_GET(self) -> None:
        if self.headers.get("Authorization") is None:
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="test"')
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(307)
        self.send_header("Location", f"http://{_BasicRegistry.storage}/bucket/blob")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


def test_a_blob_redirected_to_storage_elsewhere_goes_there_without_the_credential(
    tmp_path: Path,
) -> None:
    storage = http.server.ThreadingHTTPServer(("127.0.0.2", 0), _Storage)
    registry_server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _BasicRegistry)
    for server in (storage, registry_server):
        threading.Thread(target=server.serve_forever, daemon=True).start()
    _BasicRegistry.storage = f"127.0.0.2:{storage.server_address[1]}"
    _Storage.seen = []
    host = f"127.0.0.1:{registry_server.server_address[1]}"
    found = credentials.Credential("ci", "pw", "test")
    registry = Registry(host, credential=lambda asked: found if asked == host else None)
    digest = "sha256:" + hashlib.sha256(_Storage.body).hexdigest()
    try:
        registry.blob("team/x", digest, tmp_path / "blob", 1024)
    finally:
        registry.close()
        for server in (storage, registry_server):
            server.shutdown()
            server.server_close()
    assert (tmp_path / "blob").read_bytes() == _Storage.body
    assert _Storage.seen == [None]


def test_the_keyring_is_asked_last_and_for_its_host_only(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import keyring
    from keyring_backend import FileKeyring

    monkeypatch.setenv("METAPKG_TEST_KEYRING", str(tmp_path / "keyring.json"))
    before = keyring.get_keyring()
    keyring.set_keyring(FileKeyring())
    try:
        keyring.set_password("metapkg", "registry.example.com", "kr-token")
        found = credentials.find("registry.example.com")
        assert found is not None and (found.username, found.secret, found.source) == (
            "metapkg", "kr-token", "keyring",
        )  # fmt: skip
        assert credentials.find("other.example.com") is None
        auth = base64.b64encode(b"ci:pw").decode()
        _config(home, {"auths": {"registry.example.com": {"auth": auth}}})
        docker = credentials.find("registry.example.com")  # Docker's config comes first
        assert docker is not None and docker.secret == "pw"
    finally:
        keyring.set_keyring(before)
