"""metapkg search TERM [--json]"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from pathlib import Path
from typing import ClassVar

from metapkg.cli import options
from metapkg.cli.base import BaseCommand, Option
from metapkg.cli.output import say


class SearchCommand(BaseCommand):
    arguments: ClassVar[tuple[Option, ...]] = (options.JSON, options.OFFLINE)
    examples: ClassVar = (
        ("metapkg search weather", "MCP servers whose name has 'weather' in it"),
        ("metapkg search github --json", "the same as data"),
        ("metapkg search slack --marketplace anthropics/claude-plugins-official", "plugins"),
    )

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("term", metavar="TERM", help="a part of the name to look for")
        parser.add_argument(
            "--marketplace",
            action="append",
            default=[],
            metavar="M",
            help="search this plugin marketplace (owner/repo, a URL, file:PATH) instead of "
            "the MCP Registry and metapkg.yaml's marketplaces: (repeatable)",
        )

    def handle(self, args: argparse.Namespace) -> int:
        from metapkg.actions.search import PROVIDERS, Provider, marketplace, search
        from metapkg.cli.base import given_source

        project = Path.cwd()
        places = [given_source(args, m) for m in args.marketplace]
        providers: list[Provider] = []
        if not places:
            providers += PROVIDERS
            places = list(_listed_marketplaces(project))
        providers += [marketplace(project, m, args.offline) for m in places]
        hits = search(args.term, offline=args.offline, providers=providers)
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


def _listed_marketplaces(project: Path) -> tuple[str, ...]:
    """``marketplaces:`` of the project's metapkg.yaml, if there is one."""
    from metapkg import manifest

    if not (project / manifest.FILENAME).is_file():
        return ()
    return manifest.read(project).marketplaces


COMMAND = SearchCommand()
