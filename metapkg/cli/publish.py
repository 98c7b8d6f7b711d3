"""metapkg publish PATH oci://REGISTRY/NAMESPACE/NAME:TAG [--json]"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import ClassVar

from metapkg.cli import options
from metapkg.cli.base import BaseCommand, Option
from metapkg.cli.output import say, status


class PublishCommand(BaseCommand):
    arguments: ClassVar[tuple[Option, ...]] = (
        Option(
            "path",
            metavar="PATH",
            completes="file",
            help="the package folder (or MCP .json file); `metapkg check` must pass on it",
        ),
        Option(
            "target",
            metavar="oci://REGISTRY/NAMESPACE/NAME:TAG",
            help="where to push it (HTTPS; plain HTTP on loopback)",
        ),
        options.JSON,
    )
    examples: ClassVar = (
        (
            "metapkg publish skills/review oci://ghcr.io/acme/skills/review:1.2.0",
            "check the package, push it as an OCI artifact, print its digest",
        ),
    )

    def handle(self, args: argparse.Namespace) -> int:
        from metapkg.actions.publish import publish

        published = publish(Path(args.path), args.target)
        if args.json:
            print(
                json.dumps(
                    {
                        "reference": published.reference,
                        "digest": published.digest,
                        "kind": published.kind,
                        "fqn": published.fqn,
                        "integrity": published.integrity,
                    },
                    indent=2,
                )
            )
            return 0
        say(published.digest)
        status(f"Pushed {published.kind} {published.fqn} to {published.reference}", args.quiet)
        return 0


COMMAND = PublishCommand()
