"""metapkg verify"""

from __future__ import annotations

import argparse
from pathlib import Path

from metapkg.cli.output import status


def configure(parser: argparse.ArgumentParser) -> None:
    pass


def run(args: argparse.Namespace) -> int:
    from metapkg.actions.verify import verify

    result = verify(Path.cwd())
    if args.verbose:
        for note in result.notes:
            status(f"note: {note}", args.quiet)
    for drift in result.drifts:
        detail = f"  ({drift.detail})" if drift.detail else ""
        print(f"{drift.kind:<9}{drift.path}{detail}")
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
