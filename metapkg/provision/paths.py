"""Every path metapkg may write in a project, and the rule that it never writes through a link.

The lock, the local state and an interrupted install's journal all name project paths, and
all three can arrive from elsewhere (a pull request, a cloned repository that commits
``.metapkg/``). Whatever they name must have one of the exact shapes metapkg writes, and
no folder on the way to it may be a symbolic link: a link at ``.claude`` would send every
skill wherever it points.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

_NAME = r"[a-z0-9]+(?:-[a-z0-9]+)*"
# Every path a placement can produce, and nothing else.
HOST_PATH = re.compile(
    rf"^(?:\.agents/skills/{_NAME}|\.agents/agents/{_NAME}|\.claude/skills/{_NAME}"
    rf"|\.claude/agents/{_NAME}\.md)$"
)
# Files metapkg writes besides placements: the lock and the MCP configs.
CONFIG_FILES = frozenset({"metapkg.lock", ".mcp.json"})
# Folders a placement lives in (created by an install, removed when left empty).
HOST_FOLDERS = (".agents/skills", ".agents/agents", ".claude/skills", ".claude/agents", ".agents")
_CREATED_FOLDERS = frozenset({*HOST_FOLDERS, ".claude"})


def is_provisioned(path: str) -> bool:
    """A path a package is copied to."""
    return HOST_PATH.match(path) is not None


def is_writable(path: str) -> bool:
    """Any path an install may replace or remove."""
    return is_provisioned(path) or path in CONFIG_FILES


def is_host_folder(path: str) -> bool:
    """A folder an install may create for its placements (and remove again)."""
    return path in _CREATED_FOLDERS


def linked_folder(project: Path, relative: str) -> str | None:
    """The first folder on the way to ``relative`` (inside the project) that is a symbolic
    link, or the path itself if it is a link and not a placement metapkg replaces whole."""
    parts = relative.split("/")
    for depth in range(1, len(parts)):
        folder = "/".join(parts[:depth])
        if os.path.islink(project / folder):
            return folder
    return None
