"""``--global`` on the command line: run in the user-scope folder, provision user-level.

Commands that take ``--global`` (options.GLOBAL: install, add, remove, update, list,
verify) run in ``settings.global_dir()``, as other commands run in their project's folder;
``scope(args)`` is what they hand the actions so that provisioning goes to the hosts'
user-level folders (provision/scope.py).
"""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

from metapkg.cli.output import status

if TYPE_CHECKING:
    from metapkg.cli.base import BaseCommand
    from metapkg.provision.scope import Scope


def enter(command: BaseCommand, args: argparse.Namespace) -> None:
    from metapkg.actions.userscope import manifest_folder
    from metapkg.diagnostics import UsageError

    if args.project not in (".", ""):
        raise UsageError.single(
            "usage", "--global", "--global works in the user-scope folder; leave out -C"
        )
    create = command.makes_user_manifest and not getattr(args, "dry_run", False)
    folder, started = manifest_folder(create)
    os.chdir(folder)
    if started is not None and not getattr(args, "json", False):
        status(f"Wrote {folder / 'metapkg.yaml'} (targets: {', '.join(started)})", args.quiet)


def scope(args: argparse.Namespace) -> Scope | None:
    """The user scope with --global, else None (the project)."""
    if not getattr(args, "user_scope", False):
        return None
    from metapkg.provision.scope import user

    return user()
