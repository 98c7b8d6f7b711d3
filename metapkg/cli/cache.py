"""metapkg cache dir|clean"""

from __future__ import annotations

import argparse
from typing import ClassVar

from metapkg.cli.base import BaseCommand
from metapkg.cli.output import status


class CacheCommand(BaseCommand):
    examples: ClassVar = (
        ("metapkg cache dir", "print the download cache's folder"),
        ("metapkg cache clean", "empty it (waits for running installs)"),
    )
    finds_project = False

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "action", choices=("dir", "clean"), help="print the folder, or empty it"
        )

    def handle(self, args: argparse.Namespace) -> int:
        from metapkg.diagnostics import MetapkgError
        from metapkg.fetch.cache import Cache
        from metapkg.fetch.cachelock import CacheBusy

        cache = Cache()
        if args.action == "dir":
            print(cache.root)
            return 0
        try:
            freed = cache.clean()
        except CacheBusy:
            raise MetapkgError.single(
                "cache",
                str(cache.root),
                "another metapkg is still using the download cache (an install in progress); "
                "run `metapkg cache clean` again when it has finished",
            ) from None
        except OSError as exc:
            raise MetapkgError.single(
                "cache",
                str(exc.filename or cache.root),
                f"could not empty the cache: {exc.strerror}",
            ) from None
        status(f"Removed {cache.root} ({freed / 1_048_576:.1f} MiB)", args.quiet)
        return 0


COMMAND = CacheCommand()
