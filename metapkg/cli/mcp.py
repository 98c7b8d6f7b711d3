"""metapkg mcp [--allow-command EXE ...]: serve run_metaskill to an agent over MCP stdio."""

from __future__ import annotations

import argparse
from pathlib import Path

from metapkg.cli.run import add_allow_command, allowed_commands


def configure(parser: argparse.ArgumentParser) -> None:
    add_allow_command(parser)


def run(args: argparse.Namespace) -> int:
    extra = allowed_commands(args)
    from metapkg.metaskills.mcpserver import serve  # the MCP SDK: only when serving

    return serve(Path.cwd(), extra)
