"""metapkg graph [FQN] [--why FQN] [--format FORMAT] [--depth N] [-o FILE]"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import ClassVar

from metapkg.cli import options
from metapkg.cli.base import BaseCommand, given_path


def _depth(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a whole number of edges, got {text!r}")
    return value


class GraphCommand(BaseCommand):
    examples: ClassVar = (
        ("metapkg graph", "the whole graph as Mermaid"),
        ("metapkg graph -o graph.html", "an offline page: pan, zoom, click a node"),
        ("metapkg graph acme/reviewer --depth 1", "a package and what it pulls in directly"),
        ("metapkg graph --why acme/commit-message", "only the chains that pull it in"),
        ("metapkg graph --format dot | dot -Tpng > graph.png", "through Graphviz"),
    )

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        from metapkg.graph.registry import FORMATS

        options.PACKAGE.add_to(
            parser, nargs="?", help="draw only this package and what it pulls in"
        )
        options.PACKAGE.add_to(
            parser, "--why", dest="why", help="draw only the chains that pull FQN in"
        )
        parser.add_argument(
            "--format",
            choices=list(FORMATS),
            help="mermaid (default), dot, svg, html (offline page: pan, zoom, click) or json; "
            "-o FILE picks it from the file's suffix",
        )
        options.JSON_FORMAT.add_to(parser)
        parser.add_argument(
            "--depth", type=_depth, metavar="N", help="at most N edges from the focus"
        )
        options.OUTPUT.add_to(parser)

    def handle(self, args: argparse.Namespace) -> int:
        return run(args)


def run(args: argparse.Namespace) -> int:
    from metapkg.actions.graph import graph
    from metapkg.cli.output import status
    from metapkg.graph import registry

    fmt = args.format
    if fmt is None and args.output:
        fmt = registry.for_suffix(Path(args.output).suffix)
    picture = graph(Path.cwd(), fmt or registry.DEFAULT, args.fqn, args.why, args.depth)
    if not args.output:
        sys.stdout.write(picture.text)
        return 0
    _write(given_path(args, args.output), picture.text)
    status(
        f"wrote {args.output} ({picture.packages} packages, {picture.dependencies} dependencies)",
        args.quiet,
    )
    return 0


def _write(path: Path, text: str) -> None:
    from metapkg.cli.output import write_file

    write_file(path, text, "the graph")


COMMAND = GraphCommand()
