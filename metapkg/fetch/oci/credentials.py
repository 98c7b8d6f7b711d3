"""Registry credentials, found per registry host, never lent to another.

In order: ``METAPKG_TOKEN_<HOST>`` (``user:password``, or a token alone, sent as the
password of user ``metapkg``), then Docker's config (``$DOCKER_CONFIG/config.json`` or
``~/.docker/config.json``): a ``credHelpers`` entry for the host, its ``auths`` entry
(base64 ``user:password``, or an ``identitytoken``), then the ``credsStore`` helper. A
helper is the program ``docker-credential-NAME``, asked with ``get`` and the host on
stdin, as Docker asks it. Last, the OS keyring: service ``metapkg``, account the host
(as for git forges: ``keyring set metapkg HOST``), a token sent as user ``metapkg``'s
password.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

HELPER_TIMEOUT = 15.0


@dataclass(frozen=True)
class Credential:
    username: str
    secret: str
    source: str  # where it came from, for messages (never the secret)
    identity_token: bool = False  # an OAuth refresh token for the token endpoint

    def __repr__(self) -> str:  # never show the secret, even in a traceback
        return f"Credential(source={self.source!r})"


def variable(host: str) -> str:
    """``METAPKG_TOKEN_<HOST>``: the host uppercased, anything not a letter or digit ``_``
    (``registry.example.com:5000`` -> ``METAPKG_TOKEN_REGISTRY_EXAMPLE_COM_5000``)."""
    return "METAPKG_TOKEN_" + re.sub(r"[^A-Z0-9]", "_", host.upper())


def find(host: str) -> Credential | None:
    name = variable(host)
    value = os.environ.get(name, "").strip()
    if value:
        user, colon, secret = value.partition(":")
        return Credential(user, secret, name) if colon else Credential("metapkg", value, name)
    return from_docker_config(host) or from_keyring(host)


def from_keyring(host: str) -> Credential | None:
    """The keyring's token for ``host`` (imported only when nothing else had one: probing
    keyring backends costs ~200 ms)."""
    from metapkg.fetch.credentials import SERVICE

    try:
        import keyring

        value = keyring.get_password(SERVICE, host)
    except Exception:  # no usable backend is no credential, as for git forges
        return None
    if not value or not value.strip():
        return None
    user, colon, secret = value.strip().partition(":")
    return Credential(user, secret, "keyring") if colon else Credential("metapkg", user, "keyring")


def docker_config_path() -> Path:
    folder = os.environ.get("DOCKER_CONFIG")
    return Path(folder) / "config.json" if folder else Path.home() / ".docker" / "config.json"


def from_docker_config(host: str) -> Credential | None:
    path = docker_config_path()
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    if not isinstance(config, dict):
        return None
    helpers = config.get("credHelpers")
    if isinstance(helpers, dict) and isinstance(helpers.get(host), str):
        return from_helper(helpers[host], host)
    auths = config.get("auths")
    entry = _auth_entry(auths, host) if isinstance(auths, dict) else None
    if entry is not None:
        found = _from_entry(entry, str(path))
        if found is not None:
            return found
    store = config.get("credsStore")
    return from_helper(store, host) if isinstance(store, str) and store else None


def _auth_entry(auths: dict[str, object], host: str) -> dict[str, object] | None:
    """The ``auths`` entry of ``host``, keyed by the host or by a URL on it."""
    for key, entry in auths.items():
        bare = re.sub(r"^https?://", "", key).split("/", 1)[0].lower()
        if bare == host and isinstance(entry, dict):
            return entry
    return None


def _from_entry(entry: dict[str, object], source: str) -> Credential | None:
    token = entry.get("identitytoken")
    if isinstance(token, str) and token:
        return Credential("<token>", token, source, identity_token=True)
    encoded = entry.get("auth")
    if not isinstance(encoded, str) or not encoded:
        return None
    try:
        user, colon, secret = base64.b64decode(encoded).decode("utf-8").partition(":")
    except (ValueError, UnicodeDecodeError):
        return None
    return Credential(user, secret, source) if colon else None


def from_helper(name: str, host: str) -> Credential | None:
    """Ask ``docker-credential-NAME get`` for ``host``; None when it has nothing."""
    program = shutil.which(f"docker-credential-{name}")
    if program is None or not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
        return None
    try:
        done = subprocess.run(
            [program, "get"],
            input=host,
            capture_output=True,
            text=True,
            timeout=HELPER_TIMEOUT,
            check=False,
        )
        answer = json.loads(done.stdout) if done.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired, ValueError):
        return None
    if not isinstance(answer, dict):
        return None
    user, secret = answer.get("Username"), answer.get("Secret")
    if not isinstance(user, str) or not isinstance(secret, str) or not secret:
        return None
    source = f"docker-credential-{name}"
    return Credential(user, secret, source, identity_token=user == "<token>")
