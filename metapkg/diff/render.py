"""The three faces of a diff: text for terminals, markdown for PR comments, JSON for bots.

Nearly everything shown comes from packages or from a lock in a pull request: names,
versions, origins, MCP commands, CHANGELOG text. A reviewer must see it as written, not
as it would like to be shown: the text format shows control characters visibly (an ESC
in an MCP arg cannot erase the alert above it), and the markdown format writes every
such string as inert text (HTML entities for anything markdown or HTML would read, fenced
blocks longer than any backtick run inside), so it cannot open a comment, close a
``<details>`` or fake an alert.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any

from metapkg.diff.compare import Change
from metapkg.graph.changes import markdown_section
from metapkg.untrusted import printable

_SYMBOL = {
    "added": "+", "removed": "-", "upgraded": "↑", "downgraded": "↓", "changed": "~",
    "renamed": "~",
}  # fmt: skip


def _dep(key: tuple[str, str]) -> str:
    return f"{key[0]} {key[1]}"


def _versions(change: Change) -> str:
    if change.change == "added":
        return change.to_version or ""
    if change.change == "removed":
        return change.from_version or ""
    if change.from_version == change.to_version:
        return change.to_version or ""
    return f"{change.from_version} -> {change.to_version}"


def _server_json(server: Any) -> str:
    return json.dumps(server, indent=2, ensure_ascii=False)


# -- text --------------------------------------------------------------------------------


def text(changes: Sequence[Change], title: str, paint: Callable[[str, str], str]) -> str:
    if not changes:
        return printable(f"{title}: no package changes") + "\n"
    lines: list[tuple[str, str | None]] = [(f"{title}: {len(changes)} package change(s)", None)]
    alerts = [a for c in changes for a in c.alerts]
    if alerts:
        lines.append(("", None))
        lines.append((f"{len(alerts)} alert(s):", "warning"))
        lines.extend((f"  ! [{a.id}] {a.message}", "warning") for a in alerts)
    for change in changes:
        lines.append(("", None))
        bump = f" ({change.bump})" if change.bump else ""
        head = f"{_SYMBOL[change.change]} {change.label} {_versions(change)}{bump}".rstrip()
        lines.append((head, "bold"))
        details = [f"+ depends on {_dep(d)}" for d in change.dependencies_added if change.old]
        details += [
            f"- no longer depends on {_dep(d)}" for d in change.dependencies_removed if change.new
        ]
        if change.old and change.new and change.old.origin != change.new.origin:
            details.append(f"origin {change.old.origin} -> {change.new.origin}")
        if change.change == "renamed":
            details.append("the repository was renamed: same commit, same content")
        details += _server_text(change) + _changelog_text(change)
        lines.extend(("    " + line, None) for line in details)
    # Escape first, paint last: the only escape sequences that reach the terminal are ours.
    return "\n".join(paint(printable(t), s) if s else printable(t) for t, s in lines) + "\n"


def _server_text(change: Change) -> list[str]:
    if change.kind != "mcp":
        return []
    before = change.old.server if change.old else None
    after = change.new.server if change.new else None
    if before == after:
        return []
    lines = []
    if before is not None:
        lines.append("server before:")
        lines.extend("  " + line for line in _server_json(before).splitlines())
    if after is not None:
        lines.append("server after:" if before is not None else "server:")
        lines.extend("  " + line for line in _server_json(after).splitlines())
    return lines


def _changelog_text(change: Change) -> list[str]:
    if change.changelog.unavailable:
        return [f"(CHANGELOG not available: {change.changelog.unavailable})"]
    lines = []
    for entry in change.changelog.entries:
        lines.append(f"## {entry.version} ({entry.date})")
        lines.extend(f"  {line}" for line in entry.body.strip("\n").splitlines() if line.strip())
    return lines


# -- markdown ----------------------------------------------------------------------------


# Characters markdown or HTML could read as syntax; written as numeric entities, which
# GitHub shows as the characters themselves and never interprets.
_MARKUP = re.compile(r"[&<>\"'`|*_\[\]\\~()!]")


def _md(text: str) -> str:
    """Untrusted text as inert markdown: visible controls, every markup character escaped."""
    return _MARKUP.sub(lambda m: f"&#{ord(m.group(0))};", printable(text))


def _code(text: str) -> str:
    """Untrusted text shown as code in a table or a list item."""
    return f"<code>{_md(text)}</code>"


def _fenced(lines: list[str], language: str = "") -> list[str]:
    """A fenced block that the content cannot close: the fence is longer than any
    backtick run inside it."""
    longest = max((len(run) for line in lines for run in re.findall(r"`+", line)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence + language, *(printable(line) for line in lines), fence]


def markdown(changes: Sequence[Change], title: str) -> str:
    out = [f"### metapkg.lock changes ({title})", ""]
    if not changes:
        return "\n".join([*out, "No package changes.", ""])
    alerts = [a for c in changes for a in c.alerts]
    if alerts:
        out.append(f"**{len(alerts)} alert(s)**")
        out.append("")
        out.extend(f"- :warning: `{a.id}`: {_md(a.message)}" for a in alerts)
        out.append("")
    out += ["| | package | from | to | bump | alerts |", "|---|---|---|---|---|---|"]
    for change in changes:
        out.append(
            "| {} | {} | {} | {} | {} | {} |".format(
                change.change,
                _code(change.label),
                _md(change.from_version or ""),
                _md(change.to_version or ""),
                change.bump or "",
                ", ".join(f"`{a.id}`" for a in change.alerts),
            )
        )
    out.append("")
    out += markdown_section(changes)
    for change in changes:
        details = _markdown_details(change)
        if details:
            out += [
                f"<details><summary>{_md(change.label)}</summary>",
                "",
                *details,
                "",
                "</details>",
                "",
            ]
    return "\n".join(out)


def _markdown_details(change: Change) -> list[str]:
    """Sections separated by blank lines: dependencies, origin, server, changelog."""
    sections: list[list[str]] = []
    facts = [
        f"- depends on {_code(_dep(d))} (new)" for d in change.dependencies_added if change.old
    ]
    facts += [
        f"- no longer depends on {_code(_dep(d))}"
        for d in change.dependencies_removed
        if change.new
    ]
    if change.old and change.new and change.old.origin != change.new.origin:
        facts.append(f"- origin {_code(change.old.origin)} → {_code(change.new.origin)}")
    if facts:
        sections.append(facts)
    if change.kind == "mcp":
        before = change.old.server if change.old else None
        after = change.new.server if change.new else None
        if before != after:
            for name, server in (("before", before), ("after", after)):
                if server is not None:
                    heading = f"Server {name}:" if before is not None else "Server:"
                    lines = _server_json(server).splitlines()
                    sections.append([heading, "", *_fenced(lines, "json")])
    if change.changelog.unavailable:
        sections.append([f"_CHANGELOG not available: {_md(change.changelog.unavailable)}_"])
    for entry in change.changelog.entries:
        body = entry.body.strip("\n").splitlines()
        heading = f"#### {_md(entry.version)} ({_md(entry.date)})"
        sections.append([heading, "", *(_fenced(body, "markdown") if body else [])])
    return [line for i, section in enumerate(sections) for line in ([""] if i else []) + section]


# -- json --------------------------------------------------------------------------------


def as_json(changes: Sequence[Change], old_name: str, new_name: str) -> str:
    payload = {
        "old": old_name,
        "new": new_name,
        "changes": [_change_json(c) for c in changes],
    }
    return json.dumps(payload, indent=2, ensure_ascii=False) + "\n"


def _change_json(change: Change) -> dict[str, Any]:
    item: dict[str, Any] = {
        "kind": change.kind,
        "fqn": change.fqn,
        "change": change.change,
        "from": change.from_version,
        "to": change.to_version,
        "bump": change.bump,
        "alerts": [{"id": a.id, "message": a.message} for a in change.alerts],
        "dependencies": {
            "added": [_dep(d) for d in change.dependencies_added],
            "removed": [_dep(d) for d in change.dependencies_removed],
        },
        "origin": {
            "from": change.old.origin if change.old else None,
            "to": change.new.origin if change.new else None,
        },
        "changelog": [
            {"version": e.version, "date": e.date, "body": e.body.strip("\n")}
            for e in change.changelog.entries
        ],
    }
    if change.kind == "mcp":
        item["server"] = {
            "from": change.old.server if change.old else None,
            "to": change.new.server if change.new else None,
        }
    return item
