"""Server entries in a JSON or JSONC config file, edited in place.

``container`` is the path of the object holding the servers (``("mcpServers",)``,
``("servers",)``, ``("mcp", "servers")``). Everything outside the entries metapkg adds,
replaces or removes stays byte for byte: other servers, other settings, comments,
indentation. An unchanged file comes back as the same string (even one that holds nothing);
a file metapkg created that an edit leaves with nothing but an empty container (and no
comments) is no file at all; one that was there before (``keep``) stays.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from metapkg.diagnostics import ProvisionError
from metapkg.hosts.config import jsonedit
from metapkg.hosts.config.baseline import without_empty
from metapkg.hosts.config.jsonc import JSON, Document, JsoncError, Syntax, parse
from metapkg.hosts.config.ownership import decide

JSONC = Syntax(comments=True, trailing_commas=True)
# Comments allowed, trailing commas not (Gemini CLI strips comments, then JSON.parse).
JSON_COMMENTS = Syntax(comments=True, trailing_commas=False)


@dataclass(frozen=True)
class JsonServers:
    path: str  # as shown in messages: ".vscode/mcp.json", "~/.claude.json"
    container: tuple[str, ...]
    syntax: Syntax = JSON

    @property
    def format(self) -> str:
        return "json" if self.syntax == JSON else "jsonc"

    @property
    def label(self) -> str:
        return ".".join(self.container)

    def read(self, text: str) -> tuple[Document, dict[str, Any]]:
        try:
            doc = parse(text, self.syntax)
        except JsoncError as exc:
            raise ProvisionError.single(
                "mcp-json",
                self.path,
                f"{self.path}: {exc.message}; fix it or move it away, then install again "
                f"(metapkg changed nothing)",
                exc.line,
            ) from None
        value: Any = doc.value
        for step in self.container:
            value = value.get(step, {}) if isinstance(value, dict) else None
        if isinstance(value, dict):
            return doc, dict(value)
        raise ProvisionError.single(
            "mcp-json",
            self.path,
            f'{self.path} must be a JSON object whose "{self.label}" is an object; fix it or '
            f"move it away, then install again (metapkg changed nothing)",
        )

    def entries(self, text: str) -> dict[str, Any]:
        return self.read(text)[1]

    def settings(self, text: str) -> Any:
        """What the file says, its servers' container left out when empty."""
        return without_empty(self.read(text)[0].value, self.container)

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
        shell = True  # no file, or one with nothing in it: written afresh
        if existing is not None:
            doc, current = self.read(existing)
            shell = not current and self.is_shell(doc)
        final, now = decide(current, owned, wanted, repair, self.path, self.label)
        if existing is not None and final == current:
            return existing, now  # nothing of ours changes: the user's file stays, even empty
        if shell or existing is None:
            return (self.fresh(final) if final else None), now
        text = existing
        for name in current:
            if name not in final:
                text = jsonedit.remove_path(text, self.syntax, self.container, name)
        for name, entry in final.items():
            if current.get(name) != entry:
                text = jsonedit.set_path(text, self.syntax, self.container, name, entry)
        if not final and not keep and self.is_shell(parse(text, self.syntax)):
            return None, now
        return text, now

    def fresh(self, entries: dict[str, Any]) -> str:
        document: Any = entries
        for step in reversed(self.container):
            document = {step: document}
        return json.dumps(document, indent=2, ensure_ascii=False) + "\n"

    def is_shell(self, doc: Document) -> bool:
        """Nothing but empty containers and no comments: nothing worth a file."""
        if doc.has_comments:
            return False
        value: Any = doc.value
        for step in self.container:
            if not isinstance(value, dict) or set(value) - {step}:
                return False
            value = value.get(step, {})
        return isinstance(value, dict) and not value
