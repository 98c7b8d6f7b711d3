"""The summary install, update, add and remove print: lines on stderr, or JSON on stdout."""

from __future__ import annotations

import json
import sys

from metapkg.actions.summary import PackageChange, Summary
from metapkg.cli.output import print_diagnostics, print_groups, status


def change_line(change: PackageChange) -> str:
    """` + skill acme/x 1.0.0`, ` ~ skill acme/x 1.6.0 -> 1.5.0 (downgrade, minor)`, ..."""
    label = change.label
    if change.change == "added":
        return f" + {label} {change.new_version or ''}".rstrip()
    if change.change == "removed":
        return f" - {label} {change.old_version or ''}".rstrip()
    if change.change in ("upgraded", "downgraded"):
        versions = f"{change.old_version} -> {change.new_version}"
        size = change.bump if change.change == "upgraded" else f"downgrade, {change.bump}"
        return f" ~ {label} {versions} ({size})"
    if change.change == "moved":
        return f" ~ {label} (same content, now at {(change.commit or '')[:12]})"
    what = "origin or dependencies changed" if change.same_content else "content changed"
    return f" ~ {label} {change.new_version or ''} ({what})".replace("  ", " ")


def summary_lines(summary: Summary, seconds: float) -> list[str]:
    """What people read after the work (warnings are printed before, as diagnostics)."""
    if summary.up_to_date:
        return ["Already up to date"]
    would = summary.dry_run
    lines = [f"Rolled back an interrupted install ({name})" for name in summary.recovered]
    count = summary.packages or 0
    lines.append(f"Resolved {count} package{'s' * (count != 1)} in {seconds:.2f}s")
    lines += [change_line(change) for change in summary.changes]
    if summary.provisioning_changed:
        verbs = ("Would provision", "remove", "update") if would else ("Provisioned", "removed",
                                                                      "updated")  # fmt: skip
        configs = ", ".join(summary.configs)
        lines.append(
            f"{verbs[0]} {len(summary.provisioned)} path(s), {verbs[1]} {len(summary.removed)}"
            + (f", {verbs[2]} {configs}" if configs else "")
        )
        lines += [f"note: {note}" for note in summary.notes]  # what each host still needs
    lines += [
        f"Kept {p}: no longer needed, but changed since metapkg wrote it" for p in summary.kept
    ]
    if summary.lock_written:
        lines.append("Wrote metapkg.lock")
    elif would and summary.lock_changed:
        lines.append("Would write metapkg.lock")
    if would:
        lines.append("Dry run: nothing was written")
    return lines


def print_summary(
    summary: Summary,
    seconds: float,
    quiet: bool,
    as_json: bool,
    extra: dict[str, object],
    verbose: bool = False,
) -> None:
    """``extra``: what the command adds to the JSON object (add: the manifest entries).
    The packages' findings are printed one line per rule; ``verbose`` adds each one."""
    if as_json:
        print(json.dumps({**summary.as_json(), **extra}, indent=2))
        return
    if not quiet:
        print_diagnostics(summary.other_warnings, sys.stderr)
        if verbose:
            print_diagnostics((f.diagnostic for f in summary.findings), sys.stderr)
        print_groups(summary.groups, sys.stderr)
    for line in summary_lines(summary, seconds):
        status(line, quiet)
