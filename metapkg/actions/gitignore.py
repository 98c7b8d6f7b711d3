"""The managed block of .gitignore: exactly the paths metapkg provisioned.

``metapkg init`` adds the block; every install that changes what metapkg owns rewrites
its inside (and nothing outside it). Listing the exact paths, not whole folders, keeps a
skill a user writes by hand in ``.claude/skills/`` visible to git. A host config file is
listed only while every entry in it is metapkg's: a file that also holds the user's own
servers or settings (``.vscode/mcp.json``, ``.gemini/settings.json``) is theirs to commit.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from metapkg.textio import read_utf8, write_atomic

FILENAME = ".gitignore"
BEGIN = "# >>> metapkg: provisioned files (rewritten by `metapkg install`; edit outside)"
END = "# <<< metapkg"


def block(paths: Iterable[str]) -> str:
    lines = [BEGIN, ".metapkg/", *sorted(set(paths)), END]
    return "\n".join(lines) + "\n"


def add_block(existing: str, paths: Iterable[str] = ()) -> str | None:
    """``existing`` with the managed block appended; None when it already has one."""
    if BEGIN in existing:
        return None
    separator = "" if not existing or existing.endswith("\n\n") else (
        "\n" if existing.endswith("\n") else "\n\n"
    )  # fmt: skip
    return existing + separator + block(paths)


def update(project: Path, paths: Iterable[str]) -> bool:
    """Rewrite the managed block, if the project's .gitignore has one; True if changed."""
    path = project / FILENAME
    try:
        text = read_utf8(path, "gitignore", FILENAME)
    except (FileNotFoundError, OSError):
        return False
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        return False
    after = end + len(END)
    after += 1 if text[after : after + 1] == "\n" else 0
    new = text[:start] + block(paths) + text[after:]
    if new == text:
        return False
    write_atomic(path, new)
    return True
