"""What the manifest and the lock decide on their own, before anything is downloaded.

A lock arrives in pull requests, so it may name repositories the manifest never asks for.
Nothing is fetched for them (with the user's token): only packages the manifest still
reaches through the lock's graph are loaded ahead of need, and under ``--frozen`` a lock
whose requirements are not the manifest's is stale before the first request. And a
``file:`` origin that holds the project itself (``file:.``) is refused at once: installing
it would copy the project into its own host folders, copies included, without end.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from metapkg.diagnostics import Diagnostic, ResolutionError, error
from metapkg.lock import format as lockfmt
from metapkg.manifest import Manifest
from metapkg.origins import Origin
from metapkg.packages.models import Key

STALE_HINT = "run `metapkg lock` (or `metapkg install`) and commit metapkg.lock"


def refuse_the_project_itself(project: Path, origins: Iterable[Origin]) -> None:
    home = Path(os.path.realpath(project))
    holding = [
        origin
        for origin in origins
        if origin.local is not None and home.is_relative_to(os.path.realpath(origin.local))
    ]
    if holding:
        raise ResolutionError(
            error(
                "origin",
                origin.lock_text(project),
                "this folder holds the project itself, so installing it would copy the "
                "project into its own .claude/ and .agents/ folders; keep the package in a "
                "folder of its own (e.g. file:./skills/<name>) and name that",
            )
            for origin in dict.fromkeys(holding)
        )


def still_needed(project: Path, manifest: Manifest, lock: lockfmt.Lockfile) -> set[Key]:
    """The lock's packages the manifest still reaches through the lock's graph."""
    wanted = _requirements(project, manifest)
    pending = [(r.kind, r.fqn) for r in lock.requires if (r.kind, r.origin, r.version) in wanted]
    dependencies = {package.key: package.dependencies for package in lock.packages}
    reached: set[Key] = set()
    while pending:
        key = pending.pop()
        if key not in reached and key in dependencies:
            reached.add(key)
            pending.extend(dependencies[key])
    return reached


def frozen_staleness(project: Path, manifest: Manifest, lock: lockfmt.Lockfile) -> list[Diagnostic]:
    """Why ``--frozen`` must refuse the lock, as far as the manifest alone tells."""
    wanted = _requirements(project, manifest)
    locked = {(r.kind, r.origin, r.version): r for r in lock.requires}
    why = [
        f"metapkg.yaml requires the {kind} {_shown(origin, version)}, which the lock does not"
        for kind, origin, version in sorted(wanted - set(locked), key=str)
    ]
    why += [
        f"the lock requires the {r.kind} {r.fqn} ({_shown(r.origin, r.version)}), which "
        f"metapkg.yaml no longer does"
        for key, r in sorted(locked.items(), key=lambda item: str(item[0]))
        if key not in wanted
    ]
    overrides = {(fqn, o.lock_text(project)) for fqn, o in manifest.overrides.items()}
    if overrides != {(o.fqn, o.origin) for o in lock.overrides}:
        why.append("the overrides in metapkg.yaml are not the lock's")
    return [stale("lock", reason) for reason in why]


def stale(rule: str, why: str) -> Diagnostic:
    """metapkg.lock is out of date, and why (the message every stale-lock check gives)."""
    return error(rule, lockfmt.FILENAME, f"metapkg.lock is out of date: {why}; {STALE_HINT}")


def _requirements(project: Path, manifest: Manifest) -> set[tuple[str, str, str | None]]:
    return {(d.kind, d.origin.lock_text(project), d.constraint) for d in manifest.dependencies}


def _shown(origin: str, version: str | None) -> str:
    return f"{origin} {version}" if version else origin
