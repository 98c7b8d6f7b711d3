"""metapkg install [--frozen] [--strict] [--reinstall] [--link-mode MODE] [--dry-run] [--json]"""

from __future__ import annotations

import argparse
import os
import time
from typing import ClassVar

from metapkg.cli import options, quick
from metapkg.cli.installing import InstallingCommand
from metapkg.provision.linkmode import LINK_MODES


class InstallCommand(InstallingCommand):
    examples: ClassVar = (
        ("metapkg install", "resolve, fetch, lock and provision"),
        ("metapkg install --frozen", "CI: exactly metapkg.lock, or fail"),
        ("metapkg install --dry-run", "show what would change; write nothing"),
        ("metapkg install --reinstall", "copy every package again (repairs drift)"),
        ("metapkg install --json", "the summary as JSON on stdout"),
        ("metapkg install --strict", "fail on every finding, as `metapkg check` would"),
        ("metapkg install --global", "the user scope: ~/.claude/skills, ~/.codex/config.toml, ..."),
    )
    makes_user_manifest = True
    arguments: ClassVar = (*InstallingCommand.arguments, options.STRICT)

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "--frozen",
            action="store_true",
            help="never write metapkg.lock; fail if it is missing or out of date (CI)",
        )
        parser.add_argument(
            "--reinstall",
            action="store_true",
            help="copy every package again, repairing files changed since the last install",
        )
        parser.add_argument(
            "--link-mode",
            choices=LINK_MODES,
            help="how package files get into the project (default: link-mode in "
            "metapkg.yaml, else copy)",
        )

    def handle(self, args: argparse.Namespace) -> int:
        started = time.perf_counter()
        user_scope = args.user_scope
        # The common case, decided before importing the resolver, YAML or HTTP code.
        checked = not (args.reinstall or args.link_mode or user_scope or args.strict)
        if checked and quick.settled(os.getcwd()):
            if args.json:
                from metapkg.actions.install import InstallReport

                self.print_report(args, InstallReport(True, dry_run=args.dry_run), started, {})
            else:
                from metapkg.cli.output import status

                status("Already up to date", args.quiet)
            return 0
        self.report(
            args,
            lambda: self.install(
                args,
                frozen=args.frozen,
                reinstall=args.reinstall,
                link_mode=args.link_mode,
                checked=checked,
            ),
        )
        return 0


COMMAND = InstallCommand()
