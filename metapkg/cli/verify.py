"""metapkg verify [--json]"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import ClassVar

from metapkg.cli import options
from metapkg.cli.base import BaseCommand, Option
from metapkg.cli.output import say, status


class VerifyCommand(BaseCommand):
    arguments: ClassVar[tuple[Option, ...]] = (options.JSON, options.GLOBAL)
    examples: ClassVar = (
        ("metapkg verify", "exit 1 if a provisioned file differs from metapkg.lock"),
        ("metapkg verify -v", "also say what could only be compared by hash"),
        ("metapkg verify --global", "the user-level files --global installed"),
    )

    def handle(self, args: argparse.Namespace) -> int:
        from metapkg.actions.verify import verify
        from metapkg.cli import userscope
        from metapkg.cli.progress import reporting

        with reporting(args.quiet, args.verbose):  # -v: the cache hits
            result = verify(Path.cwd(), userscope.scope(args))
        if args.json:
            drifts = [{"kind": d.kind, "path": d.path, "detail": d.detail} for d in result.drifts]
            payload = {"ok": not result.drifts, "checked": result.checked, "drifts": drifts}
            print(json.dumps({**payload, "notes": list(result.notes)}, indent=2))
            return 1 if result.drifts else 0
        if args.verbose:
            for note in result.notes:
                status(f"note: {note}", args.quiet)
        for drift in result.drifts:
            detail = f"  ({drift.detail})" if drift.detail else ""
            say(f"{drift.kind:<9}{drift.path}{detail}")
        if result.drifts:
            status(
                f"{len(result.drifts)} drift(s) from metapkg.lock; "
                f"run `metapkg install{' --global' if args.user_scope else ''} --reinstall` "
                "to repair",
                args.quiet,
            )
            return 1
        status(
            f"Verified {result.checked} provisioned path(s) and server(s) against metapkg.lock",
            args.quiet,
        )
        return 0


COMMAND = VerifyCommand()
