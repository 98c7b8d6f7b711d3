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

from metapkg.diff import showfiles
from metapkg.diff.compare import Alert, Change
from metapkg.diff.showfiles import Budget
from metapkg.graph.changes import markdown_section
from metapkg.lock.format import LockedPackage
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


def ordered_alerts(changes: Sequence[Change]) -> list[tuple[Change, Alert]]:
    """Every alert, highest severity first, then by package (a new MCP server must not sit
    behind hundreds of low-risk alerts)."""
    found = [(c, a) for c in changes for a in c.alerts]
    return sorted(found, key=lambda pair: (pair[1].rank, pair[0].label))


# -- text --------------------------------------------------------------------------------


def text(
    changes: Sequence[Change],
    title: str,
    paint: Callable[[str, str], str],
    max_lines: int = 0,
) -> str:
    if not changes:
        return printable(f"{title}: no package changes") + "\n"
    lines: list[tuple[str, str | None]] = [(f"{title}: {len(changes)} package change(s)", None)]
    alerts = ordered_alerts(changes)
    if alerts:
        lines.append(("", None))
        lines.append((f"{len(alerts)} alert(s):", "warning"))
        lines.extend(
            (f"  ! {a.severity} [{a.id}] {a.message}", "error" if a.rank == 0 else "warning")
            for _, a in alerts
        )
    budget = Budget(max_lines)
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
        details += _files_text(change) + _server_text(change) + _changelog_text(change)
        details += _diff_text(change, budget)
        lines.extend(("    " + line, None) for line in details)
    notice = budget.notice()
    if notice:
        lines += [("", None), (notice, "warning")]
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


def _files_text(change: Change) -> list[str]:
    """The commits, the file list and the changed frontmatter fields."""
    lines = [c for c in [showfiles.commits(change)] if c]
    missing = showfiles.unavailable(change)
    if missing:
        return [*lines, f"({missing})"]
    if change.content is not None:
        lines += showfiles.file_list(change.content) + showfiles.field_lines(change.content)
    return lines


def _diff_text(change: Change, budget: Budget) -> list[str]:
    content = change.content
    if content is None or content.unavailable or change.kind == "mcp":
        return []  # an MCP server's change is shown as its config, before and after
    return showfiles.diff_lines(content, change.label, budget)


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


_ICON = {"high": ":rotating_light:", "medium": ":warning:", "low": ":information_source:"}


def markdown(changes: Sequence[Change], title: str, max_lines: int = 0) -> str:
    out = [f"### metapkg.lock changes ({title})", ""]
    if not changes:
        return "\n".join([*out, "No package changes.", ""])
    alerts = ordered_alerts(changes)
    if alerts:
        out.append(f"**{len(alerts)} alert(s)**, highest risk first")
        out.append("")
        out.extend(
            f"- {_ICON[a.severity]} **{a.severity}** `{a.id}`: {_md(a.message)}" for _, a in alerts
        )
        out.append("")
    budget = Budget(max_lines)
    out += ["| | package | from | to | bump | alerts |", "|---|---|---|---|---|---|"]
    for change in changes:
        out.append(
            "| {} | {} | {} | {} | {} | {} |".format(
                change.change,
                _code(change.label),
                _md(_version_or_commit(change.old)),
                _md(_version_or_commit(change.new)),
                change.bump or "",
                ", ".join(f"`{a.id}`" for a in change.alerts),
            )
        )
    out.append("")
    out += markdown_section(changes)
    for change in changes:
        details = _markdown_details(change, budget)
        if details:
            out += [
                f"<details><summary>{_md(change.label)}</summary>",
                "",
                *details,
                "",
                "</details>",
                "",
            ]
    notice = budget.notice()
    if notice:
        out += [f"_{_md(notice)}_", ""]
    return "\n".join(out)


def _version_or_commit(package: LockedPackage | None) -> str:
    """A plain package has no version: the table shows its short commit instead."""
    if package is None:
        return ""
    if package.version:
        return package.version
    return f"@{package.commit[:7]}" if package.commit else ""


def _markdown_details(change: Change, budget: Budget) -> list[str]:
    """Sections separated by blank lines: dependencies, origin, files, server, changelog."""
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
    commits = showfiles.commits(change)
    if commits:
        facts.append(f"- {_md(commits)}")
    if facts:
        sections.append(facts)
    sections += _markdown_content(change, budget)
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


def _markdown_content(change: Change, budget: Budget) -> list[list[str]]:
    content = change.content
    missing = showfiles.unavailable(change)
    if missing:
        return [[f"_{_md(missing)}_"]]
    if content is None:
        return []
    sections = []
    listing = showfiles.file_list(content)
    if listing:
        sections.append([f"- {_md(line.strip())}" for line in listing])
    fields = showfiles.field_lines(content)
    if fields:
        sections.append(["Fields the host shows the model:", "", *(f"- {_md(f)}" for f in fields)])
    diff = [] if change.kind == "mcp" else showfiles.diff_lines(content, change.label, budget)
    if diff:
        sections.append(_fenced(diff, "diff"))
    return sections


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
        "alerts": [
            {
                "id": a.id,
                "severity": a.severity,
                "message": a.message,
                "path": a.path,
                "line": a.line,
            }
            for a in change.alerts
        ],
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
    item.update(showfiles.as_json(change))
    if change.kind == "mcp":
        item["server"] = {
            "from": change.old.server if change.old else None,
            "to": change.new.server if change.new else None,
        }
    return item
