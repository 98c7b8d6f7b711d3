"""metapkg cache dir|clean"""

from __future__ import annotations

import argparse

from metapkg.cli.output import status


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=("dir", "clean"), help="print the folder, or empty it")


def run(args: argparse.Namespace) -> int:
    from metapkg.fetch.cache import Cache

    cache = Cache()
    if args.action == "dir":
        print(cache.root)
    else:
        freed = cache.clean()
        status(f"Removed {cache.root} ({freed / 1_048_576:.1f} MiB)", args.quiet)
    return 0
