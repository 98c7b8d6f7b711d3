"""metapkg update [FQN...] [--dry-run] [--json]"""

from __future__ import annotations

import argparse
from typing import ClassVar

from metapkg.cli import options
from metapkg.cli.installing import InstallingCommand


class UpdateCommand(InstallingCommand):
    examples: ClassVar = (
        ("metapkg update", "every range to its newest version, every ref to its commit"),
        ("metapkg update acme/git-pr", "only this package (and what it needs)"),
        ("metapkg update --dry-run", "show what would move; write nothing"),
    )

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        options.PACKAGES.add_to(
            parser, nargs="*", help="packages whose refs to move (default: all)"
        )

    def handle(self, args: argparse.Namespace) -> int:
        from metapkg.actions.update import unpin_for

        self.report(
            args,
            lambda: self.install(args, unpin=unpin_for(args.fqns), fresh=frozenset(args.fqns)),
        )
        return 0


COMMAND = UpdateCommand()
