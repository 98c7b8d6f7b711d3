"""metapkg why FQN"""

from __future__ import annotations

import argparse
from pathlib import Path


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("fqn", metavar="FQN", help="a package's fully-qualified name")


def run(args: argparse.Namespace) -> int:
    from metapkg.actions.inspect import why

    for line in why(Path.cwd(), args.fqn):
        print(line)
    return 0
