"""Entry point: parse the command line, dispatch to one command, map errors to exits.

Command modules are imported only when their command runs, and they import their actions
lazily, so ``metapkg install`` on an up-to-date project loads no HTTP or YAML library,
and no terminal library either.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse

    from metapkg.cli.base import BaseCommand

# command -> (module, one-line help); each module has COMMAND, a base.BaseCommand
COMMANDS: dict[str, tuple[str, str]] = {
    "init": ("metapkg.cli.init", "write a starter metapkg.yaml and .gitignore entries"),
    "add": ("metapkg.cli.add", "add origins to metapkg.yaml, then install"),
    "remove": ("metapkg.cli.remove", "remove packages from metapkg.yaml, then install"),
    "install": ("metapkg.cli.install", "resolve, fetch, lock and provision the project"),
    "lock": ("metapkg.cli.lock", "resolve and write metapkg.lock without provisioning"),
    "update": ("metapkg.cli.update", "move pins to the newest commits of their refs"),
    "outdated": ("metapkg.cli.outdated", "list packages whose ref moved or that have newer tags"),
    "list": ("metapkg.cli.list", "list the locked packages"),
    "tree": ("metapkg.cli.tree", "print the resolved dependency graph"),
    "why": ("metapkg.cli.why", "print every chain that pulls a package in"),
    "hosts": ("metapkg.cli.hosts", "list the agent hosts metapkg provisions and which are active"),
    "graph": ("metapkg.cli.graph", "draw the resolved graph: mermaid, dot, svg, html or json"),
    "check": ("metapkg.cli.check", "validate packages or whole catalogs"),
    "run": ("metapkg.cli.run", "run an installed metaskill and print its result"),
    "mcp": ("metapkg.cli.mcp", "serve run_metaskill to an agent as an MCP stdio server"),
    "diff": ("metapkg.cli.diff", "compare two lockfiles for review"),
    "verify": ("metapkg.cli.verify", "check that provisioned files match the lock"),
    "cache": ("metapkg.cli.cache", "show or clean the download cache"),
    "auth": ("metapkg.cli.auth", "store, remove or inspect the GitHub token"),
    "completion": ("metapkg.cli.completion", "print a shell completion script (bash, zsh, fish)"),
}
SUMMARIES = {name: summary for name, (_, summary) in COMMANDS.items()}


def load(name: str) -> BaseCommand:
    command: BaseCommand = importlib.import_module(COMMANDS[name][0]).COMMAND
    return command


def _enter_project(project: str) -> None:
    if project in (".", ""):
        return
    from metapkg.diagnostics import UsageError

    try:
        os.chdir(project)
    except OSError as exc:
        raise UsageError.single(
            "usage", project, f"cannot use -C {project}: {exc.strerror}"
        ) from None


def _check_settings(settings: ModuleType) -> None:
    """A METAPKG_* variable metapkg cannot use is a usage error, whatever the command."""
    try:
        settings.check()
    except settings.BadSetting as exc:
        from metapkg.diagnostics import UsageError

        raise UsageError.single("usage", "environment", f"{exc}; fix or unset it") from None


def find_project(start: Path) -> Path | None:
    """The nearest folder from ``start`` upwards that holds metapkg.yaml (as uv and cargo
    find theirs), or None."""
    for folder in (start, *start.parents):
        if (folder / "metapkg.yaml").is_file():
            return folder
    return None


def _run(command: BaseCommand, args: argparse.Namespace) -> int:
    from metapkg import settings
    from metapkg.fetch import cachelock

    _check_settings(settings)
    _enter_project(args.project)
    args.invoked_from = Path.cwd()
    if getattr(args, "user_scope", False):  # --global: the user-scope folder
        from metapkg.cli import userscope

        userscope.enter(command, args)
    elif command.uses_project(args):
        found = find_project(args.invoked_from)
        if found is not None and found != args.invoked_from:
            os.chdir(found)
            if args.verbose:
                print(f"Using the project in {found}", file=sys.stderr)
    with cachelock.session():  # the download cache is locked while a command uses it
        return command.handle(args)


def main(argv: Sequence[str] | None = None) -> int:
    from metapkg.cli.output import choose_colour
    from metapkg.cli.parser import parse

    argv = list(sys.argv[1:] if argv is None else argv)
    started = time.perf_counter()
    name = next((a for a in argv if a in COMMANDS), None)
    commands = {name: load(name)} if name is not None else {}
    args = parse(SUMMARIES, commands, argv)
    command = commands.get(args.command) or load(args.command)
    choose_colour(args.color)
    saved = os.getcwd()
    try:
        result = _run(command, args)
        if args.verbose and not args.quiet:
            seconds = time.perf_counter() - started
            print(f"metapkg {args.command} took {seconds:.2f}s", file=sys.stderr)
        return result
    except KeyboardInterrupt:
        print("metapkg: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `metapkg ... | head`: the reader left, that is fine
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except Exception as exc:
        # Imported here, not above: an up-to-date install never needs the error classes.
        from metapkg.diagnostics import MetapkgError

        if not isinstance(exc, MetapkgError):
            raise
        from metapkg.cli.output import print_diagnostics

        print_diagnostics(exc.diagnostics)
        return exc.exit_code
    finally:
        choose_colour("auto")
        _restore(saved)


def _restore(folder: str) -> None:
    """Back to where main was called from (it is called in-process by tests)."""
    with contextlib.suppress(OSError):
        os.chdir(folder)
