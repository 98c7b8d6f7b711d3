"""How a change's files are shown: the commits, the file list, the frontmatter fields and
the unified diffs, bounded by ``--max-lines`` across the whole diff.

The lines returned are raw (untrusted) text; each format escapes them for its medium.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from metapkg.diff.compare import Change
from metapkg.diff.content import Content, FileDelta, FileInfo

_MARK = {"added": "+", "removed": "-", "changed": "~", "mode": "~"}


@dataclass
class Budget:
    """Diff lines left to show (``limit`` 0: no limit) and what was cut, per package."""

    limit: int
    used: int = 0
    cut: dict[str, int] = field(default_factory=dict)

    def take(self, label: str, lines: list[str]) -> list[str]:
        if not self.limit:
            return lines
        room = max(0, self.limit - self.used)
        shown = lines[:room]
        self.used += len(shown)
        if len(lines) > room:
            self.cut[label] = self.cut.get(label, 0) + len(lines) - room
        return shown

    def notice(self) -> str | None:
        if not self.cut:
            return None
        total = sum(self.cut.values())
        return (
            f"{total} more diff line(s) of {len(self.cut)} package(s) not shown "
            f"(--max-lines {self.limit}); --max-lines 0 shows them all"
        )


def commits(change: Change) -> str | None:
    """``commit OLD -> NEW`` (``commit NEW`` for an added package); None for a removal."""
    a = change.old.commit if change.old else None
    b = change.new.commit if change.new else None
    if b is None or a == b:
        return None
    return f"commit {_short(a)} -> {_short(b)}" if a else f"commit {_short(b)}"


def unavailable(change: Change) -> str | None:
    """Why the files are not shown, unless the CHANGELOG line already said the same."""
    content = change.content
    if content is None or content.unavailable is None:
        return None
    if content.unavailable == change.changelog.unavailable:
        return "files not shown (same reason)"
    return f"files not shown: {content.unavailable}"


def _short(sha: str | None) -> str:
    return sha[:12] if sha else "(none)"


def file_list(content: Content) -> list[str]:
    if not content.files:
        return []
    return [f"files: {content.summary}"] + [f"  {_file_line(d)}" for d in content.files]


def _file_line(delta: FileDelta) -> str:
    line = f"{_MARK[delta.status]} {delta.path}"
    info = delta.new or delta.old
    assert info is not None
    notes = []
    if delta.binary:
        notes.append(_binary(delta))
    if delta.status == "mode" and delta.old is not None and delta.new is not None:
        notes.append("now executable" if delta.new.executable else "no longer executable")
    elif delta.new is not None and delta.new.executable:
        notes.append("executable")
    if delta.new is not None and delta.new.shebang and delta.status == "added":
        notes.append("shebang")
    return f"{line}  ({', '.join(notes)})" if notes else line


def _binary(delta: FileDelta) -> str:
    def shown(info: FileInfo | None) -> str:
        return "-" if info is None else f"{_size(info.size)} sha256:{info.sha256[:12]}"

    if delta.old is None or delta.new is None:
        return f"binary or large: {shown(delta.new or delta.old)}"
    return f"binary or large: {shown(delta.old)} -> {shown(delta.new)}"


def _size(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KiB"
    return f"{size / 1024 / 1024:.1f} MiB"


def field_lines(content: Content) -> list[str]:
    return [f"{c.field}: {_quoted(c.old)} -> {_quoted(c.new)}" for c in content.fields]


def _quoted(value: str | None) -> str:
    return "(none)" if value is None else repr(value)


def diff_lines(content: Content, label: str, budget: Budget) -> list[str]:
    lines = [line for delta in content.files for line in delta.lines]
    return budget.take(label, lines)


def as_json(change: Change) -> dict[str, Any]:
    content = change.content
    item: dict[str, Any] = {
        "commit": {
            "from": change.old.commit if change.old else None,
            "to": change.new.commit if change.new else None,
        }
    }
    if content is None:
        return item
    if content.unavailable:
        item["content_unavailable"] = content.unavailable
        return item
    item["fields"] = [{"field": c.field, "from": c.old, "to": c.new} for c in content.fields]
    item["files"] = [_file_json(delta) for delta in content.files]
    return item


def _file_json(delta: FileDelta) -> dict[str, Any]:
    def side(info: FileInfo | None) -> dict[str, Any] | None:
        if info is None:
            return None
        return {"size": info.size, "sha256": info.sha256, "executable": info.executable}

    return {
        "path": delta.path,
        "status": delta.status,
        "from": side(delta.old),
        "to": side(delta.new),
        "binary": delta.binary,
        "diff": list(delta.lines),
    }
