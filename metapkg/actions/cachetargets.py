"""What `metapkg cache clean TARGET...` removes: one package's tree, or a repository's.

A target is a package of the project's lock (``acme/git-pr``, or its short name when
that is unique): its cached tree at the locked commit goes, and the next install
fetches just that entry again, leaving every other project's cache alone. Otherwise an
``owner/repo`` names a repository: every tree of it and the refs remembered for it.
"""

from __future__ import annotations

import re
from pathlib import Path

from metapkg.diagnostics import Diagnostic, MetapkgError, error
from metapkg.lock import format as lockfmt
from metapkg.origins import OriginSyntaxError, parse_origin

_REPOSITORY = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]*)/[A-Za-z0-9._-]+$")

Entry = tuple[str, str | None]  # (owner/repo, commit), or (owner/repo, None): all of it


def cache_entries(lock: lockfmt.Lockfile | None, targets: list[str]) -> list[Entry]:
    """The cache entries the targets name; an error naming every target that is neither a
    locked package from GitHub nor an ``owner/repo``."""
    packages = lock.packages if lock is not None else ()
    found: list[Entry] = []
    problems: list[Diagnostic] = []
    for target in targets:
        matches = [p for p in packages if p.fqn == target] or [
            p for p in packages if p.fqn.rsplit("/", 1)[-1] == target
        ]
        if len(matches) == 1 and matches[0].commit is not None:
            found.append((_repository(matches[0].origin), matches[0].commit))
        elif len(matches) == 1 and matches[0].origin.startswith("mcp:"):
            message = (
                f"{matches[0].fqn} is a server.json of the MCP Registry, cached by version "
                f"(a version never changes); `metapkg cache clean` with no target removes it"
            )
            problems.append(error("cache", target, message))
        elif len(matches) == 1:
            message = f"{matches[0].fqn} comes from a local folder; nothing of it is cached"
            problems.append(error("cache", target, message))
        elif _REPOSITORY.match(target) and ".." not in target:
            found.append((target, None))
        else:
            names = ", ".join(sorted(p.fqn for p in matches)) or "no package of metapkg.lock"
            problems.append(
                error(
                    "cache",
                    target,
                    f"names {names}; give a package's full name from metapkg.lock, or an "
                    f"owner/repo",
                )
            )
    if problems:
        raise MetapkgError(problems)
    return list(dict.fromkeys(found))


def _repository(origin: str) -> str:
    try:
        parsed = parse_origin(origin)
    except OriginSyntaxError:
        return origin
    if parsed.is_local:
        return origin
    return parsed.repo_id if parsed.host == "github.com" else parsed.repository  # cache keys


def read_project_lock(project: Path) -> lockfmt.Lockfile | None:
    from metapkg.actions.lockread import read_lock

    return read_lock(project)[0]
