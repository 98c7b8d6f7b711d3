"""File-system faults in the project and the cache, one case per fault.

Every case starts from a copy of the installed template with state B's manifest (so
``install`` has to download, add, replace and remove paths and rewrite ``.mcp.json``),
breaks one thing (a read-only folder, a mode-000 file, a ``.mcp.json`` that is a link
or not JSON), runs ``install`` and checks the promise:

* ``fail`` cases must end in a clear error (exit 1, an ``error[...]`` line, no
  traceback) with the project exactly as it was;
* ``either`` cases may also succeed (metapkg did not need what was broken), and then
  must have left the user's things alone;

and always: nothing outside the project or the cache changed, the user's own files and
``.mcp.json`` entries are byte-identical, and once the fault is undone, ``install`` and
``verify`` succeed and reach state B.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from reliability.faults import checks, cli, kills, state, world
from reliability.faults.lab import Lab, Outcome

Undo = Callable[[], None]


Expect = Literal["fail", "either"]


@dataclass(frozen=True)
class Case:
    name: str
    group: str  # the row of the table
    apply: Callable[[Path], Undo]  # breaks the sandbox; returns how to mend it
    expect: Expect
    needs_permissions: bool = False  # meaningless where mode bits do not bind metapkg


# -- ways to break things ----------------------------------------------------------------


def _chmod(relative: str, mode: int) -> Callable[[Path], Undo]:
    def apply(sandbox: Path) -> Undo:
        path = sandbox / relative
        previous = os.lstat(path).st_mode & 0o7777
        os.chmod(path, mode)
        return lambda: os.chmod(path, previous)

    return apply


def _chmod_tree(relative: str, remove: int) -> Callable[[Path], Undo]:
    """Take the bits ``remove`` from every folder under ``relative`` (files keep theirs)."""

    def apply(sandbox: Path) -> Undo:
        root = sandbox / relative
        folders = [root] + [Path(f) / d for f, ds, _ in os.walk(root) for d in ds]
        previous = {folder: os.lstat(folder).st_mode & 0o7777 for folder in folders}
        for folder in reversed(folders):
            os.chmod(folder, previous[folder] & ~remove)

        def undo() -> None:
            for folder in folders:
                os.chmod(folder, previous[folder])

        return undo

    return apply


def _mcp_json(content: bytes | Callable[[bytes], bytes]) -> Callable[[Path], Undo]:
    """Replace the project's .mcp.json with ``content`` (or ``content(original)``); the
    undo puts the original back unless metapkg has since rewritten the file."""

    def apply(sandbox: Path) -> Undo:
        config = sandbox / "project" / ".mcp.json"
        original = config.read_bytes()
        broken = content(original) if callable(content) else content
        config.write_bytes(broken)

        def undo() -> None:
            if config.read_bytes() == broken:
                config.write_bytes(original)

        return undo

    return apply


def _mcp_bom(sandbox: Path) -> Undo:
    """A byte-order mark before the user's .mcp.json. metapkg keeps a user's BOM when it
    edits the file (a byte-for-byte promise of issue 28), so removing the fault removes
    the BOM from whatever the file now holds."""
    config = sandbox / "project" / ".mcp.json"
    config.write_bytes(b"\xef\xbb\xbf" + config.read_bytes())

    def undo() -> None:
        data = config.read_bytes()
        if data.startswith(b"\xef\xbb\xbf"):
            config.write_bytes(data[3:])

    return undo


def _mcp_link(link: str, dangling: bool = False) -> Callable[[Path], Undo]:
    """Make the project's .mcp.json a link to ``link`` (relative to the project), whose
    target holds what .mcp.json held (or nothing, when ``dangling``)."""

    def apply(sandbox: Path) -> Undo:
        config = sandbox / "project" / ".mcp.json"
        original = config.read_bytes()
        target = config.parent / link
        created = not target.parent.exists()
        if not dangling:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(original)
        config.unlink()
        os.symlink(link, config)

        def undo() -> None:
            config.unlink()
            config.write_bytes(original)
            if not dangling and target.parent != sandbox / "outside":
                target.unlink()
                if created:
                    target.parent.rmdir()

        return undo

    return apply


def _unreadable_cache_file(sandbox: Path) -> Undo:
    trees = sorted((sandbox / "cache" / "github").glob("*/*/*/skills/alpha/reference"))
    return _chmod(str(trees[0].relative_to(sandbox) / "part-00.md"), 0)(sandbox)


_DEEP = b'{"mcpServers": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
_GOOD = json.dumps(world.USER_MCP_JSON).encode()

READ_ONLY, DENIED = "read-only folders", "permission-denied files"
LINK, INVALID = ".mcp.json symlink", ".mcp.json invalid JSON"


def _denied(name: str, group: str, apply: Callable[[Path], Undo], expect: Expect) -> Case:
    return Case(name, group, apply, expect, needs_permissions=True)


def _invalid(name: str, content: bytes | Callable[[bytes], bytes], expect: Expect = "fail") -> Case:
    return Case(name, INVALID, _mcp_json(content), expect)


CASES = (
    _denied("read-only project folder", READ_ONLY, _chmod("project", 0o555), "fail"),
    _denied("read-only .claude/skills", READ_ONLY, _chmod("project/.claude/skills", 0o555), "fail"),
    _denied("read-only .agents/skills", READ_ONLY, _chmod("project/.agents/skills", 0o555), "fail"),
    _denied(
        "read-only provisioned skill",
        READ_ONLY,
        _chmod_tree("project/.claude/skills/beta", 0o222),
        "either",
    ),
    _denied("read-only .metapkg", READ_ONLY, _chmod("project/.metapkg", 0o555), "fail"),
    _denied("read-only cache", READ_ONLY, _chmod_tree("cache", 0o222), "fail"),
    _denied("unreadable metapkg.yaml", DENIED, _chmod("project/metapkg.yaml", 0), "fail"),
    _denied("unreadable metapkg.lock", DENIED, _chmod("project/metapkg.lock", 0), "fail"),
    _denied("unreadable .mcp.json", DENIED, _chmod("project/.mcp.json", 0), "fail"),
    _denied(
        "unreadable .metapkg/state.json", DENIED, _chmod("project/.metapkg/state.json", 0), "either"
    ),
    _denied(
        "unreadable user skill file",
        DENIED,
        _chmod("project/.claude/skills/mine/SKILL.md", 0),
        "either",
    ),
    _denied(
        "unreadable user skill folder", DENIED, _chmod("project/.claude/skills/mine", 0), "either"
    ),
    _denied("unreadable cache file", DENIED, _unreadable_cache_file, "either"),
    Case(".mcp.json links outside", LINK, _mcp_link("../outside/team-mcp.json"), "fail"),
    Case(".mcp.json links inside", LINK, _mcp_link("config/mcp.json"), "fail"),
    Case(
        ".mcp.json dangling link", LINK, _mcp_link("../outside/missing.json", dangling=True), "fail"
    ),
    _invalid("truncated", _GOOD[:-7]),
    _invalid("trailing comma", b'{"mcpServers": {},}'),
    _invalid("duplicate server", b'{"mcpServers": {"mine": {"command": "a"}, "mine": {}}}'),
    _invalid("top-level array", b"[]"),
    _invalid("mcpServers a list", b'{"mcpServers": []}'),
    _invalid("NaN", b'{"mcpServers": {}, "x": NaN}'),
    _invalid("empty file", b""),
    _invalid("not UTF-8", b'{"mcpServers": {"\xff": 1}}'),
    _invalid("nested 100k deep", _DEEP),
    _invalid("5000-digit number", b'{"mcpServers": {}, "n": ' + b"9" * 5000 + b"}"),
    Case("byte-order mark", INVALID, _mcp_bom, "either"),
)

GROUPS = tuple(dict.fromkeys(case.group for case in CASES))


def cases(group: str) -> list[Case]:
    return [case for case in CASES if case.group == group]


def named(name: str) -> Case:
    return next(case for case in CASES if case.name == name)


def unavailable(case: Case) -> str | None:
    if case.needs_permissions and not cli.permissions_apply():
        return "running as root without setpriv: mode bits do not bind metapkg"
    return None


def trial(lab: Lab, case: Case, recover: bool = True) -> Outcome:
    outcome = Outcome()
    new = kills.reference(lab, kills.OPERATIONS[0]).states["new"]
    sandbox = lab.clone(lab.installed(), "files")
    project = sandbox / "project"
    (sandbox / "outside").mkdir()
    (sandbox / "outside" / "keep.txt").write_text("outside the project\n")
    kills.OPERATIONS[0].prepare(project)  # state B's manifest
    undo = case.apply(sandbox)
    before, old = world.user_data(project), state.snapshot(project)
    outside = state.snapshot(sandbox / "outside")
    result = lab.run(sandbox, "install")
    try:
        if result.code == 0 and case.expect == "either":
            outcome.saw(result, case.name)
            if world.user_data(project) != before:
                outcome.lost = True
                outcome.fail(f"{case.name}: install succeeded but changed the user's things")
        else:
            checks.clear_failure(result, case.name, outcome)
            checks.unchanged(project, old, before, case.name, outcome)
        if state.snapshot(sandbox / "outside") != outside:
            outcome.lost = True
            outcome.fail(f"{case.name}: files outside the project changed")
    finally:
        undo()
    if recover:
        checks.recovers(lab, sandbox, new, case.name, outcome)
    return outcome
