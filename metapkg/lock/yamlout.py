"""A small deterministic YAML emitter for the lockfile.

The lock must be byte-stable and easy to read in a diff, so it is written by hand rather
than by a general dumper: block style, two-space indent, keys in the order given, and a
scalar is written plain only when YAML would read it back as the same string; otherwise it
is double-quoted with JSON escapes (which YAML's double-quoted style accepts).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

_PLAIN = re.compile(r"^(?:[A-Za-z0-9_./+]|-(?=[A-Za-z0-9_./+-]))[A-Za-z0-9_./+@=:~-]*$")
# Plain scalars YAML 1.1 or 1.2 would read as something other than a string.
_NOT_A_STRING = re.compile(
    r"^(?:[-+]?(?:\d[\d_]*)?\.?\d[\d_]*(?:[eE][-+]?\d+)?|0x[0-9a-fA-F_]+|0o[0-7_]+|0b[01_]+"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)|~|null|Null|NULL|true|True|TRUE|false|False"
    r"|FALSE|yes|Yes|YES|no|No|NO|on|On|ON|off|Off|OFF|y|Y|n|N|\d+:\d+(?::\d+)*"
    r"|\d{4}-\d{1,2}-\d{1,2}.*)$"
)


def scalar(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return json.dumps(value)
    text = str(value)
    if _PLAIN.match(text) and not _NOT_A_STRING.match(text) and not text.endswith(":"):
        return text
    return json.dumps(text, ensure_ascii=False)


def emit(value: Mapping[str, Any], indent: int = 0) -> list[str]:
    """Lines for a mapping (the lock's top level or any nested mapping)."""
    lines: list[str] = []
    pad = " " * indent
    for key, item in value.items():
        lines.extend(_entry(f"{pad}{scalar(key)}:", item, indent))
    return lines


def _entry(head: str, item: Any, indent: int) -> list[str]:
    if isinstance(item, Mapping):
        if not item:
            return [f"{head} {{}}"]
        return [head, *emit(item, indent + 2)]
    if _is_list(item):
        if not item:
            return [f"{head} []"]
        return [head, *_sequence(item, indent + 2)]
    return [f"{head} {scalar(item)}"]


def _sequence(items: Sequence[Any], indent: int) -> list[str]:
    lines: list[str] = []
    pad = " " * indent
    for item in items:
        nested: list[str] = []
        if isinstance(item, Mapping) and item:
            nested = emit(item, indent + 2)
        elif _is_list(item) and item:
            nested = _sequence(item, indent + 2)
        if nested:
            lines.append(f"{pad}- {nested[0].lstrip()}")
            lines.extend(nested[1:])
        elif isinstance(item, Mapping):
            lines.append(f"{pad}- {{}}")
        elif _is_list(item):
            lines.append(f"{pad}- []")
        else:
            lines.append(f"{pad}- {scalar(item)}")
    return lines


def _is_list(item: Any) -> bool:
    return isinstance(item, Sequence) and not isinstance(item, str)
