"""Plugin marketplaces as catalogs: ``.claude-plugin/marketplace.json`` (Claude Code) and
``.agents/plugins/marketplace.json`` (Codex), read into entries whose sources are
origins ``metapkg add`` already understands.

An entry's ``source`` becomes:

* ``"./path"`` (or Codex's ``{"source": "local", "path": "./path"}``): that folder of the
  marketplace itself (``relative`` here; edit.py makes it an origin beside the
  marketplace's own);
* ``{"source": "github", "repo": "o/r"}`` and ``git-subdir``/``url`` on github.com: a
  GitHub tree URL (``https://github.com/o/r/tree/REF[/path]``), or ``o/r[/path]`` when no
  ref is given (the repository's default branch is asked, as for any shorthand);
* ``url``/``git-subdir`` elsewhere: ``git+URL[@REF][#subdirectory=path]``.

A ``sha`` wins over a ``ref``: the entry is locked at exactly that commit. Anything else
(``npm`` sources, unknown keys) is an entry with a ``skipped`` reason, never an error for
the whole marketplace. Parsing is pure: no filesystem or network access but the file read.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from metapkg.diagnostics import MetapkgError

FILES = (".claude-plugin/marketplace.json", ".agents/plugins/marketplace.json")
_GITHUB_URL = re.compile(
    r"^https?://(?:www\.)?github\.com/(?P<repo>[^/]+/[^/#?]+?)(?:\.git)?/?$", re.IGNORECASE
)
_REPO = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]{0,38}/[A-Za-z0-9._-]{1,100}$")
_REQUEST = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)@(?P<where>.+)$")


@dataclass(frozen=True)
class Entry:
    name: str
    description: str
    version: str | None
    source: str | None = None  # an origin text for another repository
    relative: str | None = None  # a folder of the marketplace itself
    skipped: str | None = None  # why it cannot be added


@dataclass(frozen=True)
class Marketplace:
    name: str
    file: str  # which of FILES it was read from
    entries: tuple[Entry, ...]

    def names(self) -> list[str]:
        return [e.name for e in self.entries]


def request(text: str) -> tuple[str, str] | None:
    """``NAME@MARKETPLACE`` split, or None for any other source (``owner/repo@ref`` has
    a ``/`` before its ``@``; ``git@host:...`` is ssh)."""
    match = _REQUEST.match(text.strip())
    if match is None or match.group("name") == "git":
        return None
    where = match.group("where")
    if "/" not in where and not where.startswith("file:"):
        return None  # name@ref of nothing: not a marketplace
    return match.group("name"), where


def read(folder: Path, where: str = "") -> Marketplace | None:
    """The marketplace file in ``folder`` (which messages call ``where``), if there is
    one. A file that is not a marketplace is an error naming the file and the field."""
    for file in FILES:
        path = folder / file
        if path.is_file():
            return parse(path.read_bytes(), f"{where}/{file}" if where else file)
    return None


def parse(data: bytes, file: str) -> Marketplace:
    try:
        document = json.loads(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise MetapkgError.single("marketplace", file, f"is not valid JSON: {exc}") from None
    if not isinstance(document, dict):
        raise MetapkgError.single("marketplace", file, "must be a JSON object with 'plugins'")
    plugins = document.get("plugins")
    if not isinstance(plugins, list):
        raise MetapkgError.single(
            "marketplace", file, "'plugins' must be a list of {name, source} entries"
        )
    root = ""
    metadata = document.get("metadata")
    if isinstance(metadata, dict) and isinstance(metadata.get("pluginRoot"), str):
        root = metadata["pluginRoot"]
    entries = []
    for index, item in enumerate(plugins):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise MetapkgError.single(
                "marketplace", file, f"plugins[{index}] must be an object with a 'name' string"
            )
        entries.append(_entry(item, root))
    name = document.get("name")
    return Marketplace(name if isinstance(name, str) else "", file, tuple(entries))


def _entry(item: dict[str, Any], root: str) -> Entry:
    description = item.get("description")
    version = item.get("version")
    base = Entry(
        item["name"],
        description if isinstance(description, str) else "",
        version if isinstance(version, str) else None,
    )
    try:
        where = _source(item.get("source"), root)
    except ValueError as exc:
        return Entry(base.name, base.description, base.version, skipped=str(exc))
    if where.startswith("./"):
        return Entry(base.name, base.description, base.version, relative=where[2:] or ".")
    return Entry(base.name, base.description, base.version, source=where)


def _source(source: object, root: str) -> str:
    """The origin text (or ``./relative``) an entry's ``source`` names."""
    if isinstance(source, str):
        return _relative(source, root)
    if not isinstance(source, dict):
        raise ValueError("its 'source' is neither a path nor an object")
    kind = source.get("source")
    ref = _text(source, "sha") or _text(source, "ref")
    path = (_text(source, "path") or "").strip("/")
    if kind == "local" and _text(source, "path"):
        return _relative(source["path"], "")
    if kind == "github" or (kind == "git-subdir" and _text(source, "repo")):
        repo = _text(source, "repo") or ""
        if not _REPO.match(repo):
            raise ValueError(f"its github source names no owner/repo ({repo!r})")
        return _github(repo, ref, path if kind == "git-subdir" else "")
    if kind in ("url", "git-subdir"):
        url = _text(source, "url")
        if not url or not url.startswith("https://"):
            raise ValueError(f"its {kind} source has no https:// url")
        folder = path if kind == "git-subdir" else ""
        github = _GITHUB_URL.match(url)
        if github:
            return _github(github.group("repo"), ref, folder)
        text = f"git+{url}" + (f"@{ref}" if ref else "")
        return text + (f"#subdirectory={folder}" if folder else "")
    raise ValueError(f"its source kind {kind!r} is not supported (github, url, git-subdir, ./path)")


def _relative(path: str, root: str) -> str:
    joined = PurePosixPath(root.strip("/") or ".", path)
    if joined.is_absolute() or ".." in joined.parts:
        raise ValueError(f"its path {path!r} leaves the marketplace")
    text = joined.as_posix()
    return "./" if text == "." else f"./{text}"


def _github(repo: str, ref: str | None, path: str) -> str:
    if ref is None:
        return repo + (f"/{path}" if path else "")
    return f"https://github.com/{repo}/tree/{ref}" + (f"/{path}" if path else "")


def _text(source: dict[str, Any], key: str) -> str | None:
    value = source.get(key)
    return value if isinstance(value, str) and value else None
