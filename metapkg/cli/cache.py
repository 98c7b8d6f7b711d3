"""metapkg cache dir | metapkg cache clean [PACKAGE|OWNER/REPO ...]"""

from __future__ import annotations

import argparse
from typing import ClassVar

from metapkg.cli.base import BaseCommand
from metapkg.cli.output import status


class CacheCommand(BaseCommand):
    examples: ClassVar = (
        ("metapkg cache dir", "print the download cache's folder"),
        ("metapkg cache clean", "empty it (waits for running installs)"),
        ("metapkg cache clean acme/git-pr", "drop one locked package's tree (fetched again)"),
        ("metapkg cache clean acme/catalog", "drop every tree of one repository"),
    )
    finds_project = False

    def uses_project(self, args: argparse.Namespace) -> bool:
        return bool(args.targets)  # package names are looked up in the project's lock

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "action", choices=("dir", "clean"), help="print the folder, or empty it"
        )
        parser.add_argument(
            "targets",
            nargs="*",
            metavar="PACKAGE|OWNER/REPO",
            help="clean only these: a package of metapkg.lock, or a repository",
        )

    def handle(self, args: argparse.Namespace) -> int:
        from metapkg.diagnostics import MetapkgError
        from metapkg.fetch.cache import Cache
        from metapkg.fetch.cachelock import CacheBusy

        cache = Cache()
        if args.action == "dir":
            if args.targets:
                from metapkg.diagnostics import UsageError

                raise UsageError.single("usage", "cache dir", "`cache dir` takes no names")
            print(cache.root)
            return 0
        entries = []
        if args.targets:
            from pathlib import Path

            from metapkg.actions.cachetargets import cache_entries, read_project_lock

            entries = cache_entries(read_project_lock(Path.cwd()), args.targets)
        try:
            freed = cache.clean(entries)
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
        what = ", ".join(args.targets) + " from " if args.targets else ""
        status(f"Removed {what}{cache.root} ({freed / 1_048_576:.1f} MiB)", args.quiet)
        return 0


COMMAND = CacheCommand()
