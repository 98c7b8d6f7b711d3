"""What a manifest file declares, read cheaply and without ever raising.

Discovery reads these to tell packages apart before anything is loaded: the ``name`` a
SKILL.md declares (``--skill NAME`` and same-named folders), and whether a folder's own
AGENTS.md is a MetaAgents agent or a repository's instructions. A file that cannot be
read or parsed declares nothing here; loading the package reports why, naming the file.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from metapkg import limits

_NAME_LINE = re.compile(r"^name:[ \t]*(?P<value>.*?)[ \t]*(?:#.*)?$")


def declared_name(manifest: Path) -> str | None:
    """The top-level ``name:`` of the file's frontmatter, as written, or None.

    A line scan, not a YAML parse: thousands of skills are named in milliseconds, and a
    file whose YAML is broken still gets the name its author typed.
    """
    text = _head(manifest)
    if text is None:
        return None
    lines = text.removeprefix("\ufeff").replace("\r\n", "\n").split("\n")
    if not lines or lines[0].rstrip() != "---":
        return None
    for line in lines[1:]:
        if line.rstrip() == "---":
            return None
        match = _NAME_LINE.match(line)
        if match:
            value = match.group("value").strip()
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
                value = value[1:-1]
            return value or None
    return None


def metaagents_agent(manifest: Path) -> str | None:
    """The agent name when the AGENTS.md opens with MetaAgents frontmatter (a ``name``
    and a ``description``); None for an instructions file (no frontmatter, frontmatter
    about something else such as ``title:``, or frontmatter that does not parse)."""
    from metapkg.packages.frontmatter import FrontmatterProblem, parse

    text = _head(manifest)
    if text is None:
        return None
    try:
        fields = parse(text).fields
    except FrontmatterProblem:
        return None
    name, description = fields.get("name"), fields.get("description")
    if isinstance(name, str) and name and isinstance(description, str):
        return name
    return None


def fingerprint(folder: Path) -> str:
    """A digest of the folder's files (paths and bytes), links and all, to tell one skill
    kept in two places (an identical copy) from two skills that share a name."""
    digest = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames.sort()
        for name in sorted(filenames):
            path = Path(dirpath, name)
            relative = path.relative_to(folder).as_posix()
            digest.update(relative.encode("utf-8", "surrogateescape") + b"\0")
            try:
                if path.is_symlink():
                    digest.update(b"link:" + os.readlink(path).encode("utf-8", "surrogateescape"))
                else:
                    digest.update(path.read_bytes())
            except OSError:
                digest.update(b"unreadable")
            digest.update(b"\0")
    return digest.hexdigest()


def _head(manifest: Path) -> str | None:
    try:
        with manifest.open("rb") as handle:
            head = handle.read(limits.FRONTMATTER_BYTES + 4096)  # the frontmatter and more
    except OSError:
        return None
    return head.decode("utf-8", errors="replace")


def plugin_name(folder: Path) -> str | None:
    """The ``name`` a plugin folder's plugin.json declares, or None (unreadable, absent)."""
    from metapkg import jsonsafe
    from metapkg.packages.plugin import find_manifest
    from metapkg.safefile import read_regular

    manifest = find_manifest(folder)
    if manifest is None:
        return None
    try:
        data = jsonsafe.loads(read_regular(folder / manifest, cap=limits.MCP_JSON_BYTES).decode())
    except (OSError, UnicodeDecodeError, jsonsafe.JsonProblem):
        return None
    name = data.get("name") if isinstance(data, dict) else None
    return name if isinstance(name, str) else None
