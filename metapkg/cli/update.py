"""metapkg update [FQN...] [--dry-run] [--json] [--pr-body FILE]"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, ClassVar

from metapkg.cli import options
from metapkg.cli.installing import InstallingCommand

if TYPE_CHECKING:
    from metapkg.actions.install import InstallReport


class UpdateCommand(InstallingCommand):
    examples: ClassVar = (
        ("metapkg update", "every range to its newest version, every ref to its commit"),
        ("metapkg update acme/git-pr", "only this package (and what it needs)"),
        ("metapkg update --dry-run", "show what would move; write nothing"),
        ("metapkg update --pr-body body.md", "also write the review of what moved, for a PR"),
    )

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        options.PACKAGES.add_to(
            parser, nargs="*", help="packages whose refs to move (default: all)"
        )
        parser.add_argument(
            "--pr-body",
            metavar="FILE",
            help="write the markdown review of what the update changed (alerts, files, "
            "text diffs: `metapkg diff --format markdown`) to FILE, for a pull request",
        )

    def handle(self, args: argparse.Namespace) -> int:
        from metapkg.actions.update import unpin_for

        reports: list[InstallReport] = []

        def update() -> InstallReport:
            report = self.install(args, unpin=unpin_for(args.fqns), fresh=frozenset(args.fqns))
            reports.append(report)
            return report

        self.report(args, update)
        if args.pr_body:
            write_pr_body(args, reports[0])
        return 0


def write_pr_body(args: argparse.Namespace, report: InstallReport) -> None:
    """The review of ``report``'s lock change as markdown; "No package changes." when the
    update moved nothing (a bot can skip opening a pull request on that)."""
    from pathlib import Path

    from metapkg.actions.diff import diff_locks
    from metapkg.cli.base import given_path
    from metapkg.cli.output import write_file
    from metapkg.diff import render
    from metapkg.lock import format as lockfmt

    resolution = report.resolution
    if resolution is None:  # up to date: nothing moved
        text = render.markdown((), "metapkg update")
    else:
        result = diff_locks(
            resolution.old_lock, resolution.lock, "before", lockfmt.FILENAME, Path.cwd(),
            args.offline,
        )  # fmt: skip
        text = render.markdown(result.changes, "metapkg update", 400)
    write_file(given_path(args, args.pr_body), text, "the pull-request body")


COMMAND = UpdateCommand()
