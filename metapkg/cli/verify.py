"""metapkg verify"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from metapkg.cli.output import say, status


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def run(args: argparse.Namespace) -> int:
    from metapkg.actions.verify import verify

    result = verify(Path.cwd())
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
            "run `metapkg install --reinstall` to repair",
            args.quiet,
        )
        return 1
    status(
        f"Verified {result.checked} provisioned path(s) and server(s) against metapkg.lock",
        args.quiet,
    )
    return 0
