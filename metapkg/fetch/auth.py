"""The GitHub token: from GITHUB_TOKEN / GH_TOKEN, else the OS keyring.

The token is only ever put in an Authorization header for the API host. It is never
printed, logged, or written to the lock or the cache.

Importing keyring and finding its backend costs ~200 ms, so it is only consulted when
`metapkg auth login` has stored a token: login leaves a marker file (no secret in it) in
metapkg's config folder, and logout removes it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from metapkg import redact

SERVICE = "metapkg"
ACCOUNT = "github"
ENV_VARS = ("GITHUB_TOKEN", "GH_TOKEN")


class KeyringUnavailable(Exception):
    """No usable keyring backend on this machine; the message says so plainly."""


@dataclass(frozen=True)
class Token:
    value: str
    source: str  # "GITHUB_TOKEN", "GH_TOKEN" or "keyring"

    def __repr__(self) -> str:  # never show the secret, even in a traceback
        return f"Token(source={self.source!r})"


class BadToken(ValueError):
    """The token holds characters no GitHub token has (the message never shows it)."""


def checked(value: str, source: str) -> Token:
    """A token as GitHub issues them: printable ASCII without spaces. Anything else (a
    pasted newline, a non-ASCII quote) would end up in an HTTP error message, token and
    all, so it is refused here, naming where it came from but never what it is."""
    if not value.isascii() or not value.isprintable() or any(c.isspace() for c in value):
        raise BadToken(
            f"the GitHub token from {source} contains a space, line break, control or "
            f"non-ASCII character; set it to the token alone"
        )
    redact.remember(value)  # masked in every message from now on, whatever its shape
    return Token(value, source)


def from_environment() -> Token | None:
    for name in ENV_VARS:
        value = os.environ.get(name, "").strip()
        if value:
            return checked(value, name)
    return None


def _marker() -> Path:
    from metapkg import settings

    return settings.config_dir() / "token-in-keyring"


def find() -> Token | None:
    """The token to use, or None (anonymous, with GitHub's lower rate limit)."""
    token = from_environment()
    if token is not None or not _marker().exists():
        return token
    try:
        value = _call("get_password", SERVICE, ACCOUNT)
    except KeyringUnavailable:
        return None
    return checked(value.strip(), "the OS keyring") if isinstance(value, str) and value else None


def store(value: str) -> None:
    _call("set_password", SERVICE, ACCOUNT, value)
    marker = _marker()
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.write_text("A GitHub token for metapkg is stored in the OS keyring.\n")


def delete() -> bool:
    """Remove the stored token; False when there was none."""
    from keyring.errors import PasswordDeleteError

    _marker().unlink(missing_ok=True)
    try:
        _call("delete_password", SERVICE, ACCOUNT)
    except PasswordDeleteError:
        return False
    return True


def _call(name: str, *args: str) -> object:
    """Call a keyring function; a missing or failing backend becomes KeyringUnavailable."""
    import keyring
    from keyring.backends import fail
    from keyring.errors import KeyringError, PasswordDeleteError

    if isinstance(keyring.get_keyring(), fail.Keyring):
        raise KeyringUnavailable(
            "no OS keyring is available on this machine (no Secret Service, Keychain or "
            "Credential Manager); set GITHUB_TOKEN or GH_TOKEN instead"
        )
    try:
        return getattr(keyring, name)(*args)
    except PasswordDeleteError:
        raise
    except KeyringError as exc:
        raise KeyringUnavailable(
            f"the OS keyring failed ({exc}); set GITHUB_TOKEN instead"
        ) from None
