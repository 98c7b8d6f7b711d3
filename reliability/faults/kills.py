"""kill -9 at random points of install, update and remove.

Each operation starts from a copy of the installed template. A reference run (not
killed) gives the new state and how long the operation takes; the old state is the
copy before the operation. Half of the trials SIGKILL the process after a random delay
within that time (so kills land in start-up, resolution, downloads, extraction, staging
and the commit alike); the other half set ``METAPKG_FAILPOINT=commit-kill:N`` with a
random N, which kills it just before the N-th rename of the commit, where a kill is most
likely to leave a mix. After the kill:

* the lock and the manifest are each byte-for-byte the old or the new one, and the
  user's own files and ``.mcp.json`` entries are untouched;
* ``metapkg install`` succeeds (rolling back whatever the kill interrupted), then
  ``metapkg verify`` succeeds (the lock agrees with the files);
* the project is then exactly in the old or the new state (the new one for ``install``,
  whose manifest already asks for it), the lock is that state's lock, no transaction is
  left in ``.metapkg/``, and the user's own things are still byte-identical.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from reliability.faults import state, world
from reliability.faults.lab import Lab, Outcome


@dataclass(frozen=True)
class Operation:
    name: str
    args: tuple[str, ...]
    prepare: Callable[[Path], None]  # applied to the project before the operation
    finals: tuple[str, ...]  # the states the project may end in after `install`


def _to_manifest_b(project: Path) -> None:
    (project / "metapkg.yaml").write_text(world.MANIFEST_B)


def _nothing(project: Path) -> None:
    pass


OPERATIONS = (
    Operation("install", ("install",), _to_manifest_b, ("new",)),
    Operation("update", ("update",), _nothing, ("old", "new")),
    Operation("remove", ("remove", "acme/beta"), _nothing, ("old", "new")),
)


@dataclass(frozen=True)
class Reference:
    """The two states a trial may end in, and how long the operation takes."""

    states: dict[str, state.Snapshot]
    locks: dict[str, bytes]
    manifests: tuple[bytes, ...]
    seconds: float
    written: int  # bytes of the files the operation wrote, the project and the cache

    @property
    def renames(self) -> int:
        """How many paths the operation's commit replaces, adds or removes: each changed
        provisioned folder or file, ``.mcp.json`` and the lock (the failpoint's range)."""
        old, new = self.states["old"], self.states["new"]
        changed = {k for k in old.keys() | new.keys() if old.get(k) != new.get(k)}
        return len({_root(path) for path in changed} - {"metapkg.yaml"})


def _root(path: str) -> str:
    """The provisioned path a project file belongs to (``.claude/skills/x/a.md`` ->
    ``.claude/skills/x``), or the file itself."""
    parts = path.split("/")
    return "/".join(parts[:3]) if parts[0] in (".agents", ".claude") else path


def _lock(project: Path) -> bytes:
    path = project / "metapkg.lock"
    return path.read_bytes() if path.is_file() else b""


def reference(lab: Lab, operation: Operation) -> Reference:
    """The operation's reference, computed once per lab."""
    return lab.memo(f"reference-{operation.name}", lambda: _reference(lab, operation))


def _reference(lab: Lab, operation: Operation) -> Reference:
    old = lab.clone(lab.installed(), f"ref-old-{operation.name}")
    operation.prepare(old / "project")
    new = lab.clone(old, f"ref-new-{operation.name}")
    done = lab.run(new, *operation.args)
    if done.code != 0:
        raise RuntimeError(f"reference {operation.name} failed\n{done.show()}")
    manifests = tuple((s / "project" / "metapkg.yaml").read_bytes() for s in (old, new))
    return Reference(
        states={"old": state.snapshot(old / "project"), "new": state.snapshot(new / "project")},
        locks={"old": _lock(old / "project"), "new": _lock(new / "project")},
        manifests=manifests,
        seconds=done.seconds,
        written=_written(old, new),
    )


def _written(before: Path, after: Path) -> int:
    """The size of every file in ``after`` that is not in ``before`` as it was (same
    size and modification time): what the operation wrote, less what it deleted again."""

    def files(root: Path) -> dict[str, tuple[int, int]]:
        found = {}
        for folder, _, names in os.walk(root):
            for name in names:
                st = os.lstat(os.path.join(folder, name))
                found[os.path.relpath(os.path.join(folder, name), root)] = (
                    st.st_size,
                    st.st_mtime_ns,
                )
        return found

    old = files(before)
    return sum(
        size for path, (size, mtime) in files(after).items() if old.get(path) != (size, mtime)
    )


def trial(lab: Lab, operation: Operation, ref: Reference, index: int) -> Outcome:
    outcome = Outcome()
    sandbox = lab.clone(lab.installed(), f"kill-{operation.name}")
    project = sandbox / "project"
    operation.prepare(project)
    before = world.user_data(project)
    env = lab.env(sandbox)
    by_failpoint = index % 2 == 1
    if by_failpoint:
        point = lab.rng.randint(1, ref.renames)
        env["METAPKG_FAILPOINT"] = f"commit-kill:{point}"
        how = f"failpoint commit-kill:{point}"
        killed = outcome.saw(lab.run(sandbox, *operation.args, env=env), how)
    else:
        delay = lab.rng.uniform(0.02, ref.seconds)
        how = f"SIGKILL after {delay:.3f}s"
        killed = outcome.saw(lab.run(sandbox, *operation.args, kill_after=delay), how)
    outcome.killed = killed.killed
    if by_failpoint and not killed.killed:
        # The point is within the commit's steps (Reference.renames), so it always fires:
        # when it does not, the commit no longer passes it and the trial tests nothing.
        outcome.fail(f"{operation.name} ({how}) was not killed: the failpoint never fired")
    elif not killed.killed and killed.code != 0:
        outcome.fail(f"{operation.name} ({how}) was not killed but failed\n{killed.show()}")
    _check_after_kill(project, ref, before, how, outcome)
    for command in ("install", "verify"):
        result = outcome.saw(lab.run(sandbox, command), f"{command} after {how}")
        if result.code != 0:
            outcome.fail(f"`{command}` after {how} failed\n{result.show()}")
            return outcome
    _check_final(project, operation, ref, before, how, outcome)
    return outcome


def _check_after_kill(
    project: Path, ref: Reference, before: dict[str, object], how: str, outcome: Outcome
) -> None:
    if world.user_data(project) != before:
        outcome.lost = True
        outcome.fail(f"{how}: the user's files changed right after the kill")
    if _lock(project) not in ref.locks.values():
        outcome.fail(f"{how}: the lock is neither the old nor the new one after the kill")
    if (project / "metapkg.yaml").read_bytes() not in ref.manifests:
        outcome.fail(f"{how}: metapkg.yaml is neither the old nor the new one after the kill")


def _check_final(
    project: Path,
    operation: Operation,
    ref: Reference,
    before: dict[str, object],
    how: str,
    outcome: Outcome,
) -> None:
    if world.user_data(project) != before:
        outcome.lost = True
        outcome.fail(f"{how}: the user's files changed after install")
    now = state.snapshot(project)
    matched = [name for name in operation.finals if ref.states[name] == now]
    if not matched:
        closest = state.difference(now, ref.states[operation.finals[-1]])
        outcome.fail(f"{how}: after install the project is a mix ({closest})")
    elif _lock(project) != ref.locks[matched[0]]:
        outcome.fail(f"{how}: the lock is not the {matched[0]} state's lock")
    left = state.leftovers(project)
    if left:
        outcome.fail(f"{how}: transactions left behind: {', '.join(left)}")
