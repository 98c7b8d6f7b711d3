"""Origins: where a package comes from, parsed and normalised by its scheme.

The registry of origin schemes (``SCHEMES``): each claims a family of strings and parses
them (metapkg/schemes/: ``github``, ``git`` for any other forge, ``file``, and ``mcp`` for
a server of the MCP Registry, ``oci`` for a package in an OCI registry). The rest of
metapkg uses origins only through the :class:`Origin` protocol; adding a scheme is a
module in metapkg/schemes and one entry here (and its source in metapkg/fetch/sources.py).

Parsing is pure: no filesystem or network access.
"""

from __future__ import annotations

from pathlib import Path

from metapkg.redact import redact
from metapkg.schemes.base import Origin, OriginScheme, OriginSyntaxError, refuse_credentials
from metapkg.schemes.file import FileOrigin, FileScheme
from metapkg.schemes.git import GitOrigin, GitScheme
from metapkg.schemes.github import GitHubOrigin, GitHubScheme
from metapkg.schemes.mcp import McpRegistryOrigin, McpScheme, parse_mcp
from metapkg.schemes.oci import OciOrigin, OciScheme

__all__ = [
    "ACCEPTED_FORMS",
    "SCHEMES",
    "FileOrigin",
    "GitHubOrigin",
    "GitOrigin",
    "McpRegistryOrigin",
    "OciOrigin",
    "Origin",
    "OriginScheme",
    "OriginSyntaxError",
    "join_range",
    "parse_mcp",
    "parse_origin",
    "refuse_credentials",
    "split_range",
]

# First claim wins: GitHub's own URLs before the other forges' folder pages.
SCHEMES: tuple[OriginScheme, ...] = (
    GitHubScheme(),
    GitScheme(),
    McpScheme(),
    OciScheme(),
    FileScheme(),
)

_FORMS = [form for scheme in SCHEMES for form in scheme.forms]
ACCEPTED_FORMS = ", ".join(_FORMS[:-1]) + " or " + _FORMS[-1]


def scheme_of(text: str) -> OriginScheme | None:
    stripped = text.strip()
    return next((scheme for scheme in SCHEMES if scheme.claims(stripped)), None)


def split_range(text: str) -> tuple[str, str | None]:
    """``https://github.com/.../tree/main/skills/x#^1.2`` -> (the URL, ``^1.2``).

    A version range rides on a remote origin (a fragment, or ``&range=`` in a pip-style
    git URL's fragment), so a dependency stays one string that is still a valid URL."""
    scheme = scheme_of(text)
    if scheme is None:
        return text, None
    return scheme.split_range(text)


def join_range(origin: str, spec: str) -> str:
    """The inverse of :func:`split_range`: ``origin`` with the range ``spec`` on it."""
    scheme = scheme_of(origin)
    join = getattr(scheme, "join_range", None)
    return join(origin, spec) if join is not None else f"{origin}#{spec}"


def parse_origin(text: object, base_dir: Path | None = None) -> Origin:
    """Parse and normalise an origin string.

    ``base_dir`` is given only for the project manifest: it allows ``file:./relative`` paths
    and is the folder they are relative to.
    """
    if not isinstance(text, str):
        raise OriginSyntaxError(
            f"an origin must be a string, got {type(text).__name__}; use {ACCEPTED_FORMS}"
        )
    stripped = text.strip()
    scheme = scheme_of(stripped)
    if scheme is None:
        if stripped.lower().startswith(("https://", "http://")):
            refuse_credentials(stripped)
            raise OriginSyntaxError(
                f"unsupported origin {redact(text)!r}: not a GitHub tree URL nor a folder "
                f"page of a forge metapkg knows; use {ACCEPTED_FORMS}"
            )
        raise OriginSyntaxError(f"unsupported origin {redact(text)!r}; use {ACCEPTED_FORMS}")
    try:
        return scheme.parse(stripped, base_dir)
    except OriginSyntaxError as exc:
        if scheme.name in ("file", "mcp", "oci"):
            raise  # their messages name their own forms
        raise OriginSyntaxError(f"{exc}; use {ACCEPTED_FORMS}") from None
