"""metapkg remove FQN... [--dry-run] [--json]"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from metapkg.cli import options
from metapkg.cli.base import given_source
from metapkg.cli.installing import InstallingCommand
from metapkg.cli.output import status

if TYPE_CHECKING:
    from metapkg.actions.install import InstallReport


class RemoveCommand(InstallingCommand):
    examples: ClassVar = (
        ("metapkg remove acme/git-pr", "by fqn"),
        ("metapkg remove git-pr", "by short name, when it is unique"),
        ("metapkg remove acme/git-pr --dry-run", "show what would go; write nothing"),
    )

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        options.PACKAGES.add_to(parser, nargs="+", help="direct dependencies to remove")

    def handle(self, args: argparse.Namespace) -> int:
        from metapkg.actions.edit import remove

        names = [given_source(args, text) for text in args.fqns]
        reports: list[InstallReport] = []
        removed: list[int] = []

        def action() -> InstallReport:
            removed.append(remove(Path.cwd(), names, self.after_edit(args, reports), args.dry_run))
            return reports[0]

        self.report(args, action, lambda: {"manifest_removed": removed[0]})
        if not args.json:
            count = removed[0]
            verb = "Would remove" if args.dry_run else "Removed"
            entries = f"entr{'y' if count == 1 else 'ies'}"
            status(f"{verb} {count} {entries} from metapkg.yaml", args.quiet)
        return 0


COMMAND = RemoveCommand()
