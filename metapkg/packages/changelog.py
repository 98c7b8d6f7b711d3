"""CHANGELOG.md: parse ``## X.Y.Z (YYYY-MM-DD)`` entries and judge them.

Only level-2 headers are entries; ``# Changelog`` titles and ``### Added`` sections inside
an entry are left alone.
"""

from __future__ import annotations

import datetime
import itertools
import re
from pathlib import Path

from metapkg import limits
from metapkg.diagnostics import Diagnostic, error
from metapkg.packages.models import ChangelogEntry
from metapkg.packages.semver import SEMVER, SemVer, digits_hint, too_many_digits
from metapkg.safefile import read_regular

FILENAME = "CHANGELOG.md"
_UNRELEASED = re.compile(r"^##\s+\[?unreleased\]?\s*$", re.IGNORECASE)  # Keep a Changelog
_HEADER = re.compile(r"^##\s+(\S+)\s+\((\d{4}-\d{2}-\d{2})\)\s*$")


def parse(text: str, path: str) -> tuple[tuple[ChangelogEntry, ...], list[Diagnostic]]:
    entries: list[ChangelogEntry] = []
    diags: list[Diagnostic] = []
    body: list[str] = []
    current: tuple[str, str, int] | None = None
    in_fence = False

    def close() -> None:
        if current is not None:
            entries.append(ChangelogEntry(*current, body="\n".join(body).strip("\n")))

    lines = text.removeprefix("\ufeff").replace("\r\n", "\n").split("\n")
    for number, line in enumerate(lines, start=1):
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
        if in_fence or not line.startswith("## ") or _UNRELEASED.match(line):
            body.append(line)
            continue
        header = _header(line, number, path, diags)
        close()
        body = []
        current = header
    close()
    return tuple(entries), diags


def _header(
    line: str, number: int, path: str, diags: list[Diagnostic]
) -> tuple[str, str, int] | None:
    match = _HEADER.match(line)
    if match is not None and too_many_digits(match.group(1)):
        diags.append(error("changelog-header", path, f"this header's {digits_hint()}", number))
        return None
    if match is None or not SEMVER.match(match.group(1)):
        diags.append(
            error(
                "changelog-header",
                path,
                f"header {line.strip()!r} must look like '## 1.2.0 (2026-04-17)'",
                number,
            )
        )
        return None
    try:
        datetime.date.fromisoformat(match.group(2))
    except ValueError:
        diags.append(
            error(
                "changelog-header",
                path,
                f"{match.group(2)} in {line.strip()!r} is not a real date (YYYY-MM-DD)",
                number,
            )
        )
        return None
    return match.group(1), match.group(2), number


def check(
    folder: Path, display_folder: str, version: object
) -> tuple[tuple[ChangelogEntry, ...], list[Diagnostic]]:
    """Read and judge the CHANGELOG.md next to a package's AGENTS.md or SKILL.md."""
    path = folder / FILENAME
    display = f"{display_folder}/{FILENAME}"
    try:
        text = read_regular(path, cap=limits.CHANGELOG_BYTES, follow=False).decode("utf-8")
    except FileNotFoundError:
        return (), [
            error(
                "changelog-missing",
                display,
                f"no {FILENAME} next to the package; add one with a "
                f"'## {version if isinstance(version, str) else '1.0.0'} (YYYY-MM-DD)' entry",
            )
        ]
    except UnicodeDecodeError:
        return (), [error("changelog-header", display, f"{FILENAME} is not UTF-8 text")]
    except OSError as exc:
        return (), [error("changelog-missing", display, f"cannot read {FILENAME}: {exc.strerror}")]
    entries, diags = parse(text, display)
    diags.extend(_order(entries, display))
    if isinstance(version, str) and SEMVER.match(version):
        if not entries and not diags:
            diags.append(
                error(
                    "changelog-version",
                    display,
                    f"{FILENAME} has no version entries; add '## {version} (YYYY-MM-DD)'",
                )
            )
        elif entries and entries[0].version != version:
            diags.append(
                error(
                    "changelog-version",
                    display,
                    f"the newest entry is {entries[0].version} but the package version is "
                    f"{version}; add a '## {version} (YYYY-MM-DD)' entry at the top "
                    f"(or fix the version)",
                    entries[0].line,
                )
            )
    return entries, diags


def _order(entries: tuple[ChangelogEntry, ...], path: str) -> list[Diagnostic]:
    diags = []
    for newer, older in itertools.pairwise(entries):
        a, b = SemVer.parse(newer.version), SemVer.parse(older.version)
        if a is not None and b is not None and not b < a:
            diags.append(
                error(
                    "changelog-order",
                    path,
                    f"{older.version} comes after {newer.version} but is not older; list "
                    f"versions newest first, each strictly lower than the one above",
                    older.line,
                )
            )
    return diags


def between(
    entries: tuple[ChangelogEntry, ...], old: str | None, new: str
) -> tuple[ChangelogEntry, ...]:
    """Entries newer than ``old`` up to and including ``new`` (for review diffs)."""
    low = SemVer.parse(old) if old else None
    high = SemVer.parse(new)
    picked = []
    for entry in entries:
        version = SemVer.parse(entry.version)
        if version is None or high is None or high < version:
            continue
        if low is not None and version <= low:
            continue
        picked.append(entry)
    return tuple(picked)
