"""metapkg update [FQN...] [--dry-run] [--json]"""

from __future__ import annotations

import argparse
from pathlib import Path
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
        from metapkg.actions.install import install
        from metapkg.actions.update import unpin_for
        from metapkg.cli import userscope

        self.report(
            args,
            lambda: install(
                Path.cwd(),
                offline=args.offline,
                workers=args.jobs,
                unpin=unpin_for(args.fqns),
                fresh=frozenset(args.fqns),
                dry_run=args.dry_run,
                scope=userscope.scope(args),
            ),
        )
        return 0


COMMAND = UpdateCommand()
