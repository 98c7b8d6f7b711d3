"""Entry point: parse the command line, dispatch to one command module, map errors to exits.

Command modules are imported only when their command runs, and they import their actions
lazily, so ``metapkg install`` on an up-to-date project loads no HTTP or YAML library.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from metapkg import __version__

# command -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "init": ("metapkg.cli.init", "write a starter metapkg.yaml and .gitignore entries"),
    "add": ("metapkg.cli.add", "add origins to metapkg.yaml, then install"),
    "remove": ("metapkg.cli.remove", "remove packages from metapkg.yaml, then install"),
    "install": ("metapkg.cli.install", "resolve, fetch, lock and provision the project"),
    "lock": ("metapkg.cli.lock", "resolve and write metapkg.lock without provisioning"),
    "update": ("metapkg.cli.update", "move pins to the newest commits of their refs"),
    "outdated": ("metapkg.cli.outdated", "list packages whose ref moved or that have newer tags"),
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
}


def _common_options(defaults: bool) -> argparse.ArgumentParser:
    """-C/-q/-v, accepted before or after the command name."""
    parser = argparse.ArgumentParser(add_help=False)
    default = (lambda v: v) if defaults else (lambda v: argparse.SUPPRESS)
    parser.add_argument(
        "-C", "--project", metavar="DIR", default=default("."), help="run as if started in DIR"
    )
    parser.add_argument(
        "-q", "--quiet", action="store_true", default=default(False), help="print only errors"
    )
    parser.add_argument(
        "-v", "--verbose", action="store_true", default=default(False), help="print more detail"
    )
    return parser


def build_parser(modules: dict[str, object]) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="metapkg",
        description="Package manager for AI-agent packages: agents, skills and MCP servers.",
        parents=[_common_options(defaults=True)],
    )
    parser.add_argument("--version", action="version", version=f"metapkg {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, (_, summary) in COMMANDS.items():
        command = sub.add_parser(
            name, help=summary, description=summary, parents=[_common_options(defaults=False)]
        )
        module = modules.get(name)
        if module is not None:
            module.configure(command)  # type: ignore[attr-defined]
    return parser


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


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    name = next((a for a in argv if a in COMMANDS), None)
    modules: dict[str, object] = {}
    if name is not None:
        modules[name] = importlib.import_module(COMMANDS[name][0])
    args = build_parser(modules).parse_args(argv)
    module = modules.get(args.command) or importlib.import_module(COMMANDS[args.command][0])
    from metapkg.fetch import cachelock

    try:
        _enter_project(args.project)
        with cachelock.session():  # the download cache is locked while a command uses it
            result: int = module.run(args)  # type: ignore[attr-defined]
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
