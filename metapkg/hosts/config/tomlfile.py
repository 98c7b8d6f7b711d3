"""Server entries in a TOML config (Codex's ``[mcp_servers.<name>]``), edited with tomlkit.

tomlkit keeps comments, key order and formatting of everything it is not asked to change,
so the user's model, sandbox and profile settings and their own servers stay as they
were. Each entry metapkg writes is one ``[mcp_servers.<key>]`` table followed by a blank
line, with ``env`` and other nested maps as inline tables. An unchanged file comes back as
the same string; a file left with no settings, no servers and no comments is no file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from metapkg.diagnostics import ProvisionError
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

    def _fail(self, message: str, line: int | None = None) -> ProvisionError:
        return ProvisionError(
            [
                _error(
                    self.path,
                    f"{self.path}: {message}; fix it or move it away, then install again "
                    f"(metapkg changed nothing)",
                    line,
                )
            ]
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

    def as_written(self, text: str | None, entry: Mapping[str, Any]) -> dict[str, Any]:
        return dict(entry)

    def merge(
        self,
        existing: str | None,
        owned: Mapping[str, str],
        wanted: Mapping[str, Mapping[str, Any]],
        repair: bool = False,
    ) -> tuple[str | None, dict[str, str]]:
        import tomlkit

        doc = tomlkit.document()
        current: dict[str, Any] = {}
        if existing is not None:
            doc, current = self.read(existing)
        final, now = decide(current, owned, wanted, repair, self.path, self.table)
        if existing is not None and final == current:
            return existing, now
        if self.table not in doc:
            doc[self.table] = tomlkit.table(is_super_table=True)
        servers: Any = doc[self.table]
        for name in current:
            if name not in final:
                del servers[name]
        for name, entry in final.items():
            if current.get(name) != entry:
                servers[name] = _table(entry)
        text = tomlkit.dumps(doc)
        if not final and _is_shell(text, self.table):
            return None, now
        return text, now


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


def _error(path: str, message: str, line: int | None) -> Any:
    from metapkg.diagnostics import error

    return error("mcp-toml", path, message, line)
