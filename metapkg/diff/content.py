"""What a changed package's files now say: the files added, removed and changed between
the two pinned trees, with a unified diff of every text file and the frontmatter fields
hosts show the model.

A lock diff alone shows two hashes; the reviewer's question is what the agent will read.
Both trees come from the download cache by the commits the locks pin (fetched when
missing, through install's safe paths) and are used only when they match the lock's
integrity, so the text shown is exactly what installs.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

# Larger files, and files that are not UTF-8 text, are summarised by size and hash.
TEXT_LIMIT = 256 * 1024
# Frontmatter fields a host shows the model (or uses to grant tools): shown as field
# changes above the text diff, where a reviewer cannot miss them.
SHOWN_FIELDS = ("name", "description", "allowed-tools")
MANIFESTS = ("SKILL.md", "AGENTS.md")
URL = re.compile(r"\bhttps?://([A-Za-z0-9.-]+)(?::\d+)?", re.IGNORECASE)


@dataclass(frozen=True)
class FileInfo:
    size: int
    sha256: str
    executable: bool
    text: str | None  # None for binary or large files

    @property
    def shebang(self) -> bool:
        return self.text is not None and self.text.startswith("#!")


# Where code that runs lives by convention, whatever its mode: the one definition that
# diff's alerts, audit's findings and the policy's `forbid` share.
SCRIPT_FOLDERS = ("scripts/", "bin/")


def is_hook(path: str) -> bool:
    """A hook file (Claude Code plugins: ``hooks/``, ``hooks.json``): code a host runs
    without asking."""
    return path.startswith("hooks/") or path.rsplit("/", 1)[-1] == "hooks.json"


def is_script(path: str, info: FileInfo) -> bool:
    """An executable or script: the exec bit, a shebang, or a scripts/ or bin/ folder."""
    return info.executable or info.shebang or path.startswith(SCRIPT_FOLDERS)


@dataclass(frozen=True)
class FileDelta:
    path: str
    status: str  # added, removed, changed, mode (only the exec bit changed)
    old: FileInfo | None
    new: FileInfo | None
    lines: tuple[str, ...] = ()  # unified diff lines, headers included; () for binary

    @property
    def binary(self) -> bool:
        return any(info is not None and info.text is None for info in (self.old, self.new))

    def added_lines(self) -> list[tuple[int, str]]:
        """(line number in the new file, text) of every line this change adds."""
        if self.new is None or self.new.text is None:
            return []
        if self.old is None or self.old.text is None:
            return list(enumerate(self.new.text.splitlines(), start=1))
        found: list[tuple[int, str]] = []
        matcher = difflib.SequenceMatcher(
            None, self.old.text.splitlines(), self.new.text.splitlines(), autojunk=False
        )
        new_lines = self.new.text.splitlines()
        for tag, _i1, _i2, j1, j2 in matcher.get_opcodes():
            if tag in ("replace", "insert"):
                found.extend((j + 1, new_lines[j]) for j in range(j1, j2))
        return found


@dataclass(frozen=True)
class FieldChange:
    field: str
    old: str | None
    new: str | None


@dataclass(frozen=True)
class Content:
    files: tuple[FileDelta, ...] = ()
    fields: tuple[FieldChange, ...] = ()
    unavailable: str | None = None  # why the content could not be shown
    old_hosts: frozenset[str] = frozenset()  # URL hosts anywhere in the old tree

    @property
    def summary(self) -> str:
        counts: dict[str, int] = {}
        for delta in self.files:
            counts[delta.status] = counts.get(delta.status, 0) + 1
        return ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))


def snapshot(root: Path | None, digest: bool = True) -> dict[str, FileInfo]:
    """Every regular file under ``root`` (a folder, or one MCP .json file), by relative
    POSIX path. Links are not followed (packages hold regular files only). Without
    ``digest`` the SHA-256 is left empty (the audit reads text, it compares nothing)."""
    if root is None:
        return {}
    if root.is_file():
        return {root.name: _info(root, digest)}
    found: dict[str, FileInfo] = {}
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs.sort()
        for name in sorted(files):
            path = Path(folder, name)
            if stat.S_ISREG(path.lstat().st_mode):
                found[path.relative_to(root).as_posix()] = _info(path, digest)
    return found


def _info(path: Path, digest: bool = True) -> FileInfo:
    data = path.read_bytes()
    executable = bool(path.lstat().st_mode & 0o111)
    text: str | None = None
    if len(data) <= TEXT_LIMIT and b"\0" not in data:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = None
    sha256 = hashlib.sha256(data).hexdigest() if digest else ""
    return FileInfo(len(data), sha256, executable, text)


def compare_trees(old: dict[str, FileInfo], new: dict[str, FileInfo]) -> Content:
    """The file-level changes from ``old`` to ``new``, in path order."""
    deltas = []
    for path in sorted(old.keys() | new.keys(), key=lambda p: p.encode("utf-8")):
        a, b = old.get(path), new.get(path)
        if a == b:
            continue
        if a is None:
            status = "added"
        elif b is None:
            status = "removed"
        elif a.sha256 == b.sha256:
            status = "mode"
        else:
            status = "changed"
        deltas.append(FileDelta(path, status, a, b, tuple(_unified(path, a, b))))
    return Content(tuple(deltas), tuple(field_changes(old, new)), old_hosts=hosts(old))


def hosts(files: dict[str, FileInfo]) -> frozenset[str]:
    """Every host a URL in a text file of ``files`` names, lower case."""
    found: set[str] = set()
    for info in files.values():
        if info.text is not None and "://" in info.text:
            found.update(host.lower().rstrip(".") for host in URL.findall(info.text))
    return frozenset(found)


def _unified(path: str, a: FileInfo | None, b: FileInfo | None) -> list[str]:
    if (a is not None and a.text is None) or (b is not None and b.text is None):
        return []
    if a is not None and b is not None and a.sha256 == b.sha256:
        return []
    before = a.text.splitlines() if a is not None and a.text is not None else []
    after = b.text.splitlines() if b is not None and b.text is not None else []
    return list(
        difflib.unified_diff(
            before,
            after,
            fromfile=f"a/{path}" if a is not None else "/dev/null",
            tofile=f"b/{path}" if b is not None else "/dev/null",
            lineterm="",
            n=2,
        )
    )


def field_changes(old: dict[str, FileInfo], new: dict[str, FileInfo]) -> list[FieldChange]:
    """Changes of SHOWN_FIELDS in the package's manifest (SKILL.md or AGENTS.md)."""
    before, after = _fields(old), _fields(new)
    changed = []
    for name in SHOWN_FIELDS:
        if before.get(name) != after.get(name):
            changed.append(FieldChange(name, before.get(name), after.get(name)))
    return changed


def _fields(files: dict[str, FileInfo]) -> dict[str, str]:
    from metapkg.packages.frontmatter import FrontmatterProblem, parse

    for manifest in MANIFESTS:
        info = files.get(manifest)
        if info is None or info.text is None:
            continue
        try:
            values = parse(info.text).fields
        except (FrontmatterProblem, ValueError):
            return {}
        return {k: _flat(values[k]) for k in SHOWN_FIELDS if k in values}
    return {}


def _flat(value: object) -> str:
    if isinstance(value, list):
        return ", ".join(str(item) for item in value)
    return str(value)
