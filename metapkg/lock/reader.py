"""The strict reader of metapkg.lock: every field checked against lockfile-spec.md.

It refuses anything it does not understand rather than guessing, and names the line; a
lock that fails here is damaged (:class:`~metapkg.lock.format.UnreadableLock`), which
install and lock replace and ``--frozen`` refuses.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from metapkg import yamlsafe
from metapkg.diagnostics import LockError, error
from metapkg.fetch.source import Renamed
from metapkg.lock.format import (
    FILENAME,
    LOCK_VERSION,
    READABLE_VERSIONS,
    LockedPackage,
    Lockfile,
    Override,
    Pin,
    Requirement,
    UnreadableLock,
)
from metapkg.packages.models import KINDS, SINGULAR, Kind

_HOST = re.compile(
    r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?((\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+(:[0-9]{1,5})?|:[0-9]{1,5})$"
)
# a git commit, or an OCI origin's manifest digest (lockfile-spec.md)
_COMMIT = re.compile(r"^(?:[0-9a-f]{40}|sha256:[0-9a-f]{64})$")
_REPO = re.compile(r"^[a-z0-9][a-z0-9-]*/[a-z0-9._-]+$")
# another forge's repository path: any depth (GitLab subgroups), its case kept
_FORGE_REPO = re.compile(r"^(?!.*(?:^|/)\.\.?(?:/|$))[A-Za-z0-9._~+-]+(/[A-Za-z0-9._~+-]+)+$")
_INTEGRITY = re.compile(r"^sha256:[0-9a-f]{64}$")
_VERSION = re.compile(r"^[0-9A-Za-z][0-9A-Za-z.+-]{0,99}$")
_RELATIVE = re.compile(r"^(?!/)(?!.*(?:^|/)\.\.(?:/|$))[A-Za-z0-9._/-]{1,200}$")
_PART = re.compile(r"^(?:(?:skill|agent|command|mcp) [A-Za-z0-9._-]{1,64}|hooks|bin)$")
_SHAPES = {
    _COMMIT: "a commit SHA (40 lowercase hex digits) or a manifest digest (sha256:<64 hex>)",
    _REPO: "an owner/repo name",
    _FORGE_REPO: "a repository path (group/repo)",
    _INTEGRITY: "an integrity hash (sha256:<64 hex digits>)",
    _VERSION: "a version (letters, digits, '.', '+' and '-')",
    _HOST: "a host name such as github.com",
}


class Reader:
    """A parsed lock document checked field by field into a :class:`Lockfile`; the first
    thing it does not understand is an :class:`UnreadableLock` naming its line."""

    def __init__(self, data: yamlsafe.Located, display: str) -> None:
        self.data = data
        self.display = display

    def fail(self, message: str, *key: str | int) -> LockError:
        return UnreadableLock(
            [
                error(
                    "lock",
                    self.display,
                    f"{message}; run `metapkg lock` to rewrite it",
                    self.data.line(*key),
                )
            ]
        )

    def get(
        self,
        mapping: Any,
        name: str,
        kind: type | tuple[type, ...],
        *key: str | int,
        optional: bool = False,
    ) -> Any:
        if not isinstance(mapping, dict):
            raise self.fail("expected a mapping", *key)
        if name not in mapping:
            if optional:
                return None
            raise self.fail(f"missing field {name!r}", *key)
        value = mapping[name]
        if not isinstance(value, kind):
            raise self.fail(f"field {name!r} has the wrong type", *key, name)
        return value

    def lockfile(self) -> Lockfile:
        top = self.data.value
        version = self.get(top, "lock-version", int)
        if isinstance(version, bool):
            raise self.fail("lock-version must be a number", "lock-version")
        if version > LOCK_VERSION:
            raise LockError.single(
                "lock",
                self.display,
                f"lock-version {version} was written by a newer metapkg (this one reads "
                f"{LOCK_VERSION}); upgrade metapkg to use this lock",
                self.data.line("lock-version"),
            )
        if version not in READABLE_VERSIONS:
            raise self.fail(f"lock-version {version} is not supported", "lock-version")
        provisioned = self.get(top, "provisioned", dict)
        return Lockfile(
            targets=tuple(self._targets(self.get(top, "targets", list))),
            requires=tuple(
                self._requirement(item, i) for i, item in enumerate(self.get(top, "requires", list))
            ),
            overrides=tuple(
                Override(
                    self.get(o, "fqn", str, "overrides", i),
                    self._origin(self.get(o, "origin", str, "overrides", i), "overrides", i),
                )
                for i, o in enumerate(self.get(top, "overrides", list))
            ),
            pins=tuple(self._pin(p, i) for i, p in enumerate(self.get(top, "pins", list))),
            packages=tuple(
                self._package(item, i) for i, item in enumerate(self.get(top, "packages", list))
            ),
            provisioned=tuple(self._paths(self.get(provisioned, "paths", list, "provisioned"))),
            mcp_servers=self._servers(
                self.get(provisioned, "mcp-servers", (list, dict), "provisioned")
            ),
            renamed=tuple(
                self._renamed(item, i)
                for i, item in enumerate(self.get(top, "renamed", list, optional=True) or [])
            ),
        )

    # Values that become cache paths and URLs (commits, repos) or are trusted as hashes
    # must have exactly their documented shape: the lock arrives in pull requests.

    def _matching(self, value: Any, pattern: re.Pattern[str], *key: str | int) -> Any:
        if value is not None and not pattern.match(value):
            raise self.fail(f"{value!r} is not {_SHAPES[pattern]}", *key)
        return value

    def _origin(self, text: str, *key: str | int) -> str:
        from metapkg.origins import OriginSyntaxError, parse_origin

        try:
            parse_origin(text, Path("."))
        except OriginSyntaxError as exc:
            raise self.fail(str(exc), *key) from None
        return text

    def _targets(self, items: list[Any]) -> list[str]:
        from metapkg.hosts.registry import names

        for index, item in enumerate(self._strings(items, "targets")):
            if item not in names():
                raise self.fail(f"unknown target {item!r}", "targets", index)
        return items

    def _servers(self, value: list[Any] | dict[str, Any]) -> dict[str, tuple[str, ...]]:
        """Lock-version 1 listed .mcp.json keys; 2 maps each host's config file to keys."""
        from metapkg.hosts.paths import is_config_file

        where = ("provisioned", "mcp-servers")
        if isinstance(value, list):
            return {".mcp.json": tuple(self._strings(value, *where))} if value else {}
        found: dict[str, tuple[str, ...]] = {}
        for path, keys in value.items():
            if not is_config_file(path) or path == FILENAME:
                raise self.fail(f"{path!r} is not an MCP config file metapkg writes", *where)
            if not isinstance(keys, list):
                raise self.fail("expected a list of server names", *where, path)
            found[path] = tuple(self._strings(keys, *where, path))
        return found

    def _paths(self, items: list[Any]) -> list[str]:
        # The lock is a trust boundary (it arrives in pull requests): only the path shapes
        # metapkg writes are accepted, never "../x" or "src".
        from metapkg.hosts.paths import is_recorded

        for index, item in enumerate(self._strings(items, "provisioned", "paths")):
            if not is_recorded(item):  # a project's paths, or --global's user-level ones
                raise self.fail(
                    f"provisioned path {item!r} is not one metapkg writes",
                    "provisioned",
                    "paths",
                    index,
                )
        return items

    def _pin(self, item: Any, index: int) -> Pin:
        host = self.get(item, "host", str, "pins", index, optional=True) or "github.com"
        shape = _REPO if host == "github.com" else _FORGE_REPO
        return Pin(
            self._matching(self.get(item, "repo", str, "pins", index), shape, "pins", index),
            self.get(item, "ref", str, "pins", index),
            self._matching(self.get(item, "commit", str, "pins", index), _COMMIT, "pins", index),
            self._matching(host, _HOST, "pins", index),
        )

    def _renamed(self, item: Any, index: int) -> Renamed:
        host = self.get(item, "host", str, "renamed", index, optional=True) or "github.com"
        old, new = (
            self._matching(self.get(item, name, str, "renamed", index), _REPO, "renamed", index)
            for name in ("old", "new")
        )
        if old == new:
            raise self.fail(f"{old!r} renamed to itself", "renamed", index)
        return Renamed(old, new, self._matching(host, _HOST, "renamed", index))

    def _metaskill(self, item: Any, where: tuple[str, int]) -> str | None:
        path: str | None = self.get(item, "metaskill", str, *where, optional=True)
        if path is not None and not _RELATIVE.match(path):
            raise self.fail(f"metaskill {path!r} is not a relative path in the package", *where)
        return path

    def _strings(self, items: list[Any], *key: str | int) -> list[str]:
        if not all(isinstance(item, str) for item in items):
            raise self.fail("expected a list of strings", *key)
        return items

    def _kind(self, value: Any, *key: str | int) -> Kind:
        if value not in KINDS:
            raise self.fail(f"unknown kind {value!r}", *key)
        kind: Kind = value
        return kind

    def _fqn(self, kind: Kind, item: Any, *key: str | int) -> str:
        """Names reach terminals and review comments: only the shapes packages can have."""
        from metapkg.packages.names import is_valid_fqn

        fqn: str = self.get(item, "fqn", str, *key)
        if not is_valid_fqn(kind, fqn):
            raise self.fail(f"{fqn!r} is not a valid {kind} name", *key, "fqn")
        return fqn

    def _requirement(self, item: Any, index: int) -> Requirement:
        where = ("requires", index)
        kind = self._kind(self.get(item, "kind", str, *where), *where)
        return Requirement(
            kind=kind,
            fqn=self._fqn(kind, item, *where),
            origin=self._origin(self.get(item, "origin", str, *where), *where),
            version=self._range(self.get(item, "version", str, *where, optional=True), where),
        )

    def _range(self, text: str | None, where: tuple[str, int]) -> str | None:
        from metapkg.packages.semver import Range, RangeError

        if text is None:
            return None
        try:
            return Range.parse(text).text
        except RangeError as exc:
            raise self.fail(str(exc), *where, "version") from None

    def _package(self, item: Any, index: int) -> LockedPackage:
        from metapkg.packages.names import is_valid_fqn

        where = ("packages", index)
        groups = self.get(item, "dependencies", dict, *where, optional=True) or {}
        dependencies: list[tuple[Kind, str]] = []
        for group, names in groups.items():
            if group not in SINGULAR or not isinstance(names, list):
                raise self.fail(f"unknown dependency group {group!r}", *where, "dependencies")
            for name in self._strings(names, *where, "dependencies", group):
                if not is_valid_fqn(SINGULAR[group], name):
                    raise self.fail(f"{name!r} is not a valid name", *where, "dependencies")
                dependencies.append((SINGULAR[group], name))
        kind = self._kind(self.get(item, "kind", str, *where), *where)
        return LockedPackage(
            kind=kind,
            fqn=self._fqn(kind, item, *where),
            version=self._matching(
                self.get(item, "version", str, *where, optional=True), _VERSION, *where
            ),
            origin=self._origin(self.get(item, "origin", str, *where), *where),
            commit=self._matching(
                self.get(item, "commit", str, *where, optional=True), _COMMIT, *where
            ),
            integrity=self._matching(self.get(item, "integrity", str, *where), _INTEGRITY, *where),
            dependencies=tuple(dependencies),
            metaskill=self._metaskill(item, where),
            server=self.get(item, "server", dict, *where, optional=True),
            parts=self._parts(item, where),
        )

    def _parts(self, item: Any, where: tuple[str, int]) -> tuple[str, ...]:
        """A plugin's parts: ``<kind> <name>``, names as package files may have them."""
        parts = self.get(item, "parts", list, *where, optional=True) or []
        for part in self._strings(parts, *where, "parts"):
            if not _PART.match(part):
                raise self.fail(f"{part!r} is not a plugin part", *where, "parts")
        return tuple(parts)
