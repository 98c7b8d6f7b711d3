"""`python -m fixture_server --root DIR [--latency S] [--env-file PATH]`

Serves until SIGTERM or SIGINT. The first stdout line is `METAPKG_GITHUB_API_URL=<url>`,
so a script can start it in the background and read where it listens (`--env-file` gets
that line alone). Two more lines follow: `METAPKG_GITHUB_URL=<url>` (the web host: git
smart HTTP, archive links) and `METAPKG_GITHUB_ARCHIVE_URL=<url>` (the archive host).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from pathlib import Path
from types import FrameType

from fixture_server.server import FixtureGitHub

ENV_VAR = "METAPKG_GITHUB_API_URL"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m fixture_server", description=__doc__)
    parser.add_argument("--root", type=Path, help="folder of <owner>/<repo>/repo.yaml files")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds before each answer")
    parser.add_argument("--env-file", type=Path, help="also write the URL line to this file")
    args = parser.parse_args(argv)

    server = FixtureGitHub(args.root, latency=args.latency)
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    with server:
        line = f"{ENV_VAR}={server.api_url}"
        if args.env_file is not None:
            _write_atomically(args.env_file, line + "\n")
        print(line, flush=True)
        print(f"METAPKG_GITHUB_URL={server.web_url}", flush=True)
        print(f"METAPKG_GITHUB_ARCHIVE_URL={server.download_url}", flush=True)
        # Short waits so the signal handler gets to run promptly on every platform.
        while not stop.wait(0.2):
            pass
    return 0


def _write_atomically(path: Path, text: str) -> None:
    """Readers polling for the file never see it half-written."""
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temp.write_text(text, encoding="utf-8")
    os.replace(temp, path)


if __name__ == "__main__":
    sys.exit(main())
