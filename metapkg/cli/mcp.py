"""metapkg mcp [--allow-command EXE ...]: serve run_metaskill to an agent over MCP stdio."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import ClassVar

from metapkg.cli import options
from metapkg.cli.base import BaseCommand, Option


class McpCommand(BaseCommand):
    arguments: ClassVar[tuple[Option, ...]] = (options.ALLOW_COMMAND,)
    examples: ClassVar = (
        ("metapkg -C ${workspaceDir} mcp", "as a host's MCP config starts it"),
        ("metapkg mcp --allow-command pytest", "metaskills may also run pytest"),
    )

    def handle(self, args: argparse.Namespace) -> int:
        from metapkg.metaskills.mcpserver import serve  # the MCP SDK: only when serving

        return serve(Path.cwd(), list(args.allow_command))


COMMAND = McpCommand()
