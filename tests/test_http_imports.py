"""The network path imports httpx, not httpx's command line (click, pygments, rich)."""

from __future__ import annotations

import subprocess
import sys


def test_making_the_http_client_imports_no_command_line_modules() -> None:
    code = (
        "import sys\n"
        "from metapkg.fetch.http import Http, Policy\n"
        "Http(None, 1, Policy()).close()\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'click', 'pygments', 'rich'}))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]", done.stdout
