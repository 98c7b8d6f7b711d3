"""Entry point: parse the command line, dispatch to one command, map errors to exits.

``--version``, ``--help`` and ``install`` on an up-to-date project are answered before
argparse is imported (quick.py, tophelp.py). Otherwise only the subparsers of the
commands named on the command line get their options, command modules are imported only
when their command runs, and they import their actions lazily, so no command loads more
than it uses. This module imports only ``gc``, ``os`` and ``sys`` at the top (typing,
pathlib and importlib cost more than a no-op install's own work).
"""

from __future__ import annotations

import gc
import os
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy knows the name)
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from pathlib import Path
    from types import ModuleType

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
    "search": (
        "metapkg.cli.search",
        "find MCP servers (MCP Registry) and plugins (marketplaces) to add",
    ),
    "hosts": ("metapkg.cli.hosts", "list the agent hosts metapkg provisions and which are active"),
    "graph": ("metapkg.cli.graph", "draw the resolved graph: mermaid, dot, svg, html or json"),
    "check": ("metapkg.cli.check", "validate packages or whole catalogs"),
    "run": ("metapkg.cli.run", "run an installed metaskill and print its result"),
    "mcp": ("metapkg.cli.mcp", "serve run_metaskill to an agent as an MCP stdio server"),
    "diff": ("metapkg.cli.diff", "compare two lockfiles for review"),
    "verify": ("metapkg.cli.verify", "check that provisioned files match the lock"),
    "audit": ("metapkg.cli.audit", "audit the locked packages: findings, policy, SARIF, SBOM"),
    "publish": ("metapkg.cli.publish", "push a package to an OCI registry as an artifact"),
    "mirror": ("metapkg.cli.mirror", "push every locked package to an OCI registry mirror"),
    "cache": ("metapkg.cli.cache", "show or clean the download cache"),
    "auth": ("metapkg.cli.auth", "store, remove or inspect the GitHub token"),
    "completion": ("metapkg.cli.completion", "print a shell completion script (bash, zsh, fish)"),
}
SUMMARIES = {name: summary for name, (_, summary) in COMMANDS.items()}


def load(name: str) -> BaseCommand:
    import importlib

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
    from pathlib import Path

    from metapkg.cli.quick import find_project as nearest

    found = nearest(str(start))
    return None if found is None else Path(found)


def _run(command: BaseCommand, args: argparse.Namespace) -> int:
    from pathlib import Path

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
    from metapkg.cli.quick import answer, forget

    forget()  # a run answers "up to date?" once; main is also called in-process
    argv = list(sys.argv[1:] if argv is None else argv)
    saved = os.getcwd()
    # Importing the install path creates ~100,000 objects and few of them ever become
    # garbage, yet at the default threshold (700) the collector runs ~40 times doing it:
    # 10 ms of a small install. Collect less often, as mypy does.
    collecting = gc.get_threshold()
    gc.set_threshold(50_000, 20, 20)
    try:
        quick = answer(argv)
        return _parse_and_run(argv) if quick is None else quick
    except KeyboardInterrupt:
        print("metapkg: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `metapkg ... | head`: the reader left, that is fine
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    finally:
        gc.set_threshold(*collecting)
        _restore(saved)
        _stop_workers()


def _stop_workers() -> None:
    """A command's worker processes end with it (metapkg/workers.py), also when main is
    called in-process (tests): a pool left for the interpreter's exit outlived the
    modules it needs to stop."""
    workers = sys.modules.get("metapkg.workers")
    if workers is not None:
        workers.shutdown()


def _parse_and_run(argv: list[str]) -> int:
    import time

    from metapkg.cli.output import choose_colour
    from metapkg.cli.parser import parse

    started = time.perf_counter()
    # Every command named anywhere (one is the command, others may be option values):
    # only these get subparsers with their options; none named: all are listed, bare.
    commands = {name: load(name) for name in argv if name in COMMANDS}
    summaries = {name: SUMMARIES[name] for name in commands} or SUMMARIES
    args = parse(summaries, commands, argv)
    command = commands.get(args.command) or load(args.command)
    choose_colour(args.color)
    try:
        result = _run(command, args)
        if args.verbose and not args.quiet:
            seconds = time.perf_counter() - started
            print(f"metapkg {args.command} took {seconds:.2f}s", file=sys.stderr)
        return result
    except Exception as exc:
        # Imported here, not above: most commands never need the error classes.
        from metapkg.diagnostics import MetapkgError

        if not isinstance(exc, MetapkgError):
            raise
        from metapkg.cli.output import print_diagnostics

        print_diagnostics(exc.diagnostics)
        return exc.exit_code
    finally:
        choose_colour("auto")


def _restore(folder: str) -> None:
    """Back to where main was called from (it is called in-process by tests)."""
    try:  # noqa: SIM105 (contextlib is not imported on the quick path)
        os.chdir(folder)
    except OSError:
        pass
