"""metapkg add SOURCE... [--kind skill|agent|mcp] [--skill NAME]... [--all] [--dry-run]"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from metapkg.cli import options
from metapkg.cli.base import given_source
from metapkg.cli.installing import InstallingCommand
from metapkg.cli.output import print_diagnostics, status

if TYPE_CHECKING:
    from metapkg.actions.install import InstallReport


class AddCommand(InstallingCommand):
    examples: ClassVar = (
        ("metapkg add acme/skills", "a repository (its default branch)"),
        ("metapkg add acme/skills/skills/pdf@v1.2.0", "a folder at a ref"),
        ("metapkg add github:acme/skills --skill pdf", "one of the packages it holds"),
        ("metapkg add https://github.com/acme/skills --all", "every package in it"),
        ("metapkg add ./local-skills/house-style", "a folder of this project"),
        ("metapkg add acme/skills/skills/pdf#^1.2", "with a version range"),
        ("metapkg add acme/skills --all --dry-run", "show what would be added; write nothing"),
        (
            "metapkg add --global acme/skills --skill pdf",
            "for every project: ~/.claude/skills, ...",
        ),
    )
    makes_user_manifest = True
    arguments: ClassVar = (*InstallingCommand.arguments, options.STRICT)

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "origins",
            nargs="+",
            metavar="SOURCE",
            help="what to add: owner/repo[/path][@ref], a GitHub URL (repository, tree, blob "
            "or .git), github:owner/repo, file:<path> or ./path; a #range may follow",
        )
        parser.add_argument(
            "--kind",
            choices=("skill", "agent", "mcp", "plugin"),
            help="the kind, when the path does not say",
        )
        parser.add_argument(
            "--skill",
            action="append",
            default=[],
            metavar="NAME",
            dest="names",
            help="from a folder or repository holding many packages: add this one (repeatable)",
        )
        parser.add_argument(
            "--all", action="store_true", dest="every", help="add every package the source holds"
        )

    def handle(self, args: argparse.Namespace) -> int:
        from metapkg.actions.choosing import Choice
        from metapkg.actions.edit import add

        choice = Choice(tuple(args.names), args.every)
        origins = [given_source(args, text) for text in args.origins]
        reports: list[InstallReport] = []
        added: list[str] = []

        def action() -> InstallReport:
            then_install = self.after_edit(args, reports)
            added.extend(
                add(
                    Path.cwd(),
                    origins,
                    args.kind,
                    then_install,
                    args.offline,
                    choice,
                    args.dry_run,
                    on_skip=lambda skipped: print_diagnostics([skipped]),
                )
            )
            return reports[0]

        self.report(args, action, lambda: {"added": added})
        if not args.json:
            verb = "Would add" if args.dry_run else "Added"
            for origin in added:
                status(f"{verb} {origin} to metapkg.yaml", args.quiet)
        return 0


COMMAND = AddCommand()
