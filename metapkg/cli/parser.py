"""The argument parser: global options, one subparser per command, helpful usage errors.

No parser accepts an abbreviated long option (``--froze`` is not ``--frozen``: a typo
must not silently mean something), and an unknown option or a mistyped command or choice
is answered with the closest one that exists, as uv does.
"""

from __future__ import annotations

import argparse
import re
import sys

from metapkg import __version__
from metapkg.cli import options, tophelp

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy knows the name)
if TYPE_CHECKING:  # on the path of `metapkg --help`: no typing
    from collections.abc import Callable, Mapping
    from typing import Any, NoReturn

    from metapkg.cli.base import BaseCommand


class Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["allow_abbrev"] = False
        super().__init__(*args, **kwargs)

    def _get_formatter(self) -> argparse.HelpFormatter:
        # argparse asks shutil for the width, and importing shutil (zlib, bz2, lzma) is
        # a tenth of `metapkg --help`; the same answer, from os.
        formatter: Callable[..., argparse.HelpFormatter] = self.formatter_class
        return formatter(prog=self.prog, width=tophelp.terminal_width() - 2)

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        tip = _tip(message, self)
        self.exit(2, f"{self.prog}: error: {message}\n" + (f"\n  tip: {tip}\n" if tip else ""))


class TopParser(Parser):
    """The top level: its help is tophelp's (the text ``metapkg --help`` prints before
    argparse is imported), listing ``summaries``."""

    def __init__(self, summaries: Mapping[str, str], *args: Any, **kwargs: Any) -> None:
        self.summaries = summaries
        super().__init__(*args, **kwargs)

    def format_help(self) -> str:
        return tophelp.render(self.summaries.items())


def _tip(message: str, parser: argparse.ArgumentParser) -> str | None:
    import difflib

    choice = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
    if choice:
        given, listed = choice.group(1), re.findall(r"'([^']*)'", choice.group(2))
        close = difflib.get_close_matches(given, listed, n=1, cutoff=0.6)
        what = "command" if message.startswith("argument COMMAND") else "value"
        return f"a similar {what} exists: '{close[0]}'" if close else None
    unknown = re.match(r"unrecognized arguments: (.*)", message)
    if unknown:
        options = list(parser._option_string_actions)
        for given in unknown.group(1).split():
            if given.startswith("-"):
                close = difflib.get_close_matches(given.split("=")[0], options, n=1, cutoff=0.6)
                if close:
                    return f"a similar argument exists: '{close[0]}'"
    return None


def common_options(defaults: bool) -> Parser:
    """-C/-q/-v/--color, accepted before or after the command name."""
    parser = Parser(add_help=False)
    default = (lambda v: v) if defaults else (lambda v: argparse.SUPPRESS)
    options.PROJECT.add_to(parser, default=default("."))
    parser.add_argument(
        "-q", "--quiet", action="store_true", default=default(False), help=tophelp.QUIET_HELP
    )
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        default=default(False),
        help=tophelp.VERBOSE_HELP,
    )
    parser.add_argument(
        "--color",
        choices=tophelp.COLOR_CHOICES,
        default=default("auto"),
        help=tophelp.COLOR_HELP,
    )
    return parser


def build_parser(
    summaries: Mapping[str, str], commands: Mapping[str, BaseCommand]
) -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The parser, and each command's subparser; only ``commands`` get their arguments
    (the others are listed, for --help, without importing their modules or building
    their options)."""
    parser: argparse.ArgumentParser = TopParser(
        summaries,
        prog="metapkg",
        parents=[common_options(defaults=True)],
    )
    parser.add_argument(
        "--version", action="version", version=f"metapkg {__version__}", help=tophelp.VERSION_HELP
    )
    sub = parser.add_subparsers(
        dest="command", metavar="COMMAND", required=True, parser_class=Parser
    )
    subparsers: dict[str, argparse.ArgumentParser] = {}
    for name, summary in summaries.items():
        command = commands.get(name)
        if command is None:  # listed for --help; main.py loads every command it is given
            subparsers[name] = sub.add_parser(name, help=summary, add_help=False)
            continue
        subparsers[name] = sub.add_parser(
            name, help=summary, description=summary, parents=[common_options(defaults=False)]
        )
        command.configure(subparsers[name])
    return parser, subparsers


def parse(
    summaries: Mapping[str, str], commands: Mapping[str, BaseCommand], argv: list[str]
) -> argparse.Namespace:
    parser, subparsers = build_parser(summaries, commands)
    args, extras = parser.parse_known_args(argv)
    extras = _intermixed(commands.get(args.command), args, extras)
    if extras:  # the command's own parser knows its options: it gives the tip
        subparsers[args.command].error(f"unrecognized arguments: {' '.join(extras)}")
    return args


def _intermixed(
    command: BaseCommand | None, args: argparse.Namespace, extras: list[str]
) -> list[str]:
    """What is left once the positionals written after options (``add A --skill x B``)
    have joined the command's positional list, in the order they were written."""
    dest = command.intermixed if command is not None else None
    if dest is None or not extras:
        return extras
    more = [e for e in extras if not e.startswith("-")]
    setattr(args, dest, [*getattr(args, dest), *more])
    return [e for e in extras if e.startswith("-")]
