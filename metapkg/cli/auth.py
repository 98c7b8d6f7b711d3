"""metapkg auth login|logout|status"""

from __future__ import annotations

import argparse
import getpass
import sys
from types import ModuleType
from typing import ClassVar

from metapkg.cli.base import BaseCommand


class AuthCommand(BaseCommand):
    examples: ClassVar = (
        ("metapkg auth login", "store a GitHub token in the OS keyring (prompted)"),
        ("gh auth token | metapkg auth login --with-token", "from standard input"),
        ("metapkg auth status", "which token is used, if any"),
    )
    finds_project = False

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("action", choices=("login", "logout", "status"))
        parser.add_argument(
            "--with-token",
            action="store_true",
            help="login: read the token from standard input instead of prompting",
        )

    def handle(self, args: argparse.Namespace) -> int:
        from metapkg.fetch import auth

        try:
            if args.action == "login":
                return _login(args, auth)
            if args.action == "logout":
                removed = auth.delete()
                print("Removed the token from the OS keyring" if removed else "No token was stored")
                return 0
            return _status(auth)
        except (auth.KeyringUnavailable, auth.BadToken) as exc:
            print(f"metapkg auth: {exc}", file=sys.stderr)
            return 1


def _login(args: argparse.Namespace, auth: ModuleType) -> int:
    if args.with_token or not sys.stdin.isatty():
        token = sys.stdin.readline().strip()
    else:
        token = getpass.getpass("GitHub token (input hidden): ").strip()
    if not token:
        print("metapkg auth: no token given; nothing stored", file=sys.stderr)
        return 1
    auth.checked(token, "the input")  # refuse a malformed token before storing it
    auth.store(token)
    print("Stored the token in the OS keyring")
    return 0


def _status(auth: ModuleType) -> int:
    found = auth.find()
    if found is None:
        print("No GitHub token: requests are anonymous (GitHub allows 60 an hour).")
        print("Set GITHUB_TOKEN or run `metapkg auth login`.")
    elif found.source == "keyring":
        print("Using a GitHub token from the OS keyring (metapkg auth login).")
    else:
        print(f"Using a GitHub token from the {found.source} environment variable.")
    return 0


COMMAND = AuthCommand()
