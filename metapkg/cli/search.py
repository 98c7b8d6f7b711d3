"""metapkg search TERM [--json]"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from typing import ClassVar

from metapkg.cli import options
from metapkg.cli.base import BaseCommand, Option
from metapkg.cli.output import say


class SearchCommand(BaseCommand):
    arguments: ClassVar[tuple[Option, ...]] = (options.JSON, options.OFFLINE)
    examples: ClassVar = (
        ("metapkg search weather", "MCP servers whose name has 'weather' in it"),
        ("metapkg search github --json", "the same as data"),
    )

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("term", metavar="TERM", help="a part of the name to look for")

    def handle(self, args: argparse.Namespace) -> int:
        from metapkg.actions.search import search

        hits = search(args.term, offline=args.offline)
        if args.json:
            data = {"term": args.term, "results": [asdict(hit) for hit in hits]}
            print(json.dumps(data, indent=2, ensure_ascii=False))
            return 0
        if not hits:
            say(f"nothing matches {args.term!r}")
            return 0
        for hit in hits:
            version = f" {hit.version}" if hit.version else ""
            say(f"{hit.kind} {hit.name}{version}")
            if hit.description:
                say(f"    {hit.description}")
            say(f"    metapkg add {hit.add}")
        return 0


COMMAND = SearchCommand()
