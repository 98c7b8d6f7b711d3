"""metapkg install [--frozen] [--offline]"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from metapkg import settings
from metapkg.cli.output import Progress, status

if TYPE_CHECKING:
    from metapkg.actions.install import InstallReport
    from metapkg.lock.format import Lockfile


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--frozen",
        action="store_true",
        help="never write metapkg.lock; fail if it is missing or out of date (CI)",
    )
    parser.add_argument(
        "--reinstall",
        action="store_true",
        help="copy every package again, repairing files changed since the last install",
    )
    parser.add_argument(
        "--link-mode",
        choices=("copy", "clone", "hardlink"),
        help="how package files get into the project (default: link-mode in metapkg.yaml, "
        "else copy)",
    )
    add_fetch_options(parser)


def add_fetch_options(parser: argparse.ArgumentParser, jobs: bool = True) -> None:
    parser.add_argument(
        "--offline",
        action="store_true",
        default=settings.offline(),
        help="use only the download cache (also METAPKG_OFFLINE=1)",
    )
    if not jobs:
        return
    parser.add_argument(
        "--jobs",
        type=_positive,
        default=settings.jobs_text(),  # a string default is parsed by `type`
        metavar="N",
        help="parallel downloads (default 16)",
    )


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a positive number (--jobs, METAPKG_JOBS)"
        )
    return value


def run(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    if not args.reinstall and not args.link_mode and _up_to_date():
        status("Already up to date", args.quiet)
        return 0
    from metapkg.actions.install import install

    report_install(
        lambda progress: install(
            Path.cwd(),
            frozen=args.frozen,
            reinstall=args.reinstall,
            offline=args.offline,
            workers=args.jobs,
            progress=progress,
            link_mode=args.link_mode,
        ),
        args.quiet,
        started,
    )
    return 0


def install_after_edit(args: argparse.Namespace) -> Callable[[], None]:
    """The install `add` and `remove` run once they have edited metapkg.yaml."""
    started = time.perf_counter()

    def then_install() -> None:
        from metapkg.actions.install import install

        report_install(
            lambda progress: install(
                Path.cwd(), offline=args.offline, workers=args.jobs, progress=progress
            ),
            args.quiet,
            started,
        )

    return then_install


def _up_to_date() -> bool:
    """The common case, decided before importing the resolver, YAML or HTTP code."""
    from metapkg import __version__
    from metapkg.provision.uptodate import up_to_date
    from metapkg.provision.values import placeholder_values

    project = Path.cwd()
    return up_to_date(project, placeholder_values(project), __version__)


def report_install(
    action: Callable[[Progress], InstallReport], quiet: bool, started: float
) -> None:
    """Run an install-like action with progress, then print what changed."""
    from metapkg.cli.output import Progress, print_diagnostics

    progress = Progress("Fetching")
    try:
        report = action(progress)
    finally:
        progress.clear()
    if report.up_to_date:
        status("Already up to date", quiet)
        return
    resolution, applied = report.resolution, report.applied
    assert resolution is not None and applied is not None
    if not quiet:
        print_diagnostics(resolution.warnings)
    for name in report.recovered:
        status(f"Rolled back an interrupted install ({name})", quiet)
    count = len(resolution.lock.packages)
    elapsed = time.perf_counter() - started
    status(f"Resolved {count} package{'s' * (count != 1)} in {elapsed:.2f}s", quiet)
    for line in changes(resolution.old_lock, resolution.lock):
        status(line, quiet)
    if applied.copied or applied.removed or applied.configs_changed:
        updated = ", ".join(applied.configs_changed)
        status(
            f"Provisioned {len(applied.copied)} path(s), removed {len(applied.removed)}"
            + (f", updated {updated}" if updated else ""),
            quiet,
        )
        for note in resolution.plan.notes:  # what each host still needs from the user
            status(f"note: {note}", quiet)
    for path in applied.kept:
        status(f"Kept {path}: no longer needed, but changed since metapkg wrote it", quiet)
    if applied.lock_written:
        status("Wrote metapkg.lock", quiet)
    print_diagnostics(report.warnings)


def changes(old: Lockfile | None, new: Lockfile) -> list[str]:
    """` + skill acme/x 1.0.0` lines for what a new lock adds, changes or drops."""
    from metapkg.diff.compare import compare

    lines = []
    for change in compare(old, new, moves=True):
        if change.change == "added":
            lines.append(f" + {change.label} {change.to_version or ''}".rstrip())
        elif change.change == "removed":
            lines.append(f" - {change.label} {change.from_version or ''}".rstrip())
        elif change.change in ("upgraded", "downgraded"):
            versions = f"{change.from_version} -> {change.to_version}"
            lines.append(f" ~ {change.label} {versions} ({change.bump})")
        elif change.change == "moved":
            commit = (change.new.commit or "")[:12] if change.new else ""
            lines.append(f" ~ {change.label} (same content, now at {commit})")
        else:
            same = change.old and change.new and change.old.integrity == change.new.integrity
            what = "origin or dependencies changed" if same else "content changed"
            lines.append(f" ~ {change.label} {change.to_version or ''} ({what})".replace("  ", " "))
    return lines
