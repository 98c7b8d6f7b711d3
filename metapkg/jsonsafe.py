"""Strict JSON for files metapkg is handed: MCP configs, host config files, local state.

``json.loads`` alone lets hostile input escape as the wrong exceptions: nesting a
hundred thousand levels deep raises RecursionError, an integer of 5,000 digits raises a
bare ValueError, a duplicate key silently drops the first entry, and ``NaN`` is accepted
though it is not JSON. Here each is one ``JsonProblem`` with a line where there is one.
"""

from __future__ import annotations

import json
from typing import Any

from metapkg import limits

MAX_DEPTH = 64


class JsonProblem(ValueError):
    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


class _DuplicateKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _DuplicateKey(key)
        result[key] = value
    return result


def _not_json(name: str) -> Any:
    raise JsonProblem(f"invalid JSON: {name} is not a JSON value")


def loads(text: str) -> Any:
    """Parse JSON text; raise JsonProblem for anything that is not plain, bounded JSON."""
    try:
        value = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_not_json)
    except json.JSONDecodeError as exc:
        raise JsonProblem(f"invalid JSON: {exc.msg}", exc.lineno) from None
    except _DuplicateKey as exc:
        line = line_of(text, json.dumps(exc.key), occurrence=2)
        raise JsonProblem(f"invalid JSON: duplicate key {exc.key!r}; keep one", line) from None
    except RecursionError:
        raise JsonProblem(_too_deep()) from None
    except JsonProblem:
        raise
    except ValueError as exc:  # e.g. an integer over Python's 4,300-digit limit
        raise JsonProblem(
            f"invalid JSON: a value cannot be read ({limits.unreadable_value(exc)})"
        ) from None
    check_depth(value)
    return value


def compact(data: object) -> str:
    """``data`` as one line of JSON with sorted keys: files metapkg writes for itself
    (the download cache's records, refs and seals), the same bytes for the same data."""
    return json.dumps(data, sort_keys=True, separators=(",", ":")) + "\n"


def check_depth(value: Any) -> None:
    """Raise JsonProblem if ``value`` nests collections deeper than MAX_DEPTH (iteratively:
    the checker itself must not recurse)."""
    pending = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict | list):
            if depth >= MAX_DEPTH:
                raise JsonProblem(_too_deep())
            children = item.values() if isinstance(item, dict) else item
            pending.extend((child, depth + 1) for child in children)


def _too_deep() -> str:
    return f"invalid JSON: nested more than {MAX_DEPTH} levels deep; flatten it"


def line_of(text: str, needle: str, occurrence: int = 1) -> int | None:
    """The 1-based line of the ``occurrence``-th ``needle`` in ``text``."""
    index = -1
    for _ in range(occurrence):
        index = text.find(needle, index + 1)
        if index < 0:
            return None
    return text.count("\n", 0, index) + 1
