"""metapkg diff [OLD [NEW]] [--format text|markdown|json] [--fail-on LEVEL|ALERT[,...]]
[--max-lines N]"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import ClassVar

from metapkg.cli import options
from metapkg.cli.base import BaseCommand, Option

DEFAULT_MAX_LINES = 400


class DiffCommand(BaseCommand):
    arguments: ClassVar[tuple[Option, ...]] = (options.OFFLINE,)
    examples: ClassVar = (
        ("metapkg diff", "metapkg.lock at git HEAD against the working tree"),
        ("metapkg diff git:main", "against the lock on main"),
        ("metapkg diff old.lock new.lock --format markdown", "for a pull request comment"),
        ("metapkg diff git:main --fail-on high", "CI policy: exit 1 on any high alert"),
        ("metapkg diff --fail-on medium,file-origin", "medium or above, and this alert"),
    )

    def uses_project(self, args: argparse.Namespace) -> bool:
        return not args.locks  # lockfile paths are relative to where metapkg started

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        options.PATHS.add_to(
            parser,
            "locks",
            metavar="OLD [NEW]",
            help="lockfile paths or git:REV (default: git:HEAD against ./metapkg.lock)",
        )
        parser.add_argument("--format", choices=("text", "markdown", "json"), default="text")
        options.JSON_FORMAT.add_to(parser)
        parser.add_argument(
            "--fail-on",
            metavar="LEVEL|ALERT[,...]",
            default="",
            help="exit 1 when an alert of this level or above (high, medium, low) or with "
            "one of these ids occurs (CI policy); 'any' for every alert",
        )
        parser.add_argument(
            "--max-lines",
            type=int,
            default=DEFAULT_MAX_LINES,
            metavar="N",
            help=f"show at most N lines of file diffs (default {DEFAULT_MAX_LINES}; 0: all)",
        )
        parser.add_argument(
            "--git-external-diff",
            action="store_true",
            help="run as git's diff driver (PATH OLD-FILE OLD-HEX OLD-MODE NEW-FILE NEW-HEX "
            "NEW-MODE)",
        )

    def handle(self, args: argparse.Namespace) -> int:
        return run(args)


def run(args: argparse.Namespace) -> int:
    from metapkg.actions.diff import diff
    from metapkg.cli.output import paint
    from metapkg.cli.progress import reporting
    from metapkg.diagnostics import UsageError
    from metapkg.diff import render
    from metapkg.diff.compare import ALERTS, LEVELS

    fail_on = {a.strip() for a in args.fail_on.split(",") if a.strip()}
    unknown = fail_on - set(ALERTS) - set(LEVELS) - {"any"}
    if unknown:
        raise UsageError.single(
            "usage",
            "--fail-on",
            f"unknown alert id(s) {', '.join(sorted(unknown))}; give a level "
            f"({', '.join(LEVELS)}), 'any', or alert ids: {', '.join(ALERTS)}",
        )
    if args.max_lines < 0:
        raise UsageError.single("usage", "--max-lines", "give a number of lines, 0 for all")
    offline = args.offline
    if args.git_external_diff:
        if len(args.locks) != 7:
            raise UsageError.single("usage", "--git-external-diff", "git passes 7 arguments")
        old, new, offline = args.locks[1], args.locks[4], True  # never the network inside git diff
    elif len(args.locks) > 2:
        raise UsageError.single("usage", "diff", "give at most two lockfiles: OLD [NEW]")
    else:
        old, new = ([*args.locks, None, None])[:2]
    with reporting(args.quiet, args.verbose):  # CHANGELOGs may be fetched
        result = diff(Path.cwd(), old, new, offline=offline)
    title = f"{result.old} -> {result.new}"
    if args.git_external_diff:
        title = f"a/{args.locks[0]} -> b/{args.locks[0]}"
    if args.format == "json":
        sys.stdout.write(render.as_json(result.changes, result.old, result.new))
    elif args.format == "markdown":
        sys.stdout.write(render.markdown(result.changes, title, args.max_lines))
    else:
        painter = lambda t, s: paint(t, s, sys.stdout)  # noqa: E731
        sys.stdout.write(render.text(result.changes, title, painter, args.max_lines))
    hit = result.matching(fail_on)
    if hit:
        print(f"metapkg diff: alert(s) {', '.join(sorted(hit))} matched --fail-on", file=sys.stderr)
        return 1
    return 0


COMMAND = DiffCommand()
