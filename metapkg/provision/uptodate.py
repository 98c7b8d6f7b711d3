"""Is the project exactly as the last install left it? Decided from one small record.

After a successful install metapkg writes ``.metapkg/uptodate``, as git keeps its index:
the metapkg version, the placeholder values (and the environment they came from), the
stamp (mtime, ctime, size, inode) and SHA-256 of the manifest, the lock and each MCP
config it wrote to, and the stamp of every path it owns and of every file of every
``file:`` package (those are re-read on each install). A file whose stamp is unchanged
is not read (its hash is checked only when the stamp moved, or could hide a change). If
the project still matches the record, nothing can have changed and install stops there:
no YAML, no JSON, no HTTP stack, no hashing of package trees.

This module is on the path of every up-to-date ``metapkg install``, before argparse, so it
imports only ``os`` (and hashlib when it must hash): the placeholder values are not computed again
(platformdirs, pathlib) while the project folder and the environment they come from are
the ones recorded. The record is a flat list of tokens separated by NUL, which no
path, environment value or hex digest can hold, so reading it needs no parser: a
damaged or foreign record simply does not match. Its own format line guards the layout.

Stamps, not hashes, stand for the owned paths and the ``file:`` packages' files: one of
them changed within the same clock tick as the install's last look at it, keeping its
size, is not noticed (git calls such entries "racily clean"); ``metapkg install
--reinstall`` always redoes everything.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy knows the name)
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Mapping

STATE_FILE = ".metapkg/state.json"  # the ownership record (state.py)
VERSION = 3  # of state.json
RECORD = ".metapkg/uptodate"
FORMAT = "metapkg-uptodate-1"
# What the default ${sharedDir} comes from: platformdirs reads these for the user data
# folder (XDG_DATA_HOME and HOME on Linux, HOME on macOS, the profile on Windows). While
# they and the project are the same, so is every placeholder value, and the check does
# not import platformdirs to compute them again.
VALUE_INPUTS = ("METAPKG_SHARED_DIR", "XDG_DATA_HOME", "HOME", "USERPROFILE", "LOCALAPPDATA")
_SEP = "\0"


def _stamp(path: str) -> str:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return "-"
    return f"{st.st_mtime_ns} {st.st_ctime_ns} {st.st_size} {st.st_ino}"


def _walk(root: str) -> Iterator[tuple[str, str]]:
    """``root`` and every file below it (links not followed into), with their stamps."""
    yield root, _stamp(root)
    if os.path.isdir(root):
        for folder, _, files in os.walk(root):
            for name in files:
                child = os.path.join(folder, name)
                yield child, _stamp(child)


def _digest(path: str) -> str:
    from hashlib import sha256

    from metapkg.safefile import read_regular

    try:
        return sha256(read_regular(path)).hexdigest()
    except FileNotFoundError:
        return "-"
    except OSError:  # a folder, a FIFO, unreadable: certainly not what the last install saw
        return "unreadable"


def _inputs() -> list[str]:
    return [sys.platform, *(os.environ.get(name, "") for name in VALUE_INPUTS)]


def _entries(
    project: str,
    owned_paths: Iterable[str],
    configs: Iterable[str],
    file_roots: Iterable[str],
    values: Mapping[str, str],
    version: str,
) -> Iterator[str]:
    yield from (FORMAT, version, *_inputs())
    for name, value in sorted(values.items()):
        yield from ("value", name, value)
    for name in ("metapkg.yaml", "metapkg.lock", *sorted(configs)):
        path = os.path.join(project, name)
        yield from ("digest", name, _stamp(path), _digest(path))
    for name in sorted(owned_paths):
        yield from ("stamp", name, _stamp(os.path.join(project, name)))
    for root in sorted(set(file_roots)):
        tree = list(_walk(root))
        yield from ("tree", root, str(len(tree)))
        for path, stamp in tree:
            yield from (path, stamp)
    yield "end"


def record(
    project: str,
    owned_paths: Iterable[str],
    configs: Iterable[str],
    file_roots: Iterable[str],
    values: Mapping[str, str],
    version: str,
) -> str:
    """The record of the project as it is now (saved after an install)."""
    return _SEP.join(_entries(project, owned_paths, configs, file_roots, values, version))


def up_to_date(project: str, version: str, values: Mapping[str, str] | None = None) -> bool:
    """True when the record saved by the last install still describes ``project``.

    ``values``: the placeholder values now; None: the recorded ones, as long as the project
    folder and the environment they come from are the same.
    """
    from metapkg.safefile import read_regular

    path = os.path.join(project, RECORD)
    try:
        tokens = read_regular(path, follow=False).decode().split(_SEP)
        written = os.stat(path).st_mtime_ns
        if any(name.startswith("tx-") for name in os.listdir(os.path.join(project, ".metapkg"))):
            return False  # an interrupted install is waiting to be rolled back
    except (OSError, UnicodeDecodeError):  # no record, or not one of ours
        return False
    head = [FORMAT, version, *_inputs()]
    if tokens[: len(head)] != head or tokens[-1:] != ["end"]:
        return False
    try:
        return _matches(project, tokens, len(head), values, written)
    except (IndexError, ValueError):  # damaged: not up to date
        return False


def _same_content(path: str, stamp: str, digest: str, written: int) -> bool:
    """Is the file still the one recorded? Its stamp says so, unless the recorded stamp is
    as new as the record itself (a change in that same clock tick would keep it: git's
    "racily clean"); then, or when the stamp moved, its hash decides."""
    if stamp != "-" and _stamp(path) == stamp:
        mtime, ctime = (int(part) for part in stamp.split()[:2])
        if max(mtime, ctime) < written:
            return True
    return _digest(path) == digest


def _matches(
    project: str,
    tokens: list[str],
    at: int,
    values: Mapping[str, str] | None,
    written: int,
) -> bool:
    saved: dict[str, str] = {}
    while tokens[at] == "value":
        saved[tokens[at + 1]] = tokens[at + 2]
        at += 3
    if values is None:
        if saved.get("workspaceDir") != os.path.abspath(project).replace(os.sep, "/"):
            return False  # the project moved: every value may differ
    elif dict(values) != saved:
        return False
    while tokens[at] == "digest":
        path = os.path.join(project, tokens[at + 1])
        if not _same_content(path, tokens[at + 2], tokens[at + 3], written):
            return False
        at += 4
    while tokens[at] == "stamp":
        if _stamp(os.path.join(project, tokens[at + 1])) != tokens[at + 2]:
            return False
        at += 3
    while tokens[at] == "tree":  # a file: package: every file, so a new one is a change too
        root, count = tokens[at + 1], int(tokens[at + 2])
        at += 3
        for path, stamp in _walk(root):
            if count == 0 or tokens[at] != path or tokens[at + 1] != stamp:
                return False
            count -= 1
            at += 2
        if count:
            return False
    return tokens[at] == "end"


def read_saved(project: str | os.PathLike[str]) -> dict[str, object] | None:
    """state.json (the ownership record, state.py), or None when missing or not ours."""
    import json

    from metapkg.safefile import read_regular

    try:
        saved = json.loads(read_regular(os.path.join(project, STATE_FILE), follow=False))
    except (OSError, ValueError, RecursionError):  # missing, special, damaged or hostile
        return None
    if not isinstance(saved, dict) or saved.get("version") != VERSION:
        return None
    return saved
