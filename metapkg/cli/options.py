"""The options several commands take, defined once (see base.Option)."""

from __future__ import annotations

import argparse

from metapkg.cli import tophelp
from metapkg.cli.base import Option


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


def _offline() -> bool:
    from metapkg import settings  # when a parser is built, not at import (`--help`)

    return settings.offline()


def _jobs_text() -> str:
    from metapkg import settings

    return settings.jobs_text()


def _executable(text: str) -> str:
    from metapkg.manifest import COMMAND_NAME

    if not COMMAND_NAME.match(text):
        raise argparse.ArgumentTypeError(f"{text!r} is not a bare executable name (e.g. pytest)")
    return text


OFFLINE = Option(
    "--offline",
    action="store_true",
    lazy_default=_offline,
    help="use only the download cache (also METAPKG_OFFLINE=1)",
)
JOBS = Option(
    "--jobs",
    type=_positive,
    lazy_default=_jobs_text,  # a string default is parsed by `type`
    metavar="N",
    help="parallel downloads (default 16)",
)
JSON = Option(
    "--json",
    action="store_true",
    help="print the result as JSON on stdout (shapes: README, 'Output for programs')",
)
# For commands with a --format choice that includes json: --json is short for it.
JSON_FORMAT = Option(
    "--json", action="store_const", const="json", dest="format", help="same as --format json"
)
DRY_RUN = Option(
    "--dry-run",
    action="store_true",
    help="resolve and show what would change; write nothing (no lock, no files, no state)",
)
ALLOW_COMMAND = Option(
    "--allow-command",
    action="append",
    default=[],
    type=_executable,
    metavar="EXE",
    help="let command() run this executable (repeatable; adds to "
    "metaskills.allow-commands in metapkg.yaml)",
)
PROJECT = Option(
    "-C",
    "--project",
    metavar="DIR",
    completes="directory",
    help=tophelp.PROJECT_HELP,
)
OUTPUT = Option(
    "-o", "--output", metavar="FILE", completes="file", help="write to FILE instead of stdout"
)
PATHS = Option("paths", nargs="*", metavar="PATH", completes="file")
# A package of the lock, by fqn or short name; shells complete it from `metapkg list`.
PACKAGE = Option("fqn", metavar="FQN", completes="packages")
PACKAGES = Option("fqns", metavar="FQN", completes="packages")

GLOBAL = Option(
    "-g",
    "--global",
    dest="user_scope",
    action="store_true",
    help="the user scope instead of a project: each host's user-level folders and "
    "configs (~/.claude/skills, ~/.codex/config.toml, ...), with a metapkg.yaml and lock "
    "of their own in the user config directory",
)

AUDIT = Option(
    "--audit",
    choices=("off", "warn", "block"),
    default="warn",
    help="audit what enters the graph: warn (default: findings are warnings, policy "
    "violations stop the install), block (findings stop it too), off",
)
POLICY = Option(
    "--policy",
    metavar="FILE|URL",
    completes="file",
    help="a policy file that tightens metapkg.yaml's policy: (also METAPKG_POLICY)",
)
STRICT = Option(
    "--strict",
    action="store_true",
    help="fail on every finding of the packages' rules, as `metapkg check` does (also "
    "strict: true in metapkg.yaml); by default install only warns about what is safe "
    "and what the hosts load",
)

FETCH = (OFFLINE, JOBS)
# install, update, add and remove: they resolve, fetch and provision, and report it
INSTALLING = (OFFLINE, JOBS, DRY_RUN, JSON, GLOBAL, AUDIT, POLICY)
