"""What install, update, add and remove have in common: they resolve, fetch, provision
(or, with --dry-run, only say what they would) and print one summary."""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from metapkg.cli import options
from metapkg.cli.base import BaseCommand, Option

if TYPE_CHECKING:
    from metapkg.actions.install import InstallReport
    from metapkg.manifest import Manifest


class InstallingCommand(BaseCommand):
    arguments: ClassVar[tuple[Option, ...]] = options.INSTALLING

    def report(
        self,
        args: argparse.Namespace,
        action: Callable[[], InstallReport],
        extra: Callable[[], dict[str, object]] | None = None,
    ) -> None:
        """Run ``action`` with progress shown, then print its summary. ``extra``: what the
        command adds to the JSON object once the action has run."""
        from metapkg.cli.progress import reporting

        started = time.perf_counter()
        with reporting(args.quiet, args.verbose):
            report = action()
        self.print_report(args, report, started, extra() if extra else {})

    def print_report(
        self,
        args: argparse.Namespace,
        report: InstallReport,
        started: float,
        extra: dict[str, object],
    ) -> None:
        from metapkg.actions.summary import summarize
        from metapkg.cli.summary import print_summary

        seconds = time.perf_counter() - started
        summary = summarize(report)
        print_summary(summary, seconds, args.quiet, args.json, extra, args.verbose)

    def after_edit(
        self, args: argparse.Namespace, reports: list[InstallReport]
    ) -> Callable[[Manifest], None]:
        """The install `add` and `remove` run on the edited manifest (parsed once, not
        read again); the report is kept in ``reports`` for the summary."""

        def then_install(manifest: Manifest) -> None:
            reports.append(self.install(args, manifest=manifest))

        return then_install

    def install(self, args: argparse.Namespace, **more: Any) -> InstallReport:
        """actions.install.install as the shared options (--offline, --jobs, --dry-run,
        --global) say; ``more``: what the command adds (frozen, unpin, manifest, ...)."""
        from metapkg.actions.install import install
        from metapkg.cli import userscope
        from metapkg.cli.base import policy_argument

        return install(
            Path.cwd(),
            offline=args.offline,
            workers=args.jobs,
            dry_run=args.dry_run,
            scope=userscope.scope(args),
            audit=args.audit,
            policy=policy_argument(args),
            strict=getattr(args, "strict", False),  # add and install take --strict
            **more,
        )
