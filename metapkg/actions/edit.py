"""``metapkg init``, ``add`` and ``remove``: edit metapkg.yaml, then install.

An edit that leads to a failed install is undone: metapkg.yaml goes back to its exact
previous bytes, so a bad origin never leaves the manifest half-changed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from metapkg import manifest
from metapkg.diagnostics import ManifestError, MetapkgError, UsageError, error
from metapkg.lock import format as lockfmt
from metapkg.origins import FileOrigin, GitHubOrigin, Origin, OriginSyntaxError, parse_origin
from metapkg.packages.models import Kind


def init(project: Path) -> tuple[list[str], tuple[str, ...]]:
    """Write a starter metapkg.yaml (its targets: the hosts the project already uses, if
    any) and the managed .gitignore block; return what was written and the hosts found.

    Everything is read before anything is written, and each file is replaced atomically:
    an unreadable .gitignore stops init with nothing changed.
    """
    from metapkg.actions.gitignore import add_block
    from metapkg.hosts.registry import detect
    from metapkg.textio import read_utf8, write_atomic

    path = project / manifest.FILENAME
    if path.exists():
        raise ManifestError.single(
            "manifest",
            manifest.FILENAME,
            "metapkg.yaml already exists; edit it or use `metapkg add`",
        )
    gitignore = project / ".gitignore"
    try:
        existing = read_utf8(gitignore, "manifest", ".gitignore")
    except FileNotFoundError:
        existing = ""
    found = detect(project)
    targets = found or manifest.DEFAULT_TARGETS
    starter = manifest.STARTER.replace(
        "targets: [agents, claude]", f"targets: [{', '.join(targets)}]", 1
    )
    write_atomic(path, starter)
    written = [manifest.FILENAME]
    new = add_block(existing)
    if new is not None:
        write_atomic(gitignore, new)
        written.append(".gitignore")
    return written, found


@contextmanager
def manifest_restored_on_failure(project: Path) -> Iterator[None]:
    path = project / manifest.FILENAME
    if not path.exists():
        raise ManifestError.single(
            "manifest", manifest.FILENAME, "no metapkg.yaml here; run `metapkg init` first"
        )
    before = path.read_bytes()
    try:
        yield
    except BaseException:
        path.write_bytes(before)
        raise


def guess_kind(origin: Origin) -> Kind | None:
    """The kind a catalog path names (…/skills/x, …/agents/x, …/mcps/x.json), if it says.

    Only the bucket right above the package counts: a `skills` folder higher up the path
    says nothing about what this origin holds.
    """
    text = origin.tree if isinstance(origin, GitHubOrigin) else origin.path
    parts = text.split("/")
    bucket = parts[-2] if len(parts) > 1 else ""
    if text.endswith(".json"):
        return "mcp"
    return {"skills": "skill", "agents": "agent"}.get(bucket)  # type: ignore[return-value]


def add(
    project: Path,
    origins: list[str],
    kind: Kind | None,
    then_install: Callable[[], object],
    offline: bool = False,
) -> list[str]:
    """Add each origin under its kind; return the origins that were new."""
    manifest.read(project)  # a broken manifest is reported as such, before any fetching
    added = []
    with manifest_restored_on_failure(project):
        path = project / manifest.FILENAME
        for text in origins:
            try:
                origin = parse_origin(text, project)
            except OriginSyntaxError as exc:
                raise UsageError([error("origin", text, str(exc))]) from None
            chosen = (
                kind or _local_kind(origin) or guess_kind(origin) or _detect_kind(origin, offline)
            )
            if manifest.edit_add(path, chosen, text):
                added.append(text)
        then_install()
    return added


def _local_kind(origin: Origin) -> Kind | None:
    """A file: origin is on this disk: look instead of guessing."""
    from metapkg.packages.load import detect_kind

    return detect_kind(origin.local_path) if isinstance(origin, FileOrigin) else None


def _detect_kind(origin: Origin, offline: bool) -> Kind:
    from metapkg.fetch.sources import FetchOptions, Sources
    from metapkg.packages.load import detect_kind

    sources = Sources(FetchOptions(offline=offline))
    try:
        kind = detect_kind(sources.fetch(origin).path)
    finally:
        sources.close()
    if kind is None:
        raise MetapkgError.single(
            "missing",
            str(origin),
            "holds no package (no SKILL.md, AGENTS.md or .json); check the path",
        )
    return kind


def remove(project: Path, fqns: list[str], then_install: Callable[[], object]) -> int:
    lock = lockfmt.read(project / lockfmt.FILENAME)
    if lock is None:
        raise MetapkgError.single(
            "lock",
            lockfmt.FILENAME,
            "no metapkg.lock to find packages in; run `metapkg install` first",
        )
    origins: list[Origin] = []
    for fqn in fqns:
        direct = [r for r in lock.requires if r.fqn == fqn]
        if not direct:
            hint = (
                " (it is a dependency of another package; see `metapkg why`)"
                if any(p.fqn == fqn for p in lock.packages)
                else ""
            )
            raise MetapkgError.single(
                "missing", manifest.FILENAME, f"{fqn} is not a direct dependency{hint}"
            )
        origins.extend(parse_origin(r.origin, project) for r in direct)
    with manifest_restored_on_failure(project):
        removed = manifest.edit_remove(project / manifest.FILENAME, origins)
        then_install()
    return removed
