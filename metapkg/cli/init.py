"""metapkg init"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import ClassVar

from metapkg.cli.base import BaseCommand
from metapkg.cli.output import status


class InitCommand(BaseCommand):
    examples: ClassVar = (("metapkg init", "metapkg.yaml for the hosts in use here"),)
    finds_project = False  # it makes one here

    def handle(self, args: argparse.Namespace) -> int:
        from metapkg.actions.edit import init

        written, found = init(Path.cwd())
        for name in written:
            status(f"Wrote {name}", args.quiet)
        if found:
            status(f"Found hosts in use here: {', '.join(found)}; they are the targets", args.quiet)
        else:
            status("No agent host in use here yet; targets: agents, claude (edit them, or see "
                   "`metapkg hosts`)", args.quiet)  # fmt: skip
        return 0


COMMAND = InitCommand()
