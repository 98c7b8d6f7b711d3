"""What install says about the packages it installs: grouped, once, and only when new.

A consumer's install reports each rule once, with a count and the packages it applies
to (``warning[description] 2 skills have a description over 1,024 characters: a, b;
...``), instead of one line per package per run. The full per-package findings stay
available (``-v``, and ``--json``'s ``diagnostics``). A package's findings are reported
when it enters the graph or changes (its lock entry is new or different), so a no-op
install, an install from the lock (``--frozen``) or adding one more package does not
repeat what the user has already been told.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from metapkg.diagnostics import Diagnostic
from metapkg.lock import format as lockfmt
from metapkg.packages.models import Key, Kind

# "Metis (target metis) would not load skill x: ..." (provision/hostrules.py)
_HOST = re.compile(r"^(?P<title>.+?) \(target \S+\) (?P<verb>would not load|warns about) ")
SHOWN = 3  # packages named in a grouped line before "and N more"
# Findings a consumer needs no line for: plain Agent Skills packages are the common case,
# and the lock pins them by commit and integrity all the same (``-v`` still lists them).
QUIET = frozenset({"not-metaagents"})


@dataclass(frozen=True)
class Finding:
    """One package's finding at install."""

    key: Key
    diagnostic: Diagnostic


@dataclass(frozen=True)
class Group:
    """All the findings of one rule and severity, as one line."""

    rule: str
    severity: str
    keys: tuple[Key, ...]
    text: str  # "2 skills have a description over 1,024 characters"
    consequence: str  # what install and the hosts do about it ("" if nothing to add)

    def render(self) -> str:
        names = [fqn for _, fqn in self.keys]
        listed = ", ".join(names[:SHOWN])
        if len(names) > SHOWN:
            listed += f" and {len(names) - SHOWN} more"
        line = f"{self.severity}[{self.rule}] {self.text}: {listed}"
        return f"{line}; {self.consequence}" if self.consequence else line


def changed_keys(old: lockfmt.Lockfile | None, new: lockfmt.Lockfile) -> frozenset[Key]:
    """The packages that enter the graph or change in it (their lock entry differs)."""
    before = {p.key: (p.origin, p.integrity) for p in old.packages} if old is not None else {}
    return frozenset(p.key for p in new.packages if before.get(p.key) != (p.origin, p.integrity))


def group(findings: Iterable[Finding], hosts: Sequence[str] = ()) -> tuple[Group, ...]:
    """One group per rule (and severity), in the order rules first appear; ``hosts``: the
    active targets, for what each does with what the rule is about."""
    by_rule: dict[tuple[str, str, str], dict[Key, None]] = {}  # keys in first-seen order
    for finding in findings:
        d = finding.diagnostic
        if d.rule not in QUIET:
            by_rule.setdefault((d.rule, _variant(d), d.severity), {})[finding.key] = None
    return tuple(
        _group(rule, variant, severity, tuple(keys), hosts)
        for (rule, variant, severity), keys in by_rule.items()
    )


def _group(
    rule: str, variant: str, severity: str, keys: tuple[Key, ...], hosts: Sequence[str]
) -> Group:
    text = _text(rule, variant, keys)
    return Group(rule, severity, keys, text, _consequence(rule, variant, len(keys), hosts))


def _variant(d: Diagnostic) -> str:
    """Findings of one rule that call for different words: a long or a missing
    description; a host that would not load a package, or warns about it (hostrules.py)."""
    if d.rule == "description":
        return "long" if "the limit is" in d.message else "missing"
    if d.rule == "name" and "the limit is 64" in d.message:
        return "long"
    if d.rule.startswith("agentskills/"):
        return "agentskills"
    if host := _HOST.match(d.message):
        return f"{host['verb']}:{host['title']}"
    return ""


# (rule, variant) -> what the packages have, after "N skills"; {have}: has or have,
# {their}: its or their, {s}: "s" for one package (declares), {a}: "a " for one.
_TEXTS: Mapping[tuple[str, str], str] = {
    ("description", "long"): "{have} a description over 1,024 characters",
    ("description", "missing"): "{have} no usable description",
    ("name", ""): "{have} a name that is not a package name (kebab-case, at most 64 characters)",
    ("name", "long"): "{have} a name over 64 characters",
    ("name-dir", ""): "{have} a name that differs from {their} folder's",
    ("prereqs", ""): "{have} prereqs that are not text",
    ("prereqs-agent", ""): "{are} {a}agent{p} that declare{s} prereqs",
    ("mcp-filename", ""): "{have} a file name that does not follow {their} _meta.name",
    ("mcp-format", ""): "{are} not formatted as the spec asks (2-space JSON, final newline)",
    ("file-origin", ""): "depend{s} on file: origins, which exist only on {their} author's machine",
    ("origin-object", ""): "write dependencies as {{origin: ...}} objects",
    ("template-placeholder", ""): "{are} {a}template{p} with {{{{placeholders}}}} in {their} "
    "frontmatter",
    ("changelog-missing", ""): "declare{s} a version but {have} no CHANGELOG.md",
    ("changelog-version", ""): "{have} a CHANGELOG.md whose newest entry is not {their} version",
    ("changelog-header", ""): "{have} a CHANGELOG.md header that is not '## X.Y.Z (YYYY-MM-DD)'",
    ("changelog-order", ""): "{have} a CHANGELOG.md whose versions are out of order",
    ("version", ""): "{have} a version that is not SemVer",
    ("scope", ""): "{have} a scope that is not a package scope",
    ("body-length", ""): "{have} a SKILL.md body over 20,000 characters (hosts may truncate it)",
    ("agentskills", ""): "{have} an optional Agent Skills field of the wrong type or size",
    ("hidden-unicode", ""): "{have} invisible or bidirectional control characters in {their} text",
}
_LEAF = "{they} install{s} as {a}leaf package{p} pinned by commit and integrity"
_CONSEQUENCES: Mapping[tuple[str, str], str] = {
    ("description", "missing"): "hosts list {them} by name only",
    ("name", ""): "{they} install{s} under {their} folder name{p}",
    ("name", "long"): "{they} install{s} under {their} folder name{p}",
    ("prereqs", ""): "{they} install{s} without {their} setup steps",
    ("name-dir", ""): "{they} install{s} under {their} folder name{p}",
    ("template-placeholder", ""): "{they} install{s} under {their} folder name{p}; fill the "
    "placeholders in before relying on {them}",
    ("changelog-missing", ""): "{they} install{s} as {a}plain package{p}, pinned by commit "
    "and integrity",
    ("changelog-version", ""): _LEAF,
    ("changelog-header", ""): _LEAF,
    ("changelog-order", ""): _LEAF,
    ("version", ""): "the version is ignored; " + _LEAF,
    ("scope", ""): "{they} install{s} without a scope",
}
# What a host does with a description over 1,024 characters, where its source says so:
# Claude Code loads it (its skill list shows up to 1,536 characters); Codex loads it
# since 0.142 and shows the first 1,024 characters in its skill catalog (it skipped such
# a skill before); OpenCode loads it (it enforces no length). Metis skips it: its own
# check profile says so at install (hostrules.py), and it gets its own line.
_LONG_DESCRIPTION: Mapping[str, str] = {
    "claude": "Claude Code loads {them}",
    "opencode": "OpenCode loads {them}",
    "codex": "Codex shows the first 1,024 characters",
}


def _words(count: int) -> dict[str, str]:
    one = count == 1
    return {
        "have": "has" if one else "have",
        "are": "is" if one else "are",
        "their": "its" if one else "their",
        "they": "it" if one else "they",
        "them": "it" if one else "them",
        "s": "s" if one else "",
        "a": "a " if one else "",
        "p": "" if one else "s",
    }


def _text(rule: str, variant: str, keys: Sequence[Key]) -> str:
    if variant == "agentskills":  # the rule id says which field
        variant, rule = "", "agentskills"
    kinds = {kind for kind, _ in keys}
    noun = _noun(next(iter(kinds)) if len(kinds) == 1 else None, len(keys))
    verb, _, title = variant.partition(":")
    if verb == "would not load":
        template = f"would not load in {title}"
    elif verb == "warns about":
        template = f"draw{{s}} a warning from {title}"
    else:
        template = _TEXTS.get((rule, variant), "{have} findings of this rule (`-v` shows them)")
    return f"{len(keys)} {noun} " + template.format(**_words(len(keys)))


def _noun(kind: Kind | None, count: int) -> str:
    word = {
        "skill": "skill",
        "agent": "agent",
        "mcp": "MCP server",
        "plugin": "plugin",
        None: "package",
    }[kind]
    return word if count == 1 else word + "s"


def _consequence(rule: str, variant: str, count: int, hosts: Sequence[str]) -> str:
    words = _words(count)
    verb, _, title = variant.partition(":")
    if verb == "would not load":
        return (
            f"{words['they']} {words['are']} not provisioned for {title}; "
            f"the other targets get {words['them']}"
        )
    said = _CONSEQUENCES.get((rule, variant), "")
    if (rule, variant) == ("name", "long") and "codex" in hosts:
        # Codex reads the name in SKILL.md, whatever the folder, and skips one over 64
        said += ", but Codex skips {them}"
    if (rule, variant) == ("description", "long"):
        said = ", ".join(text for host, text in _LONG_DESCRIPTION.items() if host in hosts)
    return said.format(**words)
