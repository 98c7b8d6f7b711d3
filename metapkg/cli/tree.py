"""metapkg tree"""

from __future__ import annotations

import argparse
from pathlib import Path


def configure(parser: argparse.ArgumentParser) -> None:
    pass


def run(args: argparse.Namespace) -> int:
    from metapkg.actions.inspect import tree

    for line in tree(Path.cwd()):
        print(line)
    return 0
