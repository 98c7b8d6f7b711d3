"""What every origin scheme provides, and the errors parsing raises.

An *origin* is where a package comes from, parsed and normalised; an *origin scheme*
reads one family of pasted strings into origins. :mod:`metapkg.origins` keeps the
registry of schemes; the rest of metapkg only uses the :class:`Origin` protocol below, so
a new forge is one scheme module here, one source module in ``metapkg/fetch`` and a line
in each registry. Parsing is pure: no filesystem or network access.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from metapkg.redact import redact

_USERINFO = re.compile(r"^(?:git\+)?[a-z][a-z0-9+.-]*://[^/?#]*@", re.IGNORECASE)
_SSH_USERINFO = re.compile(r"^git\+ssh://git@", re.IGNORECASE)
GITHUB_HOST = "github.com"


class OriginSyntaxError(ValueError):
    """The text is not an origin metapkg accepts; the message says what is."""


class Origin(Protocol):
    """A parsed origin. Instances are immutable and compare by value."""

    @property
    def scheme(self) -> str:
        """The registry key of its scheme and of the source that fetches it."""
        ...

    @property
    def host(self) -> str:
        """The host pins name (``github.com``, ``gitlab.example.com:8443``); "" if local."""
        ...

    @property
    def is_local(self) -> bool: ...

    @property
    def local(self) -> Path | None:
        """The folder on this machine, for local origins."""
        ...

    @property
    def repo_id(self) -> str:
        """The repository on its host (``owner/repo``, ``group/sub/repo``); "" if local."""
        ...

    @property
    def repository(self) -> str:
        """Where the package lives, without the ref: what `diff` calls its repository."""
        ...

    @property
    def path_text(self) -> str:
        """The ref and path as written, for guessing a package's kind from it."""
        ...

    def lock_text(self, project: Path) -> str:
        """How the lock and the manifest write it."""
        ...

    def ref_keys(self) -> list[tuple[str, str]]:
        """Every (repository key, ref) this origin's ref could be: what a pin is found by
        (see ``RefPin.key``); empty for origins without refs."""
        ...

    def inside(self, relative: str, ref: str | None, base: str) -> Origin:
        """The origin of a package at ``relative`` under this origin's folder, which is
        ``base`` in its repository at ``ref`` (for ``add`` looking around a folder)."""
        ...

    def display_repository(self, written: str) -> str:
        """The repository as a title (``graph`` groups), with the case ``written`` has."""
        ...

    def __str__(self) -> str: ...


class OriginScheme(Protocol):
    """One family of origin strings: which texts it claims, how it reads them."""

    @property
    def name(self) -> str: ...

    @property
    def forms(self) -> Sequence[str]:
        """The accepted forms, for error messages."""
        ...

    def claims(self, text: str) -> bool:
        """Whether ``text`` (stripped) is of this scheme: then :meth:`parse` decides."""
        ...

    def parse(self, text: str, base_dir: Path | None) -> Origin: ...

    def split_range(self, text: str) -> tuple[str, str | None]:
        """The origin text and the version range riding on it, if any."""
        ...


def refuse_credentials(text: str) -> None:
    """A URL with ``user:TOKEN@`` in it is refused, and the message shows it masked: the
    token would otherwise be written into metapkg.yaml, the lock and every error. The
    ``git@`` of an ssh URL is a user name every forge uses, not a credential."""
    stripped = text.strip()
    if _USERINFO.match(stripped) and not _SSH_USERINFO.match(stripped):
        raise OriginSyntaxError(
            f"{redact(text)!r} has a user name or token in it (user:TOKEN@); metapkg never "
            f"keeps credentials in a source: remove them from the URL and set GITHUB_TOKEN "
            f"(or METAPKG_TOKEN_<HOST> for another forge) or run `metapkg auth login`"
        )
