"""``metapkg audit``: the locked graph (or a folder about to be added) against the audit's
rules and the project's policy; and the same policy as a gate inside ``install``."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from metapkg.audit import findings as rules
from metapkg.audit import policy as policies
from metapkg.audit.findings import Finding, Item
from metapkg.diagnostics import Diagnostic, ManifestError, UsageError, error, warning

if TYPE_CHECKING:
    from metapkg.actions.resolution import Resolution
    from metapkg.lock import format as lockfmt

POLICY_ENV = "METAPKG_POLICY"
AUDIT_MODES = ("off", "warn", "block")


@dataclass(frozen=True)
class AuditResult:
    items: tuple[Item, ...]
    findings: tuple[Finding, ...]
    violations: tuple[Finding, ...]
    policy: policies.Policy
    lock: lockfmt.Lockfile | None = None
    provisioned: tuple[str, ...] = ()

    def locate(self, finding: Finding) -> str | None:
        """The project-relative file a finding points at: in the provisioned copy when
        the package is installed, else in the package (``--path``)."""
        item = next((i for i in self.items if i.label == finding.label), None)
        if item is None:
            return None
        folder = _provisioned_folder(item, self.provisioned)
        inner = finding.path or ""
        if folder is None:
            return inner or None
        return f"{folder}/{inner}" if inner and item.kind != "mcp" else folder


def audit_lock(project: Path, offline: bool, policy_arg: str | None) -> AuditResult:
    from metapkg import manifest as manifests
    from metapkg.actions.lockread import read_lock

    lock, _ = read_lock(project)
    if lock is None:
        raise UsageError.single("usage", "metapkg.lock", "no lock here; run `metapkg install`")
    items = tuple(locked_items(lock, project, offline))
    manifest = manifests.read(project) if (project / manifests.FILENAME).exists() else None
    policy = load_policy(project, manifest.policy if manifest else None, policy_arg, offline)
    ranged = {r.fqn for r in lock.requires if r.version}
    return _judge(items, policy, ranged, lock, lock.provisioned)


def audit_path(folder: Path, project: Path, offline: bool, policy_arg: str | None) -> AuditResult:
    """A folder (a repository checkout, a catalog, one package) before it is added."""
    from metapkg.diff.content import snapshot
    from metapkg.packages.discover import discover

    if not folder.exists():
        raise UsageError.single("usage", str(folder), "no such folder")
    found = discover(folder, str(folder))
    items = []
    for package in found.packages:
        name = package.path.name
        items.append(
            Item(
                package.kind,
                name,
                str(package.path),
                snapshot(package.path),
                **_mcp(package.path),
            )
        )
    policy = load_policy(project, None, policy_arg, offline)
    return _judge(tuple(items), policy, set(), None, ())


def _mcp(path: Path) -> dict[str, Any]:
    if not path.is_file() or path.suffix != ".json":
        return {}
    import json

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    server = {k: v for k, v in data.items() if k != "_meta"} if isinstance(data, dict) else None
    return {"server": server}


def _judge(
    items: tuple[Item, ...],
    policy: policies.Policy,
    ranged: set[str],
    lock: lockfmt.Lockfile | None,
    provisioned: tuple[str, ...],
) -> AuditResult:
    found = [f for item in items for f in rules.scan(item)]
    found.sort(key=lambda f: (f.rank, f.label, f.path or "", f.line or 0))
    broken = policies.violations(policy, items, found, ranged)
    return AuditResult(items, tuple(found), tuple(broken), policy, lock, provisioned)


def locked_items(lock: lockfmt.Lockfile, project: Path, offline: bool) -> Iterable[Item]:
    """Every locked package with its files, read from the cache as the lock pins them."""
    from metapkg.diff.changelogs import Unavailable, pinned_sources, pinned_tree
    from metapkg.diff.content import snapshot

    sources = pinned_sources(lock, offline)
    try:
        for package in lock.packages:
            try:
                files, missing = snapshot(pinned_tree(package, sources, project)), None
            except Unavailable as exc:
                files, missing = None, str(exc)
            yield _item(package, files, missing, _pinned_ref(package.origin, lock))
    finally:
        sources.close()


def _item(package: lockfmt.LockedPackage, files: Any, missing: str | None, ref: str | None) -> Item:
    return Item(
        package.kind,
        package.fqn,
        package.origin,
        files,
        package.commit,
        package.version,
        package.integrity,
        package.metaskill,
        package.server,
        missing,
        ref,
    )


def _pinned_ref(origin: str, lock: lockfmt.Lockfile) -> str | None:
    if "/tree/" not in origin:
        return None
    repo = origin.removeprefix("https://github.com/").split("/tree/", 1)[0]
    tree = origin.split("/tree/", 1)[1]
    refs = [p.ref for p in lock.pins if p.repo.lower() == repo.lower()]
    matching = [ref for ref in refs if tree == ref or tree.startswith(ref + "/")]
    return max(matching, key=len) if matching else None


def _provisioned_folder(item: Item, provisioned: Sequence[str]) -> str | None:
    short = item.fqn.rsplit("/", 1)[-1]
    for path in sorted(provisioned):
        last = path.rstrip("/").rsplit("/", 1)[-1]
        if last in (short, f"{short}.md"):
            return path.rstrip("/")
    return None


# -- policy --------------------------------------------------------------------------------


def load_policy(
    project: Path, written: Mapping[str, Any] | None, arg: str | None, offline: bool
) -> policies.Policy:
    """The project's ``policy:``, ``--policy FILE|URL`` and ``METAPKG_POLICY``, tightened
    together."""
    combined = policies.parse(written, "metapkg.yaml") if written is not None else policies.Policy()
    for source in (arg, os.environ.get(POLICY_ENV) or None):
        if source:
            combined = policies.tighten(combined, _read_policy(source, project, offline))
    return combined


def _read_policy(source: str, project: Path, offline: bool) -> policies.Policy:
    from metapkg import yamlsafe

    text = _policy_text(source, project, offline)
    try:
        data = yamlsafe.load(text).value
    except yamlsafe.YamlProblem as exc:
        raise ManifestError.single("policy", source, exc.message, exc.line) from None
    if isinstance(data, dict) and set(data) == {"policy"}:
        data = data["policy"]  # a file may hold `policy:` as metapkg.yaml does
    return policies.parse(data, source)


def _policy_text(source: str, project: Path, offline: bool) -> str:
    if source.startswith(("https://", "http://")):
        if offline:
            raise ManifestError.single("policy", source, "offline: cannot read a policy URL")
        from metapkg.fetch.http import Http

        client = Http(None, 1)  # never the GitHub token: a policy URL is any host
        try:
            reply = client.get(source, accept="application/yaml, text/plain, */*")
        finally:
            client.close()
        if reply.status != 200:
            raise ManifestError.single("policy", source, f"answered HTTP {reply.status}")
        return reply.text
    path = Path(source) if os.path.isabs(source) else project / source
    try:
        from metapkg.safefile import read_regular

        return read_regular(path).decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        why = getattr(exc, "strerror", None) or type(exc).__name__
        raise ManifestError.single(
            "policy", source, f"cannot read the policy file ({why})"
        ) from None


def gate(
    resolution: Resolution, project: Path, mode: str, offline: bool, arg: str | None
) -> list[Diagnostic]:
    """Install's audit, before anything is written. Policy violations stop the install
    (unless ``off``). Findings of the packages that entered or changed in the graph are
    grouped warnings (``warn``, once: not again on the next install) or errors
    (``block``); the whole graph's findings are ``metapkg audit``'s to show."""
    if mode == "off":
        return []
    policy = load_policy(project, resolution.manifest.policy, arg, offline)
    before = {
        (p.label, p.integrity)
        for p in (resolution.old_lock.packages if resolution.old_lock else ())
    }
    changed = tuple(_resolved_items(resolution, lambda p: (p.label, p.integrity) not in before))
    # Low findings (a local file: origin) are the review's and `audit`'s, not install news.
    found = [f for item in changed for f in rules.scan(item) if f.level != "low"]
    problems = []
    if not policy.empty:
        items = tuple(_resolved_items(resolution, lambda p: True, policy.reads_files))
        ranged = {r.fqn for r in resolution.lock.requires if r.version}
        every = [f for item in items for f in rules.scan(item)] if policy.max_alert else []
        problems = [_diagnostic(v) for v in policies.violations(policy, items, every, ranged)]
    if mode == "block":
        problems += [_diagnostic(f) for f in found]
    if problems:
        raise ManifestError(problems)
    return grouped(found)


def grouped(found: Sequence[Finding]) -> list[Diagnostic]:
    """One warning per rule: how many packages, which ones, and where to read more."""
    by_rule: dict[str, list[str]] = {}
    for finding in found:
        labels = by_rule.setdefault(finding.rule, [])
        if finding.label not in labels:
            labels.append(finding.label)
    out = []
    for rule, labels in sorted(
        by_rule.items(), key=lambda kv: (rules.LEVELS.index(rules.SEVERITY[kv[0]]), kv[0])
    ):
        shown = ", ".join(labels[:3]) + (f" and {len(labels) - 3} more" if len(labels) > 3 else "")
        count = f"{len(labels)} new or changed packages: " if len(labels) > 1 else ""
        message = f"{count}{rules.DESCRIPTIONS[rule]}; `metapkg audit` shows where"
        out.append(warning(rule, shown, message))
    return out


def _resolved_items(
    resolution: Resolution,
    wanted: Callable[[lockfmt.LockedPackage], bool],
    files: bool = True,
) -> Iterable[Item]:
    """The resolved packages ``wanted`` picks, with their files (read only for those)."""
    from metapkg.diff.content import snapshot

    locked = {p.label: p for p in resolution.lock.packages}
    for node in resolution.resolved.packages.values():
        package = locked.get(f"{node.package.key[0]} {node.package.key[1]}")
        if package is not None and wanted(package):
            ref = _pinned_ref(package.origin, resolution.lock)
            yield _item(
                package, snapshot(node.fetched.path, digest=False) if files else None, None, ref
            )


def _diagnostic(finding: Finding) -> Diagnostic:
    where = finding.label if finding.path is None else f"{finding.label}: {finding.path}"
    return error(finding.rule, where, finding.message, finding.line)
