"""metapkg check [PATH...] [--json]"""

from __future__ import annotations

import argparse
import json
import sys


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="package folders, MCP .json files or catalog roots (default: the current folder)",
    )
    parser.add_argument("--json", action="store_true", help="print the findings as JSON")


def run(args: argparse.Namespace) -> int:
    from metapkg.actions.check import check
    from metapkg.cli.output import paint, print_diagnostics

    report = check(args.paths or ["."])
    if args.json:
        payload = {
            "ok": report.errors == 0,
            "diagnostics": [d.as_json() for d in report.diagnostics],
        }
        print(json.dumps(payload, indent=2))
    else:
        shown = [d for d in report.diagnostics if not args.quiet or d.severity == "error"]
        print_diagnostics(shown, sys.stdout)
        if not args.quiet:
            noun = "package" if report.packages == 1 else "packages"
            summary = (
                f"checked {report.packages} {noun}: {report.errors} error(s), "
                f"{report.warnings} warning(s)"
            )
            print(paint(summary, "error" if report.errors else "ok"))
    return 1 if report.errors else 0
