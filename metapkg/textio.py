"""Reading and writing the small text files metapkg owns or is handed.

Every file a user can edit or a pull request can carry is read with ``read_utf8``, so
bytes that are not UTF-8 become a diagnostic naming the file, never a traceback. Every
file metapkg rewrites goes through ``write_atomic``: readers see the old or the new
content, never half of it.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from metapkg.diagnostics import MetapkgError


def read_utf8(path: Path, rule: str, display: str | None = None) -> str:
    """The file's text; FileNotFoundError as usual; anything undecodable is an error."""
    data = path.read_bytes()
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        raise MetapkgError.single(
            rule,
            display or path.name,
            f"the file is not UTF-8 text (byte {exc.start} is 0x{data[exc.start]:02x}); "
            f"save it as UTF-8",
        ) from None


def write_atomic(path: Path, text: str) -> None:
    """Write via a temporary file in the same folder and an atomic rename."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        with open(temporary, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
