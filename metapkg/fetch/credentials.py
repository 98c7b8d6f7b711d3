"""Credentials for git forges other than GitHub, one host at a time.

Looked for only when a host refuses an anonymous request (401), in this order:

1. git's own credential helpers: ``git credential fill`` with ``protocol`` and ``host``
   (whatever the user configured: the OS store, Git Credential Manager, ``store``),
   never prompting;
2. ``METAPKG_TOKEN_<HOST>``: the host upper-cased, every character other than a letter
   or digit written ``_`` (``gitlab.example.com:8443`` -> ``METAPKG_TOKEN_GITLAB_EXAMPLE_
   COM_8443``); ``user:token`` sets the user name, else the token is the password of
   ``x-access-token`` (GitLab, Gitea, Forgejo and Azure DevOps accept any user name);
3. the OS keyring: service ``metapkg``, account the host.

A credential is only ever sent to the origin (scheme, host and port) it was found for,
and its secret is remembered by :mod:`metapkg.redact`, so no message shows it.
"""

from __future__ import annotations

import base64
import os
import re
import subprocess
from dataclasses import dataclass

from metapkg import redact

SERVICE = "metapkg"
TOKEN_USER = "x-access-token"
_NOT_ALNUM = re.compile(r"[^A-Z0-9]")
_HELPER_TIMEOUT = 30.0


@dataclass(frozen=True)
class Credential:
    user: str
    secret: str
    source: str  # "git credential", "METAPKG_TOKEN_...", "keyring"

    def __repr__(self) -> str:  # never the secret, even in a traceback
        return f"Credential(user={self.user!r}, source={self.source!r})"

    def authorization(self) -> str:
        pair = f"{self.user}:{self.secret}".encode()
        return "Basic " + base64.b64encode(pair).decode("ascii")


def env_name(host: str) -> str:
    return "METAPKG_TOKEN_" + _NOT_ALNUM.sub("_", host.upper())


def find(protocol: str, host: str) -> Credential | None:
    """The credential for ``protocol://host``, or None (see the module's docstring)."""
    for look in (_from_git, _from_environment, _from_keyring):
        found = look(protocol, host)
        if found is not None and _usable(found.user) and _usable(found.secret):
            redact.remember(found.secret)
            return found
    return None


def _usable(value: str) -> bool:
    """Printable ASCII without spaces: anything else could break a header or a message."""
    return bool(value) and value.isascii() and value.isprintable() and " " not in value


def _from_git(protocol: str, host: str) -> Credential | None:
    from metapkg.fetch.sparse import find_git

    git = find_git()
    if git is None:
        return None
    env = {
        **os.environ,
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_ASKPASS": "",
        "SSH_ASKPASS": "",
        "GCM_INTERACTIVE": "never",
    }
    try:
        done = subprocess.run(
            [
                git,
                "-c",
                "credential.interactive=false",
                "-c",
                "core.askPass=",
                "credential",
                "fill",
            ],
            input=f"protocol={protocol}\nhost={host}\n\n",
            capture_output=True,
            text=True,
            env=env,
            timeout=_HELPER_TIMEOUT,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None  # no helper knew it (git would have prompted: it may not)
    fields = dict(line.partition("=")[::2] for line in done.stdout.splitlines() if "=" in line)
    if fields.get("host", host) != host or not fields.get("password"):
        return None
    return Credential(fields.get("username") or TOKEN_USER, fields["password"], "git credential")


def _from_environment(protocol: str, host: str) -> Credential | None:
    name = env_name(host)
    value = os.environ.get(name, "").strip()
    if not value:
        return None
    user, sep, secret = value.partition(":")
    return Credential(user, secret, name) if sep else Credential(TOKEN_USER, value, name)


def _from_keyring(protocol: str, host: str) -> Credential | None:
    try:
        import keyring

        value = keyring.get_password(SERVICE, host)
    except Exception:
        return None
    return Credential(TOKEN_USER, value.strip(), "keyring") if value else None
