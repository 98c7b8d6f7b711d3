"""The three faces of a diff: text for terminals, markdown for PR comments, JSON for bots."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from metapkg.diff.compare import Change
from metapkg.graph.changes import markdown_section

_SYMBOL = {"added": "+", "removed": "-", "upgraded": "↑", "downgraded": "↓", "changed": "~"}


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
        return f"{title}: no package changes\n"
    lines = [f"{title}: {len(changes)} package change(s)"]
    alerts = [a for c in changes for a in c.alerts]
    if alerts:
        lines.append("")
        lines.append(paint(f"{len(alerts)} alert(s):", "warning"))
        lines.extend(paint(f"  ! [{a.id}] {a.message}", "warning") for a in alerts)
    for change in changes:
        lines.append("")
        bump = f" ({change.bump})" if change.bump else ""
        lines.append(
            paint(
                f"{_SYMBOL[change.change]} {change.label} {_versions(change)}{bump}", "bold"
            ).rstrip()
        )
        lines.extend(f"    + depends on {_dep(d)}" for d in change.dependencies_added if change.old)
        lines.extend(
            f"    - no longer depends on {_dep(d)}"
            for d in change.dependencies_removed
            if change.new
        )
        if change.old and change.new and change.old.origin != change.new.origin:
            lines.append(f"    origin {change.old.origin} -> {change.new.origin}")
        lines.extend("    " + line for line in _server_text(change))
        lines.extend("    " + line for line in _changelog_text(change))
    return "\n".join(lines) + "\n"


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


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown(changes: Sequence[Change], title: str) -> str:
    out = [f"### metapkg.lock changes ({title})", ""]
    if not changes:
        return "\n".join([*out, "No package changes.", ""])
    alerts = [a for c in changes for a in c.alerts]
    if alerts:
        out.append(f"**{len(alerts)} alert(s)**")
        out.append("")
        out.extend(f"- :warning: `{a.id}`: {_cell(a.message)}" for a in alerts)
        out.append("")
    out += ["| | package | from | to | bump | alerts |", "|---|---|---|---|---|---|"]
    for change in changes:
        out.append(
            "| {} | `{}` | {} | {} | {} | {} |".format(
                change.change,
                _cell(change.label),
                _cell(change.from_version or ""),
                _cell(change.to_version or ""),
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
                f"<details><summary>{_cell(change.label)}</summary>",
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
    facts = [f"- depends on `{_dep(d)}` (new)" for d in change.dependencies_added if change.old]
    facts += [
        f"- no longer depends on `{_dep(d)}`" for d in change.dependencies_removed if change.new
    ]
    if change.old and change.new and change.old.origin != change.new.origin:
        facts.append(f"- origin `{change.old.origin}` → `{change.new.origin}`")
    if facts:
        sections.append(facts)
    if change.kind == "mcp":
        before = change.old.server if change.old else None
        after = change.new.server if change.new else None
        if before != after:
            for name, server in (("before", before), ("after", after)):
                if server is not None:
                    heading = f"Server {name}:" if before is not None else "Server:"
                    sections.append([heading, "", "```json", _server_json(server), "```"])
    if change.changelog.unavailable:
        sections.append([f"_CHANGELOG not available: {change.changelog.unavailable}_"])
    for entry in change.changelog.entries:
        body = [
            ("##" + line) if line.startswith("#") else line
            for line in entry.body.strip("\n").splitlines()
        ]
        sections.append([f"#### {entry.version} ({entry.date})", "", *body])
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
