"""Compare two lockfiles package by package, and raise review alerts.

Alert ids are stable (CI policies name them in ``--fail-on``), each with a severity;
alerts are shown highest severity first, then by package:

    high
    fetch-and-run                 a line now downloads and runs code (curl … | sh, iwr … | iex)
    executable                    a new or changed executable or script (exec bit, shebang,
                                  scripts/, bin/, hooks/)
    new-metaskill                 a skill now ships an executable metaskill program
    metaskill-changed             a skill's metaskill program changed (or was renamed)
    new-mcp                       a new MCP server will be configured
    new-plugin-hooks              a plugin now ships hooks or bin/ (run only when trusted)
    mcp-command-changed           what an MCP server runs changed (any field of its config
                                  but the descriptive _meta, description, title)
    hidden-unicode                an added line holds invisible or bidirectional characters
    origin-moved                  a package now comes from another repository
    medium
    allowed-tools-widened         the agent is granted tools it was not granted before
    new-url                       instructions now point at a host they did not name before
    content-changed-same-version  same version, different integrity
    content-changed-unversioned   content changed in a package with no version to bump
    downgrade                     the version went down
    dependency-dropped            a skill dependency removed under a non-major bump
    mcp-dropped                   an MCP dependency removed under a non-major bump
    origin-renamed                the repository answers under a new owner or name
    plugin-parts-changed          a plugin's parts (skills, agents, commands, MCP servers)
                                  were added or removed
    low
    file-origin                   a package comes from a local file: origin
    changelog-missing-entry       the CHANGELOG has no entry for the new version
"""

from __future__ import annotations

import dataclasses
import json
import shlex
from dataclasses import dataclass, field
from typing import Any

from metapkg.diff.content import Content
from metapkg.lock import format as lockfmt
from metapkg.origins import OriginSyntaxError, parse_origin
from metapkg.packages.models import ChangelogEntry, Key, Kind, key_order, label
from metapkg.packages.semver import SemVer, bump

SEVERITY: dict[str, str] = {
    "fetch-and-run": "high",
    "executable": "high",
    "new-metaskill": "high",
    "metaskill-changed": "high",
    "new-mcp": "high",
    "new-plugin-hooks": "high",
    "mcp-command-changed": "high",
    "hidden-unicode": "high",
    "origin-moved": "high",
    "allowed-tools-widened": "medium",
    "new-url": "medium",
    "content-changed-same-version": "medium",
    "content-changed-unversioned": "medium",
    "downgrade": "medium",
    "dependency-dropped": "medium",
    "mcp-dropped": "medium",
    "origin-renamed": "medium",
    "plugin-parts-changed": "medium",
    "file-origin": "low",
    "changelog-missing-entry": "low",
}
ALERTS = tuple(SEVERITY)
LEVELS = ("high", "medium", "low")


@dataclass(frozen=True)
class Alert:
    id: str
    message: str
    path: str | None = None  # the file in the package that raised it
    line: int | None = None

    @property
    def severity(self) -> str:
        return SEVERITY[self.id]

    @property
    def rank(self) -> int:
        return LEVELS.index(self.severity)


@dataclass(frozen=True)
class Changelog:
    entries: tuple[ChangelogEntry, ...] = ()  # the entries to show, newest first
    has_entry: bool = True  # the CHANGELOG has an entry for the new version
    unavailable: str | None = None  # why the CHANGELOG could not be read


@dataclass(frozen=True)
class Change:
    kind: Kind
    fqn: str
    # added, removed, upgraded, downgraded, changed, renamed (and moved, on request)
    change: str
    old: lockfmt.LockedPackage | None
    new: lockfmt.LockedPackage | None
    bump: str | None = None
    dependencies_added: tuple[Key, ...] = ()
    dependencies_removed: tuple[Key, ...] = ()
    changelog: Changelog = field(default_factory=Changelog)
    alerts: tuple[Alert, ...] = ()
    content: Content | None = None  # the files, when both trees could be read

    @property
    def label(self) -> str:
        return label((self.kind, self.fqn))

    @property
    def from_version(self) -> str | None:
        return self.old.version if self.old else None

    @property
    def to_version(self) -> str | None:
        return self.new.version if self.new else None


def compare(
    old: lockfmt.Lockfile | None, new: lockfmt.Lockfile, moves: bool = False
) -> list[Change]:
    """Every package whose content, version, origin or dependencies differ.

    A package that only moved to another commit with identical content has nothing in it
    to review and is left out, unless ``moves`` asks for it (change "moved": what `install`
    and `update` report). Changelog entries are attached later.
    """
    before = {p.key: p for p in old.packages} if old is not None else {}
    after = {p.key: p for p in new.packages}
    changes = []
    for key in sorted(before.keys() | after.keys(), key=key_order):
        a, b = before.get(key), after.get(key)
        if a == b:
            continue
        if a and b and _renamed(a, b):
            changes.append(Change(key[0], key[1], "renamed", a, b))
            continue
        if a and b and dataclasses.replace(a, commit=b.commit) == b:
            if moves:
                changes.append(Change(key[0], key[1], "moved", a, b))
            continue
        changes.append(_change(key, a, b))
    return changes


def _renamed(a: lockfmt.LockedPackage, b: lockfmt.LockedPackage) -> bool:
    """The same commit and content under a repository's new name (GitHub answered the old
    one with a 301): a rename to note, not an ``origin-moved`` alert."""
    if a.commit is None or a.commit != b.commit or a.integrity != b.integrity:
        return False
    if not (
        a.origin.startswith("https://github.com/") and b.origin.startswith("https://github.com/")
    ):
        return False
    return (
        _repository(a.origin) != _repository(b.origin)
        and dataclasses.replace(a, origin=b.origin) == b
    )


def _change(key: Key, a: lockfmt.LockedPackage | None, b: lockfmt.LockedPackage | None) -> Change:
    kind, fqn = key
    if a is None:
        return Change(
            kind, fqn, "added", None, b, dependencies_added=tuple(b.dependencies) if b else ()
        )
    if b is None:
        return Change(kind, fqn, "removed", a, None, dependencies_removed=tuple(a.dependencies))
    size = bump(a.version, b.version) if a.version and b.version else None
    change = "changed"
    if size is not None:
        old_v, new_v = SemVer.parse(a.version or ""), SemVer.parse(b.version or "")
        change = (
            "upgraded"
            if old_v is not None and new_v is not None and old_v < new_v
            else "downgraded"
        )
    added = tuple(d for d in b.dependencies if d not in a.dependencies)
    removed = tuple(d for d in a.dependencies if d not in b.dependencies)
    return Change(kind, fqn, change, a, b, size, added, removed)


def with_alerts(change: Change) -> Change:
    """The change with every alert that applies (call after the changelog is attached)."""
    return dataclasses.replace(change, alerts=tuple(_alerts(change)))


def _alerts(change: Change) -> list[Alert]:
    a, b = change.old, change.new
    if b is None:
        return []  # a removal no longer runs anywhere
    if change.change == "renamed":  # same commit and content, under another owner or name
        before, after = _repository(a.origin) if a else "", _repository(b.origin)
        message = f"{change.label}: {before} now answers as {after} (same commit and content)"
        return [Alert("origin-renamed", message)]
    found = [
        *_version_alerts(change, a, b),
        *_dependency_alerts(change, a),
        *_code_alerts(change, a, b),
        *_plugin_alerts(change, a, b),
        *_origin_alerts(change, a, b),
        *_content_alerts(change, a, b),
    ]
    return sorted(found, key=lambda alert: alert.rank)


def _content_alerts(
    change: Change, a: lockfmt.LockedPackage | None, b: lockfmt.LockedPackage
) -> list[Alert]:
    from metapkg.diff import risks

    found = []
    if a is not None and change.kind != "mcp" and b.version is None and a.integrity != b.integrity:
        message = f"{change.label}: content changed and the package has no version to bump"
        found.append(Alert("content-changed-unversioned", message))
    if a is not None and a.metaskill and b.metaskill and _metaskill_changed(change, a, b):
        message = f"{change.label}: its metaskill program changed ({b.metaskill})"
        found.append(Alert("metaskill-changed", message, b.metaskill))
    if change.content is not None:
        # An MCP server's URLs (its repository, its registry) are not instructions to the
        # agent; what it runs is reviewed field by field (mcp-command-changed).
        urls = a is not None and change.kind != "mcp"
        raised = risks.scan(change.content, change.label, added=not urls)
        found += [Alert(*alert) for alert in raised]
    return found


def _metaskill_changed(change: Change, a: lockfmt.LockedPackage, b: lockfmt.LockedPackage) -> bool:
    if a.metaskill != b.metaskill:
        return True
    if change.content is None:
        return a.integrity != b.integrity  # unknown: the program may have changed
    return any(delta.path == b.metaskill for delta in change.content.files)


def _version_alerts(
    change: Change, a: lockfmt.LockedPackage | None, b: lockfmt.LockedPackage
) -> list[Alert]:
    found = []
    if a is not None and b.version and a.version == b.version and a.integrity != b.integrity:
        message = f"{change.label} {b.version}: content changed but the version did not"
        found.append(Alert("content-changed-same-version", message))
    if change.change == "downgraded" and a is not None:
        message = f"{change.label} goes down from {a.version} to {b.version}"
        found.append(Alert("downgrade", message))
    if change.changelog.unavailable is None and not change.changelog.has_entry:
        message = f"{change.label}: CHANGELOG.md has no entry for {b.version}"
        found.append(Alert("changelog-missing-entry", message))
    return found


def _dependency_alerts(change: Change, a: lockfmt.LockedPackage | None) -> list[Alert]:
    """Dropping a public dependency is a breaking change: it needs a major bump."""
    if a is None or change.bump == "major":
        return []
    return [
        Alert(
            "mcp-dropped" if dep_kind == "mcp" else "dependency-dropped",
            f"{change.label} drops {dep_kind} {dep} without a major version bump",
        )
        for dep_kind, dep in change.dependencies_removed
    ]


def _code_alerts(
    change: Change, a: lockfmt.LockedPackage | None, b: lockfmt.LockedPackage
) -> list[Alert]:
    """New or changed things that will execute on the reviewer's machine."""
    found = []
    if b.metaskill and (a is None or not a.metaskill):
        message = f"{change.label} ships an executable metaskill program ({b.metaskill})"
        found.append(Alert("new-metaskill", message))
    if change.kind == "mcp" and a is None:
        message = f"new MCP server {change.fqn} will run: {_command(b.server)}"
        found.append(Alert("new-mcp", message))
    changed = _runs_changed(a.server, b.server) if change.kind == "mcp" and a else ()
    if changed:
        message = (
            f"MCP server {change.fqn} changed {', '.join(changed)}; now runs: {_command(b.server)}"
        )
        found.append(Alert("mcp-command-changed", message))
    return found


def _plugin_alerts(
    change: Change, a: lockfmt.LockedPackage | None, b: lockfmt.LockedPackage
) -> list[Alert]:
    """What a plugin update adds and removes, and new code that would run without asking."""
    if change.kind != "plugin":
        return []
    before = set(a.parts) if a is not None else set()
    added = [part for part in b.parts if part not in before]
    removed = sorted(before - set(b.parts))
    found = []
    executables = [part for part in added if part in ("hooks", "bin")]
    if executables:
        message = (
            f"{change.label} now ships {' and '.join(executables)}: code that runs without "
            f"asking (installed only when trust.plugins names it)"
        )
        found.append(Alert("new-plugin-hooks", message))
    listed = [part for part in added if part not in executables]
    if a is not None and (listed or removed):
        words = [f"adds {', '.join(listed)}" if listed else "", f"removes {', '.join(removed)}"
                 if removed else ""]  # fmt: skip
        message = f"{change.label}: {'; '.join(w for w in words if w)}"
        found.append(Alert("plugin-parts-changed", message))
    return found


def _origin_alerts(
    change: Change, a: lockfmt.LockedPackage | None, b: lockfmt.LockedPackage
) -> list[Alert]:
    found = []
    before, after = (_repository(a.origin) if a else None), _repository(b.origin)
    if before is not None and before != after:
        found.append(Alert("origin-moved", f"{change.label} moved from {before} to {after}"))
    if after.startswith("file:"):
        message = f"{change.label} comes from a local {b.origin}, which exists only on one machine"
        found.append(Alert("file-origin", message))
    return found


# The only fields of an MCP server config that change nothing about what runs. Everything
# else is compared (command, args, env, cwd, url, headers, type, and any key a host may
# read: envFile, timeout, trust, autoApprove, disabled, ...): a list of fields to compare
# would miss the next one a host learns to read.
DESCRIPTIVE_SERVER_FIELDS = frozenset({"_meta", "description", "title"})


def _runs_changed(before: Any, after: Any) -> tuple[str, ...]:
    """The fields of an MCP server config that differ in a way that changes what runs
    (sorted; ``("server",)`` when either side is not a config object at all)."""
    if not isinstance(before, dict) or not isinstance(after, dict):
        return () if before == after else ("server",)
    names = (before.keys() | after.keys()) - DESCRIPTIVE_SERVER_FIELDS
    return tuple(sorted(n for n in names if _exact(before, n) != _exact(after, n)))


def _exact(server: dict[str, Any], name: str) -> str | None:
    """A field's value as canonical JSON: ``true`` and ``1`` differ here, as they do for a
    host, where Python's ``True == 1`` would hide the change."""
    if name not in server:
        return None
    return json.dumps(server[name], sort_keys=True, default=repr)


def _command(server: Any) -> str:
    if not isinstance(server, dict):
        return "(unknown)"
    if "command" in server:
        # Quoted as a shell would need it, so every argument's bounds are unambiguous.
        return shlex.join([str(server["command"]), *map(str, server.get("args") or [])])
    return str(server.get("url", "(no command)"))


def _repository(origin: str) -> str:
    try:
        parsed = parse_origin(origin)
    except OriginSyntaxError:
        return origin
    return parsed.repository  # github.com/owner/repo, or file:/path


def with_changelog(change: Change, changelog: Changelog) -> Change:
    return dataclasses.replace(change, changelog=changelog)
