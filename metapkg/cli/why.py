"""metapkg why FQN [--json]"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from metapkg.cli.output import say


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("fqn", metavar="FQN", help="a package's fully-qualified name")
    parser.add_argument("--json", action="store_true", help="print the chains as JSON")


def run(args: argparse.Namespace) -> int:
    from metapkg.actions.inspect import why
    from metapkg.resolve.graph import label

    chains = why(Path.cwd(), args.fqn)
    if args.json:
        data = [[{"kind": kind, "fqn": fqn} for kind, fqn in chain] for chain in chains]
        print(json.dumps({"fqn": args.fqn, "chains": data}, indent=2))
        return 0
    for chain in chains:
        say(" -> ".join(label(key) for key in chain))
    return 0
