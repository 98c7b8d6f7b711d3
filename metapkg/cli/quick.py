"""The answers metapkg gives before it imports argparse: ``--version``, ``--help``, and
``install`` on a project that is already up to date.

They are the commands run most often and with the least to do, so they must cost little
more than starting Python (building the full parser costs more than the no-op's own
work). Only the plainest spellings are answered here; anything else (another option, a
bad METAPKG_JOBS, no project, a project that is not up to date) returns None and takes
the ordinary path, which gives the same answer with every check and message.
Standard library ``os`` and ``sys`` only.
"""

from __future__ import annotations

import os
import sys

QUIET = ("-q", "--quiet")


def answer(argv: list[str]) -> int | None:
    """The exit code when ``argv`` was answered here, else None."""
    if argv == ["--version"]:
        from metapkg import __version__

        print(f"metapkg {__version__}")
        return 0
    if argv in (["--help"], ["-h"]):
        from metapkg.cli import tophelp
        from metapkg.cli.main import SUMMARIES

        sys.stdout.write(tophelp.render(SUMMARIES.items()))
        return 0
    words = [word for word in argv if word not in QUIET]
    if words == ["install"] and _jobs_setting_valid():
        return _noop_install(quiet=len(words) < len(argv))
    return None


def _jobs_setting_valid() -> bool:
    """METAPKG_JOBS is unset or a positive number (else the parser reports it)."""
    text = os.environ.get("METAPKG_JOBS", "").strip()
    return not text or (text.isdigit() and int(text) > 0)


def _noop_install(quiet: bool) -> int | None:
    project = find_project(os.getcwd())
    if project is None or not settled(project):
        return None
    if not quiet:
        print("Already up to date", file=sys.stderr)
    return 0


_settled: dict[str, bool] = {}  # project -> the answer of this run (main clears it)


def settled(project: str) -> bool:
    """Is ``project`` as the last install left it? Removes what a killed metapkg was
    writing first. Answered once per run: a plain ``install`` asks before argparse, and
    when the answer is no, the parsed install would ask again."""
    if project not in _settled:
        from metapkg import __version__, orphans
        from metapkg.provision.uptodate import up_to_date

        orphans.sweep_project(project)
        _settled[project] = up_to_date(project, __version__)
    return _settled[project]


def forget() -> None:
    """A new run (main is also called in-process, by tests)."""
    _settled.clear()


def find_project(start: str) -> str | None:
    """The nearest folder from ``start`` upwards that holds metapkg.yaml (as uv and cargo
    find theirs), or None."""
    folder = start
    while True:
        if os.path.isfile(os.path.join(folder, "metapkg.yaml")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent
