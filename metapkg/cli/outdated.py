"""metapkg outdated"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from metapkg.cli.install import add_fetch_options
from metapkg.cli.output import say, status


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the list as JSON")
    add_fetch_options(parser, jobs=False)


def run(args: argparse.Namespace) -> int:
    from metapkg.actions.update import outdated

    found = outdated(Path.cwd(), offline=args.offline)
    if args.json:
        print(json.dumps([vars(o) for o in found], indent=2))
        return 0
    if not found:
        status("Everything is up to date with its refs and tags", args.quiet)
        return 0
    width = max(len(o.label) for o in found)
    for item in found:
        say(f"{item.label:<{width}}  {item.ref}  {item.current} -> {item.latest}  ({item.why})")
    return 0
