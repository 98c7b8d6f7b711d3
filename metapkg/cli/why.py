"""metapkg why FQN [--json]"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import ClassVar

from metapkg.cli import options
from metapkg.cli.base import BaseCommand, Option
from metapkg.cli.output import say


class WhyCommand(BaseCommand):
    arguments: ClassVar[tuple[Option, ...]] = (options.JSON,)
    examples: ClassVar = (
        ("metapkg why acme/commit-message", "every chain that pulls it in"),
        ("metapkg why commit-message", "a unique short name works too"),
    )

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        options.PACKAGE.add_to(parser, help="a package's fully-qualified name")

    def handle(self, args: argparse.Namespace) -> int:
        from metapkg.actions.inspect import why, why_part
        from metapkg.resolve.graph import label

        parts = why_part(Path.cwd(), args.fqn)
        if parts:  # a part of a plugin: the plugin above it
            if args.json:
                shown = [
                    {"chain": [{"kind": k, "fqn": f} for k, f in chain], "part": part}
                    for chain, part in parts
                ]
                print(json.dumps({"fqn": args.fqn, "parts": shown}, indent=2))
                return 0
            for chain, part in parts:
                say(" -> ".join([*(label(key) for key in chain), part]))
            return 0
        chains = why(Path.cwd(), args.fqn)
        if args.json:
            data = [[{"kind": kind, "fqn": fqn} for kind, fqn in chain] for chain in chains]
            print(json.dumps({"fqn": args.fqn, "chains": data}, indent=2))
            return 0
        for chain in chains:
            say(" -> ".join(label(key) for key in chain))
        return 0


COMMAND = WhyCommand()
