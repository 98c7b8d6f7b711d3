"""metapkg completion bash|zsh|fish: a completion script generated from the parser.

shtab writes the script from the very parser metapkg parses with, so a new option is
completed the day it exists. Package names (for why, remove, update, graph) come from
`metapkg list --names` when the shell asks, so they follow metapkg.lock.
"""

from __future__ import annotations

import argparse
from typing import ClassVar

from metapkg.cli.base import BaseCommand

SHELLS = ("bash", "zsh", "fish")
PACKAGES_COMMAND = "metapkg list --names 2>/dev/null"


class CompletionCommand(BaseCommand):
    examples: ClassVar = (
        (
            "metapkg completion bash > ~/.local/share/bash-completion/completions/metapkg",
            "bash",
        ),
        ('metapkg completion zsh > "${fpath[1]}/_metapkg"', "zsh (a folder on $fpath)"),
        ("metapkg completion fish > ~/.config/fish/completions/metapkg.fish", "fish"),
    )
    finds_project = False

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("shell", choices=SHELLS, help="the shell to complete in")

    def handle(self, args: argparse.Namespace) -> int:
        print(script(args.shell), end="")
        return 0


def script(shell: str) -> str:
    import shtab

    from metapkg.cli.main import COMMANDS, SUMMARIES, load
    from metapkg.cli.parser import build_parser

    parser, _ = build_parser(SUMMARIES, {name: load(name) for name in COMMANDS})
    packages = shtab.cmd(PACKAGES_COMMAND)
    _mark(parser, {"packages": packages, "file": shtab.FILE, "directory": shtab.DIRECTORY})
    text: str = shtab.complete(parser, shell=shell)
    return text if text.endswith("\n") else text + "\n"


def _mark(parser: argparse.ArgumentParser, kinds: dict[str, object]) -> None:
    """Give each action that says what it completes (base.Option ``completes``) the
    completion shtab understands, in every subparser."""
    for action in parser._actions:
        wanted = getattr(action, "complete", None)
        if isinstance(wanted, str) and wanted in kinds:
            action.complete = kinds[wanted]  # type: ignore[attr-defined]
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                _mark(sub, kinds)


COMMAND = CompletionCommand()
