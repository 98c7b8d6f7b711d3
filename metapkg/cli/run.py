"""metapkg run NAME [--input JSON|@FILE] [--answers FILE] [--allow-command EXE ...]"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, ClassVar

from metapkg.cli import options
from metapkg.cli.base import BaseCommand, Option, given_path


class RunCommand(BaseCommand):
    arguments: ClassVar[tuple[Option, ...]] = (options.ALLOW_COMMAND,)
    examples: ClassVar = (
        ('metapkg run test-fix --input \'{"task": ""}\'', "run a metaskill, print its result"),
        ("metapkg run test-fix --input @input.json --answers answers.jsonl", "scripted asks"),
        ("metapkg run test-fix --allow-command pytest", "let it run pytest too"),
    )

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("name", metavar="NAME", help="the installed metaskill to run")
        parser.add_argument(
            "--input",
            metavar="JSON|@FILE",
            help="the input object, as JSON text or @path to a JSON file (default: {})",
        )
        parser.add_argument(
            "--answers",
            metavar="FILE",
            help='answers for ask(), one JSON string or {"answer": ...} per line, in order '
            "(default: ask on the terminal, else every ask gets an error: answer)",
        )
        parser.add_argument("--max-ask-calls", type=int, metavar="N", help="ask budget (default 5)")
        parser.add_argument(
            "--max-command-calls", type=int, metavar="N", help="command budget (default 10)"
        )
        parser.add_argument(
            "--timeout", type=float, metavar="SECONDS", help="wall-clock limit (default 300)"
        )
        parser.add_argument(
            "--max-memory",
            type=int,
            metavar="MIB",
            help="memory budget of the program, in MiB (64-16384, default 1024)",
        )

    def handle(self, args: argparse.Namespace) -> int:
        from metapkg.metaskills.calls import Services
        from metapkg.metaskills.commands import CommandPolicy
        from metapkg.metaskills.runner import load_project

        limits = _limits(args)
        run_input = _input(args.input, args)  # usage errors first, before the project
        asker = _asker(args)
        root = Path.cwd()
        project = load_project(root)
        report = None if not args.verbose else (lambda line: print(line, file=sys.stderr))
        allowed = [*project.manifest.allowed_commands, *args.allow_command]
        policy = CommandPolicy.of(allowed, root, project.manifest.command_rules)
        services = Services(asker, policy, limits, report)
        result = project.run(args.name, run_input, services)
        print(result)
        return 1 if result.startswith("error:") else 0


def _input(text: str | None, args: argparse.Namespace) -> dict[str, Any]:
    """--input JSON or @FILE: a JSON object a program can be given; else a usage error.
    The file is read as a bounded regular file (a FIFO or /dev/zero is refused)."""
    from metapkg.diagnostics import UsageError
    from metapkg.metaskills.inputs import InputProblem, parse

    if text is None:
        return {}
    shown = "--input"
    if text.startswith("@"):
        shown = text[1:]
        text = _read_text(given_path(args, shown), shown, "the input file")
    try:
        value = parse(text)
    except InputProblem as exc:
        raise UsageError.single("usage", shown, f"the input is not usable JSON: {exc}") from None
    if not isinstance(value, dict):
        raise UsageError.single(
            "usage", shown, 'the input must be a JSON object, e.g. {"task": ""}'
        )
    return value


def _read_text(path: Path, shown: str, what: str) -> str:
    from metapkg.diagnostics import UsageError
    from metapkg.safefile import read_regular

    try:
        data = read_regular(path)
        return data.decode("utf-8").removeprefix("\ufeff")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise UsageError.single("usage", shown, f"cannot read {what}: {reason}") from None


def _limits(args: argparse.Namespace) -> Any:
    from metapkg.diagnostics import UsageError
    from metapkg.metaskills.limits import LimitError, Limits

    try:
        return Limits().with_overrides(
            args.max_ask_calls, args.max_command_calls, args.timeout, args.max_memory
        )
    except LimitError as exc:
        raise UsageError.single("usage", "metapkg run", str(exc)) from None


def _asker(args: argparse.Namespace) -> Any:
    from metapkg.metaskills.askers import NoAsker, ScriptedAnswers, TerminalAsker

    if args.answers:
        return ScriptedAnswers.read(given_path(args, args.answers))
    if sys.stdin.isatty():
        return TerminalAsker()
    return NoAsker(
        "nobody can answer ask() here: pass --answers FILE (JSON lines), run in a "
        "terminal, or run the metaskill through `metapkg mcp` in an agent"
    )


COMMAND = RunCommand()
