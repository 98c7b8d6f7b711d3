"""metapkg init"""

from __future__ import annotations

import argparse
from pathlib import Path

from metapkg.cli.output import status


def configure(parser: argparse.ArgumentParser) -> None:
    pass


def run(args: argparse.Namespace) -> int:
    from metapkg.actions.edit import init

    for name in init(Path.cwd()):
        status(f"Wrote {name}", args.quiet)
    return 0
