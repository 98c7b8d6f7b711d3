"""Credentials never reach output: every message metapkg prints passes through here.

Masked, wherever they appear in a message:

* the user information of a URL: ``https://user:TOKEN@github.com/x`` becomes
  ``https://***@github.com/x`` (a token may stand as the user name alone, so all of it
  goes), and so does ``user:TOKEN@host`` written without a scheme;
* GitHub's token shapes (``ghp_``, ``gho_``, ``ghu_``, ``ghs_``, ``ghr_``, ``github_pat_``);
* the token metapkg itself uses (``GITHUB_TOKEN``, ``GH_TOKEN``, or the keyring's, once
  read): its exact value, whatever its shape.

The origin parsers refuse credentials in a source with their own clear error; this module
is the backstop for every other path a URL or a token could take into a message (a
fetch error quoting a URL, an exception's text). Light on purpose: it runs on every
command's path.
"""

from __future__ import annotations

import os
import re

MASK = "***"
TOKEN_VARIABLES = ("GITHUB_TOKEN", "GH_TOKEN")
_SHORTEST_SECRET = 8  # shorter values are too likely to be ordinary words to mask

# scheme://userinfo@ : userinfo is anything up to the @ that is not /, ?, #, @ or space.
_URL_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/?#@\s]+@")
# user:password@host with no scheme (the form git's credential store shows).
_BARE_USERINFO = re.compile(r"(?<![\w.:/@-])[\w.%+-]+:[^/?#@\s:]+@(?=[\w.-]+\.[a-z]{2,})", re.I)
_GITHUB_TOKEN = re.compile(r"\b(gh[pousr]_|github_pat_)[A-Za-z0-9_]{16,}")

_known: set[str] = set()


def remember(secret: str) -> None:
    """A secret metapkg holds (the keyring's token): masked in every later message."""
    if len(secret) >= _SHORTEST_SECRET:
        _known.add(secret)


def _secrets() -> list[str]:
    found = set(_known)
    for name in TOKEN_VARIABLES:
        value = os.environ.get(name, "").strip()
        if len(value) >= _SHORTEST_SECRET:
            found.add(value)
    return sorted(found, key=len, reverse=True)  # a longer secret before its prefix


def redact(text: str) -> str:
    """``text`` with every credential it holds replaced by ``***``."""
    if "@" in text:
        text = _URL_USERINFO.sub(rf"\1{MASK}@", text)
        text = _BARE_USERINFO.sub(f"{MASK}@", text)
    if "_" in text:
        text = _GITHUB_TOKEN.sub(rf"\1{MASK}", text)
    for secret in _secrets():
        if secret in text:
            text = text.replace(secret, MASK)
    return text
