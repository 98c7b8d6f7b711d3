"""The shared first half of install, lock and update: manifest -> resolve -> lock.

Nothing here writes to the project; the result says what the lock and the provisioned
files should become.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from metapkg import events
from metapkg import manifest as manifest_file
from metapkg.actions import prechecks
from metapkg.actions.findings import Finding, changed_keys
from metapkg.actions.lockread import read_lock_or_replace
from metapkg.actions.mirrors import configured as configured_mirrors
from metapkg.actions.mirrors import mirrored
from metapkg.diagnostics import (
    Diagnostic,
    LockError,
    PackageError,
    ResolutionError,
    error,
    warning,
)
from metapkg.fetch.source import RefPin, Renamed, unpinned_under_frozen
from metapkg.fetch.sources import REGISTRY, FetchOptions, SourceFactory, Sources
from metapkg.hosts.placeholders import Mode
from metapkg.lock import format as lockfmt
from metapkg.lock.build import from_resolution
from metapkg.manifest import Manifest
from metapkg.origins import Origin
from metapkg.packages import consumer
from metapkg.packages.models import Key, Skill
from metapkg.provision import scope as scopes
from metapkg.provision.hostrules import judge
from metapkg.provision.plan import Item, Plan, plan_placements
from metapkg.resolve.candidates import Candidates, locked_choices
from metapkg.resolve.discovery import Discovery
from metapkg.resolve.node import Node
from metapkg.resolve.resolver import Resolved, resolve


@dataclass(frozen=True)
class Resolution:
    manifest: Manifest
    old_lock: lockfmt.Lockfile | None
    old_lock_text: str | None
    resolved: Resolved
    plan: Plan
    lock: lockfmt.Lockfile
    lock_text: str
    warnings: tuple[Diagnostic, ...]
    # the warnings about packages that entered or changed in the graph, by package
    findings: tuple[Finding, ...] = ()

    @property
    def lock_changed(self) -> bool:
        return self.lock_text != self.old_lock_text


def resolve_project(
    project: Path,
    options: FetchOptions | None = None,
    fresh: frozenset[str] | None = None,
    registry: Mapping[str, SourceFactory] = REGISTRY,
    link_mode: str | None = None,
    manifest: Manifest | None = None,
    scope: scopes.Scope | None = None,
    clean_lock: bool = False,
    strict: bool = False,
) -> Resolution:
    """``fresh``: for `metapkg update`, the fqns whose locked versions are not reused
    (empty: none is); None reuses the lock's choices wherever they still fit.
    ``registry``: the sources per origin scheme (tests pass an in-memory forge).
    ``manifest``: instead of reading metapkg.yaml (a dry run of an edit).
    ``scope``: where the plan provisions (default: the project; ``--global``: the user's).
    ``clean_lock``: a damaged lock, or one with merge conflicts, is an error (`lock
    --check`), not replaced or merged. ``strict`` (or ``strict: true`` in the manifest):
    every finding install tolerates is an error (metapkg/packages/consumer.py)."""
    manifest = manifest or manifest_file.read(project)
    strict = strict or manifest.strict
    options = options or FetchOptions()
    prechecks.refuse_the_project_itself(
        project, [d.origin for d in manifest.dependencies] + list(manifest.overrides.values())
    )
    old_lock, old_text, notes = read_lock_or_replace(project, options.frozen, clean_lock)
    if old_lock is not None:
        options = dataclasses.replace(options, pins=old_lock.pins, renamed=old_lock.renamed)
        if not options.offline and (mirrors := configured_mirrors(manifest)):
            locked = mirrored(old_lock, project)
            options = dataclasses.replace(options, mirrors=mirrors, mirrored=locked)
        if options.frozen and (stale := prechecks.frozen_staleness(project, manifest, old_lock)):
            raise LockError(stale)  # before any download: nothing the manifest does not ask for
    resolved, located, fetch_notes, renamed = _resolve_graph(
        project, manifest, old_lock, options, fresh, registry
    )
    _check_packages(resolved, strict)
    where = scope or scopes.project(project)
    plan, lock, judged = _plan_and_lock(
        project, manifest, resolved, located, where, link_mode, strict
    )
    lock = dataclasses.replace(lock, renamed=renamed)
    changed = changed_keys(old_lock, lock)
    found = tuple(f for f in (*judged, *_package_findings(resolved)) if f.key in changed)
    warnings = (
        tuple(notes)
        + tuple(fetch_notes)
        + resolved.notes
        + tuple(_trust_notes(project, manifest, resolved, changed))
        + plan.warnings
        + tuple(f.diagnostic for f in found)
    )
    return Resolution(
        manifest, old_lock, old_text, resolved, plan, lock, lockfmt.render(lock), warnings, found
    )


def _package_findings(resolved: Resolved) -> Iterable[Finding]:
    for key in resolved.order:
        node = resolved.packages[key]
        for d in node.diagnostics:
            if d.severity == "warning" and not _local_file_origin(node, d):
                yield Finding(node.package_key, d)


def _resolve_graph(
    project: Path,
    manifest: Manifest,
    old_lock: lockfmt.Lockfile | None,
    options: FetchOptions,
    fresh: frozenset[str] | None,
    registry: Mapping[str, SourceFactory],
) -> tuple[Resolved, list[RefPin], list[Diagnostic], tuple[Renamed, ...]]:
    """Fetch and load the graph the manifest asks for (the lock's pins reused) and choose
    one candidate per package: the resolved graph, the pins that located ranged paths,
    what the sources had to say, and the repository renames the pins went through."""
    unpinned = _unpinned_roots(manifest, options)
    if unpinned and options.frozen:
        raise unpinned_under_frozen(list(unpinned))  # before any download: CI caches start cold
    sources = Sources(options, registry)
    if unpinned:
        sources.warm_up(unpinned[0])
    locked = locked_choices(old_lock.packages) if old_lock is not None else []
    candidates = Candidates(sources, locked, fresh)
    discovery = Discovery(sources, candidates, options.workers)
    try:
        if old_lock is not None:  # the lock's graph, as far as still needed, in one wave
            needed = prechecks.still_needed(project, manifest, old_lock)
            discovery.warm(item.origin for item in locked if item.key in needed)
        crawled = discovery.crawl(manifest.dependencies, manifest.overrides, _report_resolving)
        if crawled.problems:
            raise ResolutionError(crawled.problems)
        prechecks.refuse_the_project_itself(project, crawled.nodes)
        _check_pinned_content(project, crawled.nodes.values(), old_lock)
        resolved = resolve(
            manifest.dependencies, discovery, crawled, manifest.overrides, candidates
        )
        located = candidates.located_pins(_ranged_origins(resolved))
        return resolved, located, sources.warnings(), tuple(sources.renamed())
    finally:
        discovery.close()
        sources.close()


def _plan_and_lock(
    project: Path,
    manifest: Manifest,
    resolved: Resolved,
    located: list[RefPin],
    where: scopes.Scope,
    link_mode: str | None,
    strict: bool,
) -> tuple[Plan, lockfmt.Lockfile, list[Finding]]:
    """Where each resolved package goes in ``where`` (the plan), what the hosts say of
    them (an error stops here), and the lock that records both."""
    items = [_item(resolved.packages[key], manifest) for key in resolved.order]
    values = where.values()
    mode: Mode = "host-variables" if manifest.mcp_paths == "host-variables" else "absolute"
    extra = {} if where.user else _metaskill_server(project, manifest, resolved)
    links = link_mode or manifest.link_mode
    judged = judge(items, where.active(manifest.targets), strict)
    if errors := [d for _, d in judged.findings if d.severity == "error"]:
        raise PackageError(errors)
    plan = plan_placements(
        items, manifest.targets, where, values, mode, extra, links, judged.refused
    )
    lock = from_resolution(
        project, manifest.targets, resolved, manifest.overrides, located, plan.paths,
        plan.servers,
    )  # fmt: skip
    return plan, lock, [Finding(key, d) for key, d in judged.findings]


def _report_resolving(done: int, total: int) -> None:
    events.emit(events.Resolving(done, total))


def _item(node: Node, manifest: Manifest) -> Item:
    trusted = node.package.kind == "plugin" and manifest.trusts_plugin(node.package.fqn)
    return Item(node.package, node.integrity, linkable=node.fetched.shared, trusted=trusted)


def _ranged_origins(resolved: Resolved) -> Iterable[Origin]:
    for dependency, _ in resolved.roots:
        if dependency.range is not None:
            yield dependency.origin
    for node in resolved.packages.values():
        for dependency in node.package.dependencies:
            if dependency.range is not None:
                yield dependency.origin


def _check_packages(resolved: Resolved, strict: bool) -> None:
    """The chosen packages break no rule install enforces (a candidate the resolver
    passed over may); with ``strict``, none install tolerates either. A package another
    package depends on takes part in resolution: its dependents rely on its version and
    CHANGELOG, so those rules are enforced there even when it declares no dependencies."""
    depended = {key for keys in resolved.dependencies.values() for key in keys}
    errors = [
        found
        for key in resolved.order
        for d in resolved.packages[key].diagnostics
        if (found := _enforced(d, strict, key in depended)).severity == "error"
    ]
    if errors:
        raise PackageError(errors)


def _enforced(diagnostic: Diagnostic, strict: bool, depended: bool) -> Diagnostic:
    if strict or (depended and diagnostic.rule in consumer.RESOLUTION):
        return consumer.strict(diagnostic)
    return diagnostic


def _check_pinned_content(
    project: Path, nodes: Iterable[Node], lock: lockfmt.Lockfile | None
) -> None:
    """Content fetched at a commit the lock pins must be the content the lock recorded.

    A commit cannot change on GitHub, so a mismatch means a tampered download or cache
    that the cache's own check did not catch: stop, as npm, cargo and uv do on a hash
    mismatch, rather than quietly rewriting the lock.
    """
    if lock is None:
        return
    locked: dict[tuple[str, str, str, str | None], str] = {
        (p.kind, p.fqn, p.origin, p.commit): p.integrity for p in lock.packages if p.commit
    }
    problems = []
    for node in nodes:
        key = (*node.package_key, node.origin.lock_text(project), node.fetched.commit)
        expected = locked.get(key)
        if expected is not None and expected != node.integrity:
            problems.append(
                error(
                    "integrity",
                    str(node.origin),
                    f"{node.package.label} at commit {(node.fetched.commit or '')[:12]} does not "
                    f"match metapkg.lock (locked {expected[:19]}..., found "
                    f"{node.integrity[:19]}...). The download or the cache was altered; run "
                    f"`metapkg cache clean` and install again, and report it if it persists",
                )
            )
    if problems:
        raise LockError(problems)


def _unpinned_roots(manifest: Manifest, options: FetchOptions) -> list[Origin]:
    """Direct remote dependencies whose ref the lock does not pin (the host will be asked);
    a root naming a renamed repository's old name finds the pin of its new name."""
    pinned = {p.key for p in options.pins}
    new_name = {r.old: r.new for r in options.renamed}
    return [
        d.origin
        for d in manifest.dependencies
        if d.origin.ref_keys()
        and not any(
            key in pinned or (new_name.get(key[0]), key[1]) in pinned for key in d.origin.ref_keys()
        )
    ]


def _local_file_origin(node: Node, diagnostic: Diagnostic) -> bool:
    """A local package pointing at local files is development, not a publishing mistake."""
    return diagnostic.rule == "file-origin" and node.origin.is_local


def _trust_notes(
    project: Path, manifest: Manifest, resolved: Resolved, changed: frozenset[Key]
) -> list[Diagnostic]:
    """An untrusted metaskill installs as instructions only (its SKILL.md works as a
    static skill; `metapkg run` and `metapkg mcp` refuse its program): say so, and how to
    trust it, when it enters or changes in the graph (``changed``). A skill kept in the
    project itself (a file: folder inside it) is trusted, as the metaskills spec says."""
    notes = []
    for key in resolved.order:
        if key not in changed:
            continue
        node = resolved.packages[key]
        package = node.package
        if not isinstance(package, Skill) or package.metaskill is None:
            continue
        if manifest.trusts_metaskill(package.fqn) or _inside(node, project):
            continue
        notes.append(
            warning(
                "untrusted-metaskill",
                str(node.origin),
                f"{package.label} ships a metaskill program ({package.metaskill.path}), code "
                f"an agent can run; it is installed as instructions only and metapkg will not "
                f"run it. If you trust it, add '{package.fqn}' (or "
                f"'{package.scope or package.fqn}/*') to trust.metaskills in metapkg.yaml",
            )
        )
    return notes


def _inside(node: Node, project: Path) -> bool:
    local = node.origin.local
    return local is not None and local.resolve().is_relative_to(project.resolve())


def _metaskill_server(
    project: Path, manifest: Manifest, resolved: Resolved
) -> dict[str, dict[str, object]]:
    """`metaskills: {serve: true}`: the `metapkg mcp` server in every host's MCP config,
    when the project has a metaskill it may run."""
    if not manifest.serve_metaskills:
        return {}
    runnable = any(
        isinstance(n.package, Skill)
        and n.package.metaskill is not None
        and (manifest.trusts_metaskill(n.package.fqn) or _inside(n, project))
        for n in resolved.packages.values()
    )
    if not runnable:
        return {}
    args = ["-C", "${workspaceDir}", "mcp"]
    for command in manifest.allowed_commands:
        args += ["--allow-command", command]
    return {METASKILL_SERVER: {"type": "stdio", "command": "metapkg", "args": args}}


METASKILL_SERVER = "metapkg/metaskills"
