"""The one shape every command has, as PDM's BaseCommand: arguments, then ``handle``.

A command lists the :class:`Option` objects it takes (shared ones live in options.py, so
no command imports another's helpers), may add its own in ``add_arguments``, and does its
work in ``handle``. main.py imports a command's module only when that command runs.
"""

from __future__ import annotations

import argparse
import os

from metapkg.cli.tophelp import epilog

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy knows the name)
if TYPE_CHECKING:  # on the path of `metapkg --help`: no typing, no pathlib
    from collections.abc import Callable, Sequence
    from pathlib import Path
    from typing import Any, ClassVar


class Option:
    """One argument as ``parser.add_argument`` takes it, reusable by any command.

    ``lazy_default`` is called when the parser is built (an environment variable read
    then, not at import); ``completes`` names what a shell should offer for it
    ("packages": the fqns in metapkg.lock; "file", "directory"); see completion.py.
    """

    def __init__(
        self,
        *flags: str,
        lazy_default: Callable[[], object] | None = None,
        completes: str | None = None,
        **settings: Any,
    ) -> None:
        self.flags = flags
        self.lazy_default = lazy_default
        self.completes = completes
        self.settings = settings

    def add_to(
        self, parser: argparse.ArgumentParser, *flags: str, **changes: Any
    ) -> argparse.Action:
        """Add it to ``parser``; ``flags`` and ``changes`` adapt it to one command."""
        settings = {**self.settings, **changes}
        if self.lazy_default is not None:
            settings["default"] = self.lazy_default()
        action = parser.add_argument(*(flags or self.flags), **settings)
        if self.completes is not None:
            action.complete = self.completes  # type: ignore[attr-defined]  # read by shtab
        return action


class BaseCommand:
    """A subcommand: ``arguments`` are added in order, then ``add_arguments`` adds more."""

    arguments: ClassVar[Sequence[Option]] = ()
    # (command line, what it does): shown under "examples:" in `metapkg COMMAND --help`
    examples: ClassVar[Sequence[tuple[str, str]]] = ()
    # Run from the folder holding metapkg.yaml, found upwards from where metapkg started
    # (as uv and cargo do); False for commands about paths or about this machine.
    finds_project: ClassVar[bool] = True
    # With --global (options.GLOBAL): start the user-scope manifest when there is none.
    makes_user_manifest: ClassVar[bool] = False
    # The dest of a positional list that may go on after options (`add A --skill x B`):
    # argparse stops a positional at the first option; parser.py gathers the rest.
    intermixed: ClassVar[str | None] = None

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        """Add this command's own arguments (after the shared ``arguments``)."""

    def handle(self, args: argparse.Namespace) -> int:
        raise NotImplementedError

    def uses_project(self, args: argparse.Namespace) -> bool:
        """Should metapkg look for the project upwards before ``handle``?"""
        return self.finds_project

    def configure(self, parser: argparse.ArgumentParser) -> None:
        for option in self.arguments:
            option.add_to(parser)
        self.add_arguments(parser)
        if self.examples:
            parser.epilog = epilog(self.examples)
            parser.formatter_class = argparse.RawDescriptionHelpFormatter


def given_path(args: argparse.Namespace, text: str) -> Path:
    """A path typed on the command line, as the user meant it: relative to the folder
    metapkg was started in, even when it then moved to the project's folder."""
    from pathlib import Path

    path = Path(text)
    started: Path = args.invoked_from
    if path.is_absolute() or started == Path.cwd():
        return path
    return started / path


def policy_argument(args: argparse.Namespace) -> str | None:
    """``--policy`` as the user meant it: a URL, or a file relative to where metapkg
    started."""
    text: str | None = getattr(args, "policy", None)
    if text is None or text.startswith(("https://", "http://")):
        return text
    return str(given_path(args, text))


def given_source(args: argparse.Namespace, text: str) -> str:
    """A source typed on the command line (``./x``, ``../x``, ``file:x``) made relative
    to the project's folder, where metapkg runs; anything else as typed."""
    from pathlib import Path

    started: Path = args.invoked_from
    here = Path.cwd()
    path = text.removeprefix("file:")
    local = text.startswith("file:") or path.startswith(("./", "../", ".\\", "..\\"))
    if local and not os.path.isabs(path) and getattr(args, "user_scope", False):
        # --global runs in the user-scope folder: a path relative to it would be a puzzle
        return "file:" + (started / path).resolve().as_posix()
    if started == here or not local or os.path.isabs(path):
        return text
    relative = os.path.relpath(started / path, here).replace(os.sep, "/")
    prefix = "file:" if text.startswith("file:") else ""
    return prefix + (relative if relative.startswith("..") else f"./{relative}")
