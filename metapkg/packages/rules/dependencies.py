"""The ``dependencies`` block: arrays of origins under ``skills`` and ``mcps``.

The same parser reads the project manifest, where ``agents`` is also allowed, relative
``file:`` origins are resolved against the manifest's folder, and the object form
``{origin, version}`` is the normal way to write a version constraint.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from metapkg.diagnostics import Diagnostic, error, warning
from metapkg.origins import OriginSyntaxError, parse_origin, split_range
from metapkg.packages.models import SINGULAR, Dependency
from metapkg.packages.semver import Range, RangeError

LineOf = Callable[..., int | None]


@dataclass(frozen=True)
class DependencyContext:
    path: str  # file named in diagnostics
    allowed: tuple[str, ...] = ("skills", "mcps")
    base_dir: Path | None = None  # manifest only: where relative file: origins start
    in_package: bool = True  # packages warn on file: origins and on the object form


def parse_dependencies(
    value: object, line_of: LineOf, ctx: DependencyContext, key: tuple[str, ...] = ("dependencies",)
) -> tuple[tuple[Dependency, ...], list[Diagnostic]]:
    """Parse a dependencies mapping; ``line_of(*key)`` gives the line of a value."""
    deps: list[Dependency] = []
    diags: list[Diagnostic] = []
    if value is None:
        return (), diags
    names = [f"'{a}'" for a in ctx.allowed]
    allowed = ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else names[0]
    if not isinstance(value, dict):
        diags.append(
            error(
                "dependencies",
                ctx.path,
                f"'{key[-1]}' must be a mapping with {allowed} arrays",
                line_of(*key),
            )
        )
        return (), diags
    for group, items in value.items():
        where = (*key, group)
        if group not in ctx.allowed:
            hint = "agents cannot be dependencies" if group == "agents" else f"use {allowed} only"
            diags.append(
                error(
                    "dependencies",
                    ctx.path,
                    f"unknown dependency group {group!r}: {hint}",
                    line_of(*where),
                )
            )
            continue
        if items is None:
            continue
        if not isinstance(items, list):
            diags.append(
                error(
                    "dependencies",
                    ctx.path,
                    f"'{group}' must be an array of origin strings (- https://github.com/...)",
                    line_of(*where),
                )
            )
            continue
        for index, item in enumerate(items):
            dep = _parse_item(item, SINGULAR[group], line_of(*where, index), ctx, diags)
            if dep is not None:
                deps.append(dep)
    return tuple(deps), diags


def _parse_item(
    item: object, kind: str, line: int | None, ctx: DependencyContext, diags: list[Diagnostic]
) -> Dependency | None:
    version: Range | None = None
    text = item
    if isinstance(item, str):
        text, fragment = split_range(item)
        if fragment is not None:
            version = _check_range(fragment, line, ctx, diags)
            if version is None:
                return None
    if isinstance(item, dict):
        unknown = sorted(set(item) - {"origin", "version"})
        if unknown or "origin" not in item:
            diags.append(
                error(
                    "dependencies",
                    ctx.path,
                    "an object dependency needs 'origin' and may have 'version'; "
                    f"unexpected {', '.join(map(repr, unknown)) or 'missing origin'}",
                    line,
                )
            )
            return None
        if ctx.in_package:
            diags.append(
                warning(
                    "origin-object",
                    ctx.path,
                    "the object form {origin: ...} is discouraged in a published package; "
                    "write the origin as a string, with a version range as its fragment "
                    "(https://github.com/<owner>/<repo>/tree/<ref>/<path>#^1.2)",
                    line,
                )
            )
        text = item["origin"]
        raw_range = item.get("version")
        if raw_range is not None:
            version = _check_range(raw_range, line, ctx, diags)
            if version is None:
                return None
    try:
        origin = parse_origin(text, ctx.base_dir)
    except OriginSyntaxError as exc:
        diags.append(error("origin", ctx.path, str(exc), line))
        return None
    if ctx.in_package and origin.is_local:
        diags.append(
            warning(
                "file-origin",
                ctx.path,
                f"{origin} is a local file: origin; it only works on this machine, so publish "
                f"with a https://github.com/... origin instead",
                line,
            )
        )
    return Dependency(kind, origin, version)  # type: ignore[arg-type]


def _check_range(
    raw: object, line: int | None, ctx: DependencyContext, diags: list[Diagnostic]
) -> Range | None:
    try:
        if not isinstance(raw, str):
            raise RangeError(f"{raw!r} is not a string; quote it")
        return Range.parse(raw)
    except RangeError as exc:
        diags.append(
            error(
                "dependencies",
                ctx.path,
                f"version range {raw!r} is not valid ({exc}); write it like ^1.2, ~1.4 or >=1.2,<2",
                line,
            )
        )
        return None
