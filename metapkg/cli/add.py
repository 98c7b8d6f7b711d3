"""metapkg add SOURCE... [--kind skill|agent|mcp] [--skill NAME]... [--all] [--dry-run]"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from metapkg.cli import options
from metapkg.cli.base import given_source
from metapkg.cli.installing import InstallingCommand
from metapkg.cli.output import status

if TYPE_CHECKING:
    from metapkg.actions.edit import Added
    from metapkg.actions.install import InstallReport


class AddCommand(InstallingCommand):
    examples: ClassVar = (
        ("metapkg add acme/skills", "a repository (its default branch)"),
        ("metapkg add acme/skills/skills/pdf@v1.2.0", "a folder at a ref"),
        ("metapkg add github:acme/skills --skill pdf", "one of the packages it holds"),
        ("metapkg add https://github.com/acme/skills --all", "every package in it that loads"),
        ("metapkg add acme/skills --skill pdf acme/agents --skill critic", "from two at once"),
        ("metapkg add ./local-skills/house-style", "a folder of this project"),
        ("metapkg add acme/skills/skills/pdf#^1.2", "with a version range"),
        ("metapkg add mcp:io.github.acme/weather", "an MCP Registry server (@VERSION optional)"),
        ("metapkg add acme/skills --all --dry-run", "show what would be added; write nothing"),
        (
            "metapkg add --global acme/skills --skill pdf",
            "for every project: ~/.claude/skills, ...",
        ),
    )
    makes_user_manifest = True
    arguments: ClassVar = (*InstallingCommand.arguments, options.STRICT)
    intermixed = "origins"  # `add A --skill x B`: B is a SOURCE too

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "origins",
            nargs="+",
            metavar="SOURCE",
            help="what to add: owner/repo[/path][@ref], a GitHub URL (repository, tree, blob "
            "or .git), github:owner/repo, file:<path> or ./path; a #range may follow",
        )
        parser.add_argument(
            "--kind",
            choices=("skill", "agent", "mcp", "plugin"),
            help="the kind, when the path does not say",
        )
        parser.add_argument(
            "--skill",
            action="append",
            default=[],
            metavar="NAME",
            dest="names",
            help="from a folder or repository holding many packages: add this one (repeatable; "
            "applies to every SOURCE, wherever it is written, and must name a package of one)",
        )
        parser.add_argument(
            "--all",
            action="store_true",
            dest="every",
            help="add every package each SOURCE holds; one that does not load is skipped and "
            "reported, one that is unsafe is refused (exit 1 after adding the rest)",
        )

    def handle(self, args: argparse.Namespace) -> int:
        from metapkg.actions.choosing import Choice
        from metapkg.actions.edit import add

        choice = Choice(tuple(args.names), args.every)
        origins = [given_source(args, text) for text in args.origins]
        reports: list[InstallReport] = []
        done: list[Added] = []

        def action() -> InstallReport:
            then_install = self.after_edit(args, reports)
            done.append(
                add(
                    Path.cwd(), origins, args.kind, then_install, args.offline, choice, args.dry_run
                )
            )
            return reports[0]

        self.report(args, action, lambda: _as_json(done[0]))
        added = done[0]
        if not args.json:
            _print_added(added, args)
        return 1 if added.refused else 0


def _as_json(added: Added) -> dict[str, object]:
    left_out = [
        {
            "origin": p.candidate.entry,
            "name": p.candidate.name,
            "unsafe": p.unsafe,
            "diagnostics": [d.as_json() for d in p.errors],
        }
        for p in added.passed
    ]
    left_out += [
        {"origin": d.path, "name": None, "unsafe": False, "diagnostics": [d.as_json()]}
        for d in added.same_named
    ]
    return {"added": added.entries, "skipped": left_out}


def _print_added(added: Added, args: argparse.Namespace) -> None:
    """Each entry written, or with --all one line: how many, and how many left out."""
    from metapkg.actions.offers import reported
    from metapkg.cli.output import print_diagnostics

    lines = [*added.same_named, *reported(added.passed)]
    if args.quiet:
        lines = [d for d in lines if d.severity == "error"]
    print_diagnostics(lines)
    if not args.every:
        verb = "Would add" if args.dry_run else "Added"
        for entry in added.entries:
            status(f"{verb} {entry} to metapkg.yaml", args.quiet)
        return
    status(tally(added, args.dry_run), args.quiet)


def tally(added: Added, dry_run: bool = False) -> str:
    """``Added 861 skills, skipped 3 (see above)``: what --all did, in one line."""
    new = set(added.entries)
    kinds: dict[str, int] = {}
    for c in added.chosen:
        if c.entry in new:
            kinds[c.kind] = kinds.get(c.kind, 0) + 1
    counted = [f"{n} {kind}{'s' * (n != 1)}" for kind, n in kinds.items()] or ["nothing new"]
    add, skip, refuse = ("Would add", "skip", "refuse") if dry_run else (
        "Added", "skipped", "refused")  # fmt: skip
    parts = [f"{add} {' and '.join(counted)}"]
    if len(added.chosen) > len(new):
        parts.append(f"{len(added.chosen) - len(new)} already in metapkg.yaml")
    if added.skipped:
        parts.append(f"{skip} {added.skipped}")
    if added.refused:
        parts.append(f"{refuse} {len(added.refused)} as unsafe")
    left_out = added.skipped or added.refused
    return ", ".join(parts) + (" (see above)" if left_out else "")


COMMAND = AddCommand()
