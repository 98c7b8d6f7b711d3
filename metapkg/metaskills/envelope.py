"""The result contract (specs/metaskills.txt section 9): normalise, wrap, fit the limit.

``run(input)`` may return None, a string or a dict; anything else is an ``error:``. The
success string is ``[Metaskill: NAME completed]`` then one compact JSON object. When that
string would exceed the limit, the trace goes first (newest entries dropped, a
``truncated`` entry says how many), then extra fields the program returned, and the
answer last (cut, with ``answer_truncated: true``). Status and answer are always there.
"""

from __future__ import annotations

import json
from typing import Any

RESERVED = ("status", "answer", "answer_truncated", "trace", "truncated_fields")


class InvalidReturn(ValueError):
    """run(input) returned something the contract does not allow."""


def normalise(value: Any) -> dict[str, Any]:
    if value is None:
        return {"status": "ok", "answer": ""}
    if isinstance(value, str):
        return {"status": "ok", "answer": value}
    if not isinstance(value, dict):
        raise InvalidReturn(
            f"run(input) returned {_type_name(value)}; return None, a string or a dict"
        )
    result = {"status": value.get("status", "ok"), "answer": value.get("answer", "")}
    for field in ("status", "answer"):
        if not isinstance(result[field], str):
            raise InvalidReturn(
                f"the returned dict's {field!r} is {_type_name(result[field])}; it must be a string"
            )
    result.update((k, v) for k, v in value.items() if k not in result)
    return result


def _type_name(value: Any) -> str:
    names = {list: "a list", bool: "a bool", int: "an int", float: "a float", str: "a string"}
    return names.get(type(value), f"a {type(value).__name__}")


def header(name: str) -> str:
    return f"[Metaskill: {name} completed]\n"


def success(name: str, result: dict[str, Any], trace: list[dict[str, Any]], limit: int) -> str:
    head = header(name)
    return head + fit(result, trace, max(limit - len(head), 0))


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def fit(result: dict[str, Any], trace: list[dict[str, Any]], limit: int) -> str:
    envelope = dict(result)
    envelope.pop("trace", None)
    if trace:
        envelope["trace"] = list(trace)
    text = dumps(envelope)
    if len(text) <= limit:
        return text
    if trace:
        envelope["trace"] = _shortest_trace(envelope, trace, limit)
        text = dumps(envelope)
    extras = [k for k in envelope if k not in RESERVED]
    for key in sorted(extras, key=lambda k: -len(dumps(envelope[k]))):
        if len(text) <= limit:
            return text
        del envelope[key]
        envelope.setdefault("truncated_fields", []).append(key)
        text = dumps(envelope)
    if len(text) <= limit:
        return text
    return dumps(_cut_answer(envelope, limit))


def _shortest_trace(
    envelope: dict[str, Any], trace: list[dict[str, Any]], limit: int
) -> list[dict[str, Any]]:
    """The longest prefix of the trace that fits, then an entry saying what was dropped."""
    kept = list(trace)
    while True:
        marker = {"kind": "truncated", "data": {"dropped_entries": len(trace) - len(kept)}}
        candidate = [*kept, marker]
        if not kept or len(dumps({**envelope, "trace": candidate})) <= limit:
            return candidate
        kept.pop()


def _cut_answer(envelope: dict[str, Any], limit: int) -> dict[str, Any]:
    """Cut the answer to the longest prefix that fits (JSON escaping makes it a search)."""
    answer: str = envelope["answer"]
    envelope["answer_truncated"] = True
    low, high = 0, len(answer)
    while low < high:
        middle = (low + high + 1) // 2
        if len(dumps({**envelope, "answer": answer[:middle]})) <= limit:
            low = middle
        else:
            high = middle - 1
    envelope["answer"] = answer[:low]
    return envelope


def cut(text: str, limit: int) -> tuple[str, bool]:
    """``text`` shortened to ``limit`` characters, and whether it was."""
    if len(text) <= limit:
        return text, False
    return text[:limit], True
