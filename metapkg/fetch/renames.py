"""Renamed repositories: GitHub answers for the old name with a 301 to the new one.

Without this, a graph that names one repository both ways (a package still depending on
``acme/old-name`` beside one on ``acme/new-name``) downloaded, cached and pinned it
twice. The first answer that arrives through a redirect teaches the run the new name:
trees, downloads and pins are keyed by it from then on (one archive, one pin), and the
run warns that the old name should be replaced, since GitHub keeps the redirect only
until someone creates a repository under the old name. The lock records the renames a
run went through (``renamed``), and the next run starts from them: the old name finds
the new name's pin without asking GitHub (``--frozen`` needs that).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from urllib.parse import unquote, urlsplit

from metapkg.diagnostics import Diagnostic, warning

_API_PATH = re.compile(r"/repos/([^/]+)/([^/]+)(?:/|$)")
_WEB_PATH = re.compile(r"/([^/]+)/([^/]+?)(?:\.git)?/(?:info/refs|archive/)")


def repository_in(url: str) -> str | None:
    """``owner/name`` of a REST API or web-host URL (under any base path), else None."""
    path = urlsplit(url).path
    found = _API_PATH.search(path) or _WEB_PATH.search(path)
    return f"{unquote(found[1])}/{unquote(found[2])}" if found else None


class Renames:
    """What this run learned: old ``owner/name`` -> the name GitHub redirected to."""

    def __init__(self, known: Iterable[tuple[str, str]] = ()) -> None:
        """``known``: (old, new) pairs from the lock."""
        self._lock = threading.Lock()
        self._to: dict[str, str] = dict(known)
        self._used: set[str] = set()  # old names this run asked for

    def learn(self, asked: str, answered_url: str) -> None:
        """``asked`` was requested; the reply came from ``answered_url`` (after redirects)."""
        found = repository_in(answered_url)
        if found is not None and found.lower() != asked.lower():
            with self._lock:
                self._to.setdefault(asked, found)
                self._used.add(asked)

    def canonical(self, repo: str) -> str:
        """The name trees, downloads and pins are kept under."""
        with self._lock:
            new = self._to.get(repo)
            if new is None:
                return repo
            self._used.add(repo)
            return new

    def used(self) -> list[tuple[str, str]]:
        """(old, new) of every rename this run went through, for the lock."""
        with self._lock:
            return sorted((old, self._to[old]) for old in self._used)

    def warnings(self) -> list[Diagnostic]:
        renamed = self.used()
        return [
            warning(
                "repo-renamed",
                f"https://github.com/{old}",
                f"{old} was renamed to {new} on GitHub; it was fetched once under the new "
                f"name. Replace {old} with {new} in metapkg.yaml (or ask the package that "
                f"depends on it to): the redirect lasts only until the old name is taken",
            )
            for old, new in renamed
        ]
