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
from metapkg.origins import GitHubOrigin, Origin, OriginSyntaxError, parse_origin
from metapkg.packages.models import Kind

GITIGNORE_BLOCK = """\
# metapkg: provisioned files and local state (regenerate with `metapkg install`)
.metapkg/
.agents/
.claude/skills/
.claude/agents/
.mcp.json
"""


def init(project: Path) -> list[str]:
    """Write a starter metapkg.yaml and .gitignore entries; return what was written."""
    written = []
    path = project / manifest.FILENAME
    if path.exists():
        raise ManifestError.single(
            "manifest",
            manifest.FILENAME,
            "metapkg.yaml already exists; edit it or use `metapkg add`",
        )
    path.write_text(manifest.STARTER, encoding="utf-8")
    written.append(manifest.FILENAME)
    gitignore = project / ".gitignore"
    existing = gitignore.read_text(encoding="utf-8") if gitignore.exists() else ""
    if ".metapkg/" not in existing.splitlines():
        separator = (
            ""
            if not existing or existing.endswith("\n\n")
            else ("\n" if existing.endswith("\n") else "\n\n")
        )
        gitignore.write_text(existing + separator + GITIGNORE_BLOCK, encoding="utf-8")
        written.append(".gitignore")
    return written


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
    """The kind an origin's path names (…/skills/x, …/agents/x, ….json), if it says."""
    text = origin.tree if isinstance(origin, GitHubOrigin) else origin.path
    if text.endswith(".json"):
        return "mcp"
    parts = text.split("/")
    if "skills" in parts[:-1]:
        return "skill"
    if "agents" in parts[:-1]:
        return "agent"
    return None


def add(
    project: Path, origins: list[str], kind: Kind | None, then_install: Callable[[], object]
) -> list[str]:
    """Add each origin under its kind; return the origins that were new."""
    added = []
    with manifest_restored_on_failure(project):
        path = project / manifest.FILENAME
        for text in origins:
            try:
                origin = parse_origin(text, project)
            except OriginSyntaxError as exc:
                raise UsageError([error("origin", text, str(exc))]) from None
            chosen = kind or guess_kind(origin) or _detect_kind(origin)
            if manifest.edit_add(path, chosen, text):
                added.append(text)
        then_install()
    return added


def _detect_kind(origin: Origin) -> Kind:
    from metapkg.fetch.router import Sources
    from metapkg.packages.load import detect_kind

    sources = Sources()
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
