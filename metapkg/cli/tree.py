"""metapkg tree [--json]"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import ClassVar

from metapkg.cli import options
from metapkg.cli.base import BaseCommand, Option
from metapkg.cli.output import say


class TreeCommand(BaseCommand):
    arguments: ClassVar[tuple[Option, ...]] = (options.JSON,)
    examples: ClassVar = (
        ("metapkg tree", "the resolved graph, from metapkg.lock"),
        ("metapkg tree --json", "requires and packages as JSON"),
    )

    def handle(self, args: argparse.Namespace) -> int:
        from metapkg.actions.inspect import tree, tree_data

        if args.json:
            print(json.dumps(tree_data(Path.cwd()), indent=2))
            return 0
        for line in tree(Path.cwd()):
            say(line)
        return 0


COMMAND = TreeCommand()
