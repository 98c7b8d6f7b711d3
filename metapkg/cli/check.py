"""metapkg check [PATH...] [--profile NAME]... [--json] [--list-rules]"""

from __future__ import annotations

import argparse
import json
import sys
from typing import ClassVar

from metapkg.cli import options
from metapkg.cli.base import BaseCommand, Option

PROFILES = ("metaagents", "agentskills", "metis", "universal")  # see metapkg.profiles.registry


class CheckCommand(BaseCommand):
    arguments: ClassVar[tuple[Option, ...]] = (options.JSON,)
    examples: ClassVar = (
        ("metapkg check", "the packages in this folder"),
        ("metapkg check path/to/catalog", "every package of a catalog or repository"),
        ("metapkg check skills/pdf --profile agentskills", "as agentskills.io judges it"),
        ("metapkg check --list-rules", "every rule with its profile and hint"),
    )
    finds_project = False  # it checks the paths it is given, from here

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        options.PATHS.add_to(
            parser,
            help="packages, MCP .json files, catalogs or repositories (default: the current "
            "folder)",
        )
        parser.add_argument(
            "--profile",
            action="append",
            choices=PROFILES,
            metavar="NAME",
            help=f"judge in this dialect; repeat for several ({', '.join(PROFILES)}; "
            f"default: metaagents)",
        )
        parser.add_argument(
            "--list-rules",
            action="store_true",
            help="print every rule id with its profile and hint",
        )

    def handle(self, args: argparse.Namespace) -> int:
        return run(args)


def run(args: argparse.Namespace) -> int:
    if args.list_rules:
        return _list_rules(args.json)
    from metapkg.actions.check import check
    from metapkg.cli.output import paint, print_diagnostics
    from metapkg.diagnostics import capped
    from metapkg.profiles.registry import rule

    profiles = list(dict.fromkeys(args.profile or ["metaagents"]))
    report = check(args.paths or ["."], profiles)
    if args.json:
        payload = {
            "ok": report.errors == 0,
            "profiles": profiles,
            "diagnostics": [
                _as_json(d.as_json(), rule(d.rule)) for d in capped(report.diagnostics)
            ],
        }
        print(json.dumps(payload, indent=2))
        return 1 if report.errors else 0
    shown = capped(d for d in report.diagnostics if not args.quiet or d.severity == "error")
    print_diagnostics(shown, sys.stdout)
    if args.verbose:
        for d in shown:
            found = rule(d.rule)
            if found is not None:
                print(f"  hint[{d.rule}]: {found.hint}")
        for note in report.notes:
            print(f"note: {note}")
    if not args.quiet:
        noun = "package" if report.packages == 1 else "packages"
        dialects = "" if profiles == ["metaagents"] else f" as {', '.join(profiles)}"
        summary = (
            f"checked {report.packages} {noun}{dialects}: {report.errors} error(s), "
            f"{report.warnings} warning(s)"
        )
        print(paint(summary, "error" if report.errors else "ok"))
    return 1 if report.errors else 0


def _as_json(finding: dict[str, object], found: object) -> dict[str, object]:
    from metapkg.profiles.base import Rule

    if isinstance(found, Rule):
        return {**finding, "profile": found.profile, "hint": found.hint}
    return finding


def _list_rules(as_json: bool) -> int:
    from dataclasses import asdict

    from metapkg.profiles.registry import RULES

    if as_json:
        print(json.dumps([asdict(r) for r in RULES.values()], indent=2))
        return 0
    width = max(len(r.id) for r in RULES.values())
    for r in RULES.values():
        print(f"{r.id:<{width}}  {r.profile:<11}  {r.severity:<7}  {r.when:<7}  {r.summary}")
        print(f"{'':<{width}}  hint: {r.hint}")
    return 0


COMMAND = CheckCommand()
