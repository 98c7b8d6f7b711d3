"""Server entries in a TOML config (Codex's ``[mcp_servers.<name>]``), edited as text.

The file also holds the user's model, sandbox and profile settings, their own servers and
their comments, so metapkg edits only its own blocks: each entry it writes is one
``[mcp_servers.<key>]`` block (a blank line, the header, one ``key = value`` line per
field, nested maps as inline tables) appended at the end of the file, and removing an
entry removes exactly that block. The result is parsed again (tomlkit) and must read as
the user's data plus metapkg's entries; a file whose servers are not such blocks (an
explicit ``[mcp_servers]`` table with inline tables, say) is edited through tomlkit's
document model instead, which also keeps comments. An unchanged file comes back as the
same string; a file left with no settings, no servers and no comments is no file.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from metapkg.diagnostics import MetapkgError, ProvisionError
from metapkg.hosts import render
from metapkg.hosts.config.baseline import without_empty
from metapkg.hosts.config.ownership import decide

if TYPE_CHECKING:
    from tomlkit.toml_document import TOMLDocument


@dataclass(frozen=True)
class TomlServers:
    path: str
    table: str = "mcp_servers"

    @property
    def format(self) -> str:
        return "toml"

    def _fail(self, message: str, line: int | None = None) -> MetapkgError:
        return ProvisionError.single(
            "mcp-toml",
            self.path,
            f"{self.path}: {message}; fix it or move it away, then install again "
            f"(metapkg changed nothing)",
            line,
        )

    def read(self, text: str) -> tuple[TOMLDocument, dict[str, Any]]:
        import tomlkit
        from tomlkit.exceptions import ParseError, TOMLKitError

        try:
            doc = tomlkit.parse(text)
        except ParseError as exc:
            raise self._fail(f"invalid TOML: {exc}", exc.line) from None
        except (TOMLKitError, ValueError, RecursionError) as exc:
            raise self._fail(f"invalid TOML: {exc}") from None
        servers = doc.get(self.table, {})
        if not isinstance(servers, dict):
            raise self._fail(f"[{self.table}] must be a table of tables")
        current = {}
        for name, entry in servers.items():
            value = entry.unwrap() if hasattr(entry, "unwrap") else entry
            current[str(name)] = value
        return doc, current

    def entries(self, text: str) -> dict[str, Any]:
        return self.read(text)[1]

    def settings(self, text: str) -> Any:
        """What the file says, an empty ``[mcp_servers]`` left out."""
        return without_empty(self.read(text)[0].unwrap(), (self.table,))

    def as_written(self, text: str | None, entry: Mapping[str, Any]) -> dict[str, Any]:
        return dict(entry)

    def merge(
        self,
        existing: str | None,
        owned: Mapping[str, str],
        wanted: Mapping[str, Mapping[str, Any]],
        repair: bool = False,
        keep: bool = False,
    ) -> tuple[str | None, dict[str, str]]:
        current: dict[str, Any] = {}
        data: dict[str, Any] = {}
        if existing is not None:
            doc, current = self.read(existing)
            data = doc.unwrap()
        final, now = decide(current, owned, wanted, repair, self.path, self.table)
        if existing is not None and final == current:
            return existing, now
        text = _splice(existing or "", self.table, current, final)
        expected = {**data, self.table: final}
        if text is None or not _reads_as(text, expected, self.table):
            text = _rebuild(existing or "", self.table, current, final)
        if not final and not keep and _is_shell(text, self.table):
            return None, now
        return text, now


def _splice(
    text: str, table: str, current: Mapping[str, Any], final: Mapping[str, Any]
) -> str | None:
    """Edit the text itself: drop the changed or unwanted ``[table.<key>]`` blocks metapkg
    wrote, append the new ones at the end. None when a block cannot be found as text."""
    for name in current:
        if name not in final or current[name] != final[name]:
            cut = _without_block(text, table, name)
            if cut is None:
                return None
            text = cut
    newline = "\r\n" if "\r\n" in text else "\n"
    for name, entry in final.items():
        if name not in current or current[name] != entry:
            if text and not text.endswith("\n"):
                text += newline
            block = ("\n" if text else "") + _block(table, name, entry)
            text += block.replace("\n", newline)
    return text


def _header(table: str, name: str) -> re.Pattern[str]:
    quoted = re.escape(_key(name))
    return re.compile(
        rf"^[ \t]*\[[ \t]*{re.escape(table)}[ \t]*\.[ \t]*{quoted}[ \t]*\][ \t]*(#.*)?$"
    )


def _without_block(text: str, table: str, name: str) -> str | None:
    """``text`` without the block ``[table.name]``: its header, its key lines and the blank
    line before it; comments and blank lines after its last key belong to what follows."""
    lines = text.splitlines(keepends=True)
    header = _header(table, name)
    start = next((i for i, line in enumerate(lines) if header.match(line.rstrip("\r\n"))), None)
    if start is None:
        return None
    end = start + 1
    last = end
    while end < len(lines) and not lines[end].lstrip(" \t").startswith("["):
        stripped = lines[end].strip()
        if stripped and not stripped.startswith("#"):
            last = end + 1
        end += 1
    if start > 0 and lines[start - 1].strip() == "":
        start -= 1
    return "".join(lines[:start] + lines[last:])


def _key(name: str) -> str:
    return name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else render.toml_string(name)


def _block(table: str, name: str, entry: Mapping[str, Any]) -> str:
    import tomlkit

    lines = [f"[{table}.{_key(name)}]"]
    for key, value in entry.items():
        item = _inline(value) if isinstance(value, dict) else tomlkit.item(value)
        lines.append(f"{_key(key)} = {item.as_string()}")
    return "\n".join(lines) + "\n"


def _reads_as(text: str, expected: Mapping[str, Any], table: str) -> bool:
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    try:
        data = tomlkit.parse(text).unwrap()
    except (TOMLKitError, ValueError):
        return False
    if not expected.get(table) and data.get(table) == {}:
        data.pop(table)
    wanted = {k: v for k, v in expected.items() if not (k == table and not v)}
    return data == wanted


def _rebuild(text: str, table: str, current: Mapping[str, Any], final: Mapping[str, Any]) -> str:
    """The fallback for files whose servers are not plain ``[table.<key>]`` blocks (an
    explicit ``[table]`` with inline tables, say): let tomlkit edit the document."""
    import tomlkit

    doc = tomlkit.parse(text)
    if table not in doc:
        doc[table] = tomlkit.table(is_super_table=True)
    servers: Any = doc[table]
    for name in current:
        if name not in final:
            del servers[name]
    for name, entry in final.items():
        if current.get(name) != entry:
            servers[name] = _table(entry)
    return tomlkit.dumps(doc)


def _table(entry: Mapping[str, Any]) -> Any:
    import tomlkit

    table = tomlkit.table()
    for key, value in entry.items():
        table[key] = _inline(value) if isinstance(value, dict) else value
    table.add(tomlkit.nl())
    return table


def _inline(value: Mapping[str, Any]) -> Any:
    import tomlkit

    inline = tomlkit.inline_table()
    for key, item in value.items():
        inline[key] = _inline(item) if isinstance(item, dict) else item
    return inline


def _is_shell(text: str, table: str) -> bool:
    import tomlkit

    if "#" in text:
        return False
    value = tomlkit.parse(text).unwrap()
    return not value or value == {table: {}}
