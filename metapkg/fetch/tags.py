"""Which git tags name versions of a package, and which version each names.

A repository of one package tags releases ``v1.2.3`` or ``1.2.3``. A catalog holding many
packages tags each package's releases on its own: ``<name>@1.2.3`` (changesets, lerna) or
``<name>/v1.2.3`` (Go modules, release-please). When a repository has any tag of the
package's own form, only those count for it; otherwise the plain tags do.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from metapkg.packages.semver import SemVer

_PLAIN = re.compile(r"^v?(?P<version>\d.*)$")


def package_tags(listed: Mapping[str, str], folder: str) -> list[tuple[SemVer, str]]:
    """(version, tag name) of every tag of the package in ``folder``, newest first; a
    version tagged twice (``v1.2.3`` and ``1.2.3``) keeps the first name in sort order."""
    own = [f"{folder}@", f"{folder}/"]
    scoped = [(name, name[len(p) :]) for name in listed for p in own if name.startswith(p)]
    pairs = scoped or [(name, name) for name in listed]
    found: dict[SemVer, str] = {}
    for name, rest in sorted(pairs):
        match = _PLAIN.match(rest)
        version = SemVer.parse(match.group("version")) if match else None
        if version is not None:
            found.setdefault(version, name)
    return sorted(
        ((v, n) for v, n in found.items()), key=lambda item: item[0].sort_key(), reverse=True
    )


def tag_version(name: str, folder: str) -> SemVer | None:
    """The version a tag names for the package in ``folder`` (None if it names none)."""
    for prefix in (f"{folder}@", f"{folder}/", ""):
        if name.startswith(prefix):
            match = _PLAIN.match(name[len(prefix) :])
            version = SemVer.parse(match.group("version")) if match else None
            if version is not None:
                return version
    return None
