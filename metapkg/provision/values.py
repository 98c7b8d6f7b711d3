"""The values of the MCP placeholders for a project (standard library only: the
up-to-date check needs them before anything heavy is imported)."""

from __future__ import annotations

import os
from pathlib import Path


def shared_dir() -> str:
    """``${sharedDir}``: METAPKG_SHARED_DIR, else the user data dir + /shared."""
    configured = os.environ.get("METAPKG_SHARED_DIR")
    if configured:
        return Path(configured).absolute().as_posix()
    from platformdirs import user_data_dir

    return Path(user_data_dir("metapkg", appauthor=False)).as_posix() + "/shared"


def placeholder_values(project: Path) -> dict[str, str]:
    """``${workspaceDir}`` and ``${sharedDir}``: absolute, forward slashes."""
    return {"workspaceDir": project.absolute().as_posix(), "sharedDir": shared_dir()}
