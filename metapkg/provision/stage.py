"""All-or-nothing changes to the project: stage, then rename, with a journal.

Everything an install writes is first built under ``.metapkg/tx-<id>/stage/`` (same file
system as the project, so renames are atomic). Committing moves each replaced path into
``backup/``, renames the staged one into place, and writes the lock last. A journal listing
every operation is written before the first rename; if the process dies half-way, the
next metapkg run finds the journal and puts back every path whose operation had begun
(each operation's number is appended to ``progress`` before it starts), so files written
after the crash by someone else are left alone. Only after the lock is in place is the
journal marked committed and the backups deleted.

A ``--global`` install (provision/scope.py) stages under its own ``.metapkg/`` in the
user config directory and renames into the hosts' folders in the home folder: atomic on
one file system, the usual case; across two, the first rename fails and is rolled back.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from metapkg import failpoint
from metapkg.diagnostics import ProvisionError, error
from metapkg.hosts.paths import USER_ROOTS
from metapkg.provision.scope import Scope
from metapkg.textio import read_regular

STATE_DIR = ".metapkg"
_MAX_JOURNAL = 4 * 1024 * 1024
_JOURNAL = "journal.json"
_PROGRESS = "progress"
_COMMITTED = "committed"


@dataclass(frozen=True)
class Operation:
    path: str  # project-relative, "/"-separated
    staged: bool  # True: a staged replacement is renamed in; False: the path is removed
    had_original: bool


class Transaction:
    """One all-or-nothing change. Paths are as the scope records them (project-relative,
    or user-level templates); the transaction lives under the scope's ``.metapkg/``."""

    def __init__(self, scope: Scope) -> None:
        self.scope = scope
        # os.urandom, not uuid: importing uuid (and platform with it) cost 3 ms per install
        self.root = scope.base / STATE_DIR / f"tx-{os.urandom(6).hex()}"
        self.stage = self.root / "stage"
        self.backup = self.root / "backup"
        self._operations: dict[str, bool] = {}  # path -> staged?
        self.stage.mkdir(parents=True)

    # -- building ---------------------------------------------------------------------

    def staged_path(self, relative: str) -> Path:
        """Where to build the new content of ``relative``; registers the operation."""
        self._operations[relative] = True
        target = self.stage / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        return target

    def write_text(self, relative: str, text: str) -> None:
        self.write_bytes(relative, text.encode("utf-8"))

    def write_bytes(self, relative: str, data: bytes) -> None:
        target = self.staged_path(relative)
        failpoint.charge(len(data), target)
        target.write_bytes(data)

    def remove(self, relative: str) -> None:
        self._operations.setdefault(relative, False)

    @property
    def empty(self) -> bool:
        return not self._operations

    # -- committing -------------------------------------------------------------------

    def commit(self, last: tuple[str, ...] = ()) -> None:
        """Apply every operation; the paths in ``last`` (the lock) go after all others."""
        order = sorted(
            self._operations, key=lambda p: (p in last, last.index(p) if p in last else 0, p)
        )
        operations = [
            Operation(p, self._operations[p], os.path.lexists(self.scope.locate(p))) for p in order
        ]
        self._write_journal(operations, self._missing_folders(operations))
        try:
            with open(self.root / _PROGRESS, "a", encoding="ascii") as progress:
                for count, operation in enumerate(operations, start=1):
                    failpoint.before_commit_step(count)
                    progress.write(f"{count - 1}\n")
                    progress.flush()  # survives the process being killed
                    self._apply(operation)
        except BaseException as exc:
            rollback(self.root, self.scope)
            if isinstance(exc, OSError):
                raise ProvisionError(
                    [
                        error(
                            "provision",
                            exc.filename or str(self.scope.base),
                            f"could not write the project ({exc.strerror}); nothing was changed",
                        )
                    ]
                ) from None
            raise
        (self.root / _COMMITTED).touch()
        shutil.rmtree(self.root, ignore_errors=True)

    def discard(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    def _missing_folders(self, operations: list[Operation]) -> list[str]:
        """Folders the commit will create (so an undo can remove exactly those)."""
        missing: dict[str, None] = {}
        there: set[str] = set()  # each folder is looked at once, not once per operation
        for operation in operations:
            folder = Path(operation.path).parent
            while not _stop(folder):
                name = folder.as_posix()
                if name in there or name in missing:
                    break
                if self.scope.locate(name).exists():
                    there.add(name)
                    break
                missing[name] = None
                folder = folder.parent
        return sorted(missing, key=len)

    def _write_journal(self, operations: list[Operation], created: list[str]) -> None:
        journal = {
            "operations": [
                {"path": o.path, "staged": o.staged, "had_original": o.had_original}
                for o in operations
            ],
            "created_folders": created,
        }
        path = self.root / _JOURNAL
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(journal, handle)
            handle.flush()
            os.fsync(handle.fileno())

    def _apply(self, operation: Operation) -> None:
        target = self.scope.locate(operation.path)
        if operation.had_original:
            backup = self.backup / operation.path
            backup.parent.mkdir(parents=True, exist_ok=True)
            os.replace(target, backup)
        if operation.staged:
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(self.stage / operation.path, target)


def _stop(folder: Path) -> bool:
    """Where the search for folders a commit creates ends: the scope's own root."""
    return folder == Path(".") or folder.as_posix() in USER_ROOTS


def rollback(root: Path, scope: Scope) -> None:
    """Undo a transaction's applied operations, newest first, from its journal."""
    journal = read_journal(root, scope)
    if journal is None:  # never written whole, so nothing was applied
        shutil.rmtree(root, ignore_errors=True)
        return
    operations, created, begun = journal
    for index in sorted(begun, reverse=True):
        operation = operations[index]
        target = scope.locate(operation.path)
        backup = root / "backup" / operation.path
        if operation.had_original:
            if os.path.lexists(backup):
                delete_path(target)
                target.parent.mkdir(parents=True, exist_ok=True)
                os.replace(backup, target)
        elif operation.staged:
            delete_path(target)
    for folder in reversed(created):
        with contextlib.suppress(OSError):
            scope.locate(folder).rmdir()
    shutil.rmtree(root, ignore_errors=True)


def recover(scope: Scope) -> list[str]:
    """Finish or undo transactions a killed metapkg left behind; return what was undone.

    A journal is replayed only if everything in it is something metapkg could have
    written: a repository can commit a ``.metapkg/`` folder, and a planted journal must
    never make metapkg delete or move files elsewhere.
    """
    state = scope.base / STATE_DIR
    if os.path.islink(state):
        raise _refused(STATE_DIR, "is a symbolic link; metapkg keeps its state in a real folder")
    if not state.is_dir():
        return []
    undone = []
    for root in sorted(state.glob("tx-*")):
        shown = f"{STATE_DIR}/{root.name}"
        if os.path.islink(root) or not root.is_dir():
            raise _refused(shown, "is not a folder metapkg made")
        if (root / _COMMITTED).exists() or not os.path.lexists(root / _JOURNAL):
            shutil.rmtree(root, ignore_errors=True)
            continue
        rollback(root, scope)
        undone.append(root.name)
    return undone


Journal = tuple[list[Operation], list[str], set[int]]  # operations, created folders, begun


def read_journal(root: Path, scope: Scope) -> Journal | None:
    """The journal of a transaction, checked entry by entry; None if it was never written
    whole (then no operation began). Raises ProvisionError for anything metapkg would not
    have written."""
    shown = f"{STATE_DIR}/{root.name}/{_JOURNAL}"
    begun = _begun(root, shown)
    try:
        data = json.loads(read_regular(root / _JOURNAL, cap=_MAX_JOURNAL, follow=False))
    except (OSError, ValueError, RecursionError):
        if begun:
            raise _refused(shown, "cannot be read, yet operations were recorded as begun") from None
        return None
    if not isinstance(data, dict) or not isinstance(data.get("operations"), list):
        raise _refused(shown, "is not a journal metapkg writes")
    operations = [_operation(entry, shown, scope) for entry in data["operations"]]
    created = data.get("created_folders", [])
    if not isinstance(created, list) or not all(
        isinstance(f, str) and scope.allow.is_host_folder(f) for f in created
    ):
        raise _refused(shown, "lists folders metapkg never creates")
    if any(index >= len(operations) for index in begun):
        raise _refused(shown, "records progress past its last operation")
    return operations, created, begun


def _operation(entry: object, shown: str, scope: Scope) -> Operation:
    if not isinstance(entry, dict):
        raise _refused(shown, "is not a journal metapkg writes")
    path, staged, had = entry.get("path"), entry.get("staged"), entry.get("had_original")
    if not isinstance(path, str) or not scope.allow.is_writable(path):
        raise _refused(shown, f"names {path!r}, which is not a path metapkg writes")
    if not isinstance(staged, bool) or not isinstance(had, bool):
        raise _refused(shown, f"has a malformed entry for {path!r}")
    link = scope.linked_folder(path)
    if link is not None:
        raise _refused(shown, f"would write {path!r} through the symbolic link {link!r}")
    return Operation(path, staged, had)


def _begun(root: Path, shown: str) -> set[int]:
    try:
        text = read_regular(root / _PROGRESS, cap=_MAX_JOURNAL, follow=False).decode("ascii")
        return {int(line) for line in text.split()}
    except FileNotFoundError:
        return set()
    except (OSError, ValueError):
        raise _refused(shown, "has an unreadable progress record") from None


def _refused(path: str, why: str) -> ProvisionError:
    return ProvisionError(
        [
            error(
                "journal",
                path,
                f"{why}. metapkg will not replay it, and stops here; if it is not yours, "
                f"delete {STATE_DIR}/ (it holds only metapkg's local state) and install again",
            )
        ]
    )


def delete_path(path: Path) -> None:
    """Remove a file, a link or a whole folder at ``path``, if there is one."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif os.path.lexists(path):
        path.unlink()
