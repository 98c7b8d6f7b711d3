"""metapkg tree [--json]"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from metapkg.cli.output import say


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the graph as JSON")


def run(args: argparse.Namespace) -> int:
    from metapkg.actions.inspect import tree, tree_data

    if args.json:
        print(json.dumps(tree_data(Path.cwd()), indent=2))
        return 0
    for line in tree(Path.cwd()):
        say(line)
    return 0
