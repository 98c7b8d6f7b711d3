"""A supply-chain policy that may only tighten: what origins, refs, content and MCP
commands a project accepts.

Policies come from the project (`policy:` in metapkg.yaml), a file or URL (``--policy``)
and the organisation (``METAPKG_POLICY``). They are combined so that none can loosen
another: allow-lists intersect, deny-lists and forbidden content add up, a ``false``
pinning flag wins, and the lowest ``max-alert`` counts. A project cannot re-allow what its
organisation denied.

    policy:
      origins:
        allow: ["github.com/acme/*"]      # host/owner/repo globs; none given: any
        deny: ["github.com/acme/legacy-*"]
      pinning:
        branches: false                   # refs must be tags or commits
        ranges: true                      # version ranges allowed
      forbid: [executables, hooks, metaskills, remote-mcp]
      mcp-commands: [npx, uvx]            # the programs MCP servers may run
      max-alert: medium                   # audit findings above this level are violations
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from metapkg.audit.findings import LEVELS, Finding, Item
from metapkg.diagnostics import ManifestError, error
from metapkg.diff.content import is_hook, is_script

FORBIDDABLE = ("executables", "hooks", "metaskills", "remote-mcp")
KEYS = ("origins", "pinning", "forbid", "mcp-commands", "max-alert")
_VERSION_TAG = re.compile(r"^(?:.+[@/])?v?\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]*)?$")
_COMMIT = re.compile(r"^[0-9a-f]{40}$")


@dataclass(frozen=True)
class Policy:
    allow: tuple[str, ...] | None = None  # None: every origin
    deny: tuple[str, ...] = ()
    branches: bool = True
    ranges: bool = True
    forbid: frozenset[str] = frozenset()
    mcp_commands: frozenset[str] | None = None  # None: any program
    max_alert: str | None = None
    sources: tuple[str, ...] = ()  # where its parts came from, for messages

    @property
    def reads_files(self) -> bool:
        """Whether judging a package needs its files (content rules, alert levels)."""
        return bool(self.forbid - {"metaskills", "remote-mcp"}) or self.max_alert is not None

    @property
    def empty(self) -> bool:
        return self == Policy(sources=self.sources)


def parse(data: Any, source: str) -> Policy:
    """A policy mapping as written in ``source`` (metapkg.yaml's ``policy:``, a file)."""
    if data is None:
        return Policy()
    if not isinstance(data, Mapping):
        raise _bad(source, "policy", "must be a mapping of " + ", ".join(KEYS))
    unknown = sorted(set(map(str, data)) - set(KEYS))
    if unknown:
        raise _bad(source, f"policy.{unknown[0]}", f"unknown key; known: {', '.join(KEYS)}")
    origins = _mapping(data.get("origins"), source, "policy.origins", ("allow", "deny"))
    pinning = _mapping(data.get("pinning"), source, "policy.pinning", ("branches", "ranges"))
    allow = origins.get("allow")
    forbid = _strings(data.get("forbid"), source, "policy.forbid")
    bad = sorted(set(forbid) - set(FORBIDDABLE))
    if bad:
        raise _bad(source, "policy.forbid", f"unknown {bad[0]!r}; give {', '.join(FORBIDDABLE)}")
    commands = data.get("mcp-commands")
    max_alert = data.get("max-alert")
    if max_alert is not None and max_alert not in LEVELS:
        raise _bad(source, "policy.max-alert", f"give one of {', '.join(LEVELS)}")
    return Policy(
        allow=None if allow is None else tuple(_strings(allow, source, "policy.origins.allow")),
        deny=tuple(_strings(origins.get("deny"), source, "policy.origins.deny")),
        branches=_flag(pinning.get("branches", True), source, "policy.pinning.branches"),
        ranges=_flag(pinning.get("ranges", True), source, "policy.pinning.ranges"),
        forbid=frozenset(forbid),
        mcp_commands=None
        if commands is None
        else frozenset(_strings(commands, source, "policy.mcp-commands")),
        max_alert=max_alert,
        sources=(source,),
    )


def tighten(a: Policy, b: Policy) -> Policy:
    """Both policies at once: whatever either forbids stays forbidden."""
    allow = a.allow if b.allow is None else b.allow if a.allow is None else _both(a.allow, b.allow)
    commands = a.mcp_commands if b.mcp_commands is None else b.mcp_commands
    if a.mcp_commands is not None and b.mcp_commands is not None:
        commands = a.mcp_commands & b.mcp_commands
    levels = [level for level in (a.max_alert, b.max_alert) if level is not None]
    return Policy(
        allow=allow,
        deny=tuple(dict.fromkeys(a.deny + b.deny)),
        branches=a.branches and b.branches,
        ranges=a.ranges and b.ranges,
        forbid=a.forbid | b.forbid,
        mcp_commands=commands,
        max_alert=max(levels, key=LEVELS.index) if levels else None,
        sources=a.sources + b.sources,
    )


def _both(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[str, ...]:
    """Origins both allow-lists admit: each pattern of one kept when the other admits
    it (a pattern admitted by a glob of the other, or the same pattern)."""
    keep = [p for p in a if any(fnmatch.fnmatchcase(p, q) for q in b)]
    keep += [p for p in b if any(fnmatch.fnmatchcase(p, q) for q in a) and p not in keep]
    return tuple(keep)


def violations(
    policy: Policy, items: Iterable[Item], findings: Iterable[Finding], ranged: set[str]
) -> list[Finding]:
    """Every way ``items`` break ``policy``. ``ranged``: fqns required by a version range."""
    found: list[Finding] = []
    for item in items:
        found += _origin_rules(policy, item, ranged)
        found += _content_rules(policy, item)
    if policy.max_alert is not None:
        limit = LEVELS.index(policy.max_alert)
        for finding in findings:
            if finding.rank < limit:
                message = (
                    f"{finding.message} ({finding.level} is above the policy's "
                    f"max-alert: {policy.max_alert})"
                )
                found.append(_violation("policy-max-alert", finding.label, message, finding))
    return found


def _origin_rules(policy: Policy, item: Item, ranged: set[str]) -> list[Finding]:
    found = []
    where = _repository(item.origin)
    if policy.allow is not None and not _matches(where, policy.allow):
        message = f"{item.label} comes from {where}, which the policy does not allow"
        found.append(_violation("policy-origin", item.label, message))
    if _matches(where, policy.deny):
        found.append(_violation("policy-origin", item.label, f"{item.label}: {where} is denied"))
    ref = _ref(item)
    if not policy.branches and ref is not None and item.fqn not in ranged and not _fixed(ref):
        message = f"{item.label} follows the branch {ref!r}; the policy wants tags or commits"
        found.append(_violation("policy-pinning", item.label, message))
    if not policy.ranges and item.fqn in ranged:
        message = f"{item.label} is required by a version range; the policy forbids ranges"
        found.append(_violation("policy-pinning", item.label, message))
    return found


def _content_rules(policy: Policy, item: Item) -> list[Finding]:
    found = []
    files = item.files or {}
    checks = {
        "executables": any(is_script(path, info) for path, info in files.items()),
        "hooks": any(is_hook(path) for path in files),
        "metaskills": item.metaskill is not None,
        "remote-mcp": item.server is not None and "url" in item.server,
    }
    for what in sorted(policy.forbid):
        if checks[what]:
            message = f"{item.label} holds {what}, which the policy forbids"
            found.append(_violation("policy-content", item.label, message))
    command = item.server.get("command") if item.server is not None else None
    if policy.mcp_commands is not None and isinstance(command, str):
        program = command.rsplit("/", 1)[-1]
        if program not in policy.mcp_commands:
            allowed = ", ".join(sorted(policy.mcp_commands)) or "none"
            message = f"{item.label} runs {program}; the policy's mcp-commands allow {allowed}"
            found.append(_violation("policy-mcp-command", item.label, message))
    return found


def _violation(rule: str, label: str, message: str, cause: Finding | None = None) -> Finding:
    path, line = (cause.path, cause.line) if cause is not None else (None, None)
    return Finding(rule, label, message, path, line, severity="high")


def _repository(origin: str) -> str:
    if origin.startswith("https://"):
        parts = origin.removeprefix("https://").split("/")
        return "/".join(parts[:3])
    return origin


def _matches(where: str, patterns: Iterable[str]) -> bool:
    return any(fnmatch.fnmatchcase(where.lower(), p.lower()) for p in patterns)


def _ref(item: Item) -> str | None:
    """The ref a package's origin follows (the lock's pin knows where a ref with ``/``
    ends; else the first segment after /tree/)."""
    if item.ref is not None:
        return item.ref
    if "/tree/" not in item.origin:
        return None
    return item.origin.split("/tree/", 1)[1].split("/", 1)[0]


def _fixed(ref: str) -> bool:
    return bool(_COMMIT.match(ref) or _VERSION_TAG.match(ref))


def _mapping(value: Any, source: str, field: str, keys: tuple[str, ...]) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping) or not set(map(str, value)) <= set(keys):
        raise _bad(source, field, f"must be a mapping with {' and/or '.join(keys)}")
    return value


def _strings(value: Any, source: str, field: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _bad(source, field, "must be a list of strings")
    return list(value)


def _flag(value: Any, source: str, field: str) -> bool:
    if not isinstance(value, bool):
        raise _bad(source, field, "must be true or false")
    return value


def _bad(source: str, field: str, message: str) -> ManifestError:
    return ManifestError([error("policy", source, f"{field}: {message}")])
