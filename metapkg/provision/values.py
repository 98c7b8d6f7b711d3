"""The values of the MCP placeholders for a project (standard library only: the
up-to-date check needs them before anything heavy is imported)."""

from __future__ import annotations

from pathlib import Path

from metapkg.settings import shared_dir


def placeholder_values(project: Path) -> dict[str, str]:
    """``${workspaceDir}`` and ``${sharedDir}``: absolute, forward slashes."""
    return {"workspaceDir": project.absolute().as_posix(), "sharedDir": shared_dir()}
