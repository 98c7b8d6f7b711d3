"""Every line a client sends `metapkg mcp` is checked here before the MCP SDK sees it.

The SDK drops a message it cannot read without a word, so a client that sent a request
with an id waited for ever. Here every invalid message gets a JSON-RPC error (with the
request's id when one can be found, else ``null``, as JSON-RPC 2.0 says):

====== ================ ==========================================================
code   name             when
====== ================ ==========================================================
-32700 parse error      not UTF-8, not JSON, ``NaN``/``Infinity``
-32600 invalid request  not an object, ``jsonrpc`` not "2.0", no or a non-string
                        ``method``, a bad ``id``, a batch (MCP has none), a message
                        over MAX_MESSAGE_BYTES
-32602 invalid params   ``params`` not an object; nested over MAX_DEPTH levels, an
                        integer over Python's 4,300 digits, a number out of range,
                        a lone surrogate
====== ================ ==========================================================

``-32601`` (method not found) and the parameters of known methods are the SDK's to answer.
Pure functions of one line: the transport (mcpwire.py) does the reading and writing.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from metapkg.jsonsafe import MAX_DEPTH, JsonProblem, check_depth

MAX_MESSAGE_BYTES = 4 * 1024 * 1024  # one message (one line); README "metapkg mcp"
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602

Id = str | int | None


@dataclass(frozen=True)
class Accepted:
    message: dict[str, Any]  # a request, a notification or a response: for the SDK


@dataclass(frozen=True)
class Rejected:
    reply: bytes | None  # the error line(s) to send back; None: nothing to answer


class _Limit(ValueError):
    """Valid JSON that metapkg will not take (too deep, too big a number)."""


def check(line: bytes) -> Accepted | Rejected:
    """What to do with one line from the client."""
    if not line.strip():
        return Rejected(None)  # a blank line between messages
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        return Rejected(error_line(None, PARSE_ERROR, "Parse error: the message is not UTF-8"))
    try:
        value = _loads(text)
    except json.JSONDecodeError as exc:
        return Rejected(error_line(None, PARSE_ERROR, f"Parse error: {exc.msg}"))
    except _Limit as exc:
        found, with_method = envelope(text)
        code = INVALID_PARAMS if with_method else INVALID_REQUEST
        return Rejected(error_line(found, code, f"Invalid params: {exc}"))
    if isinstance(value, list):
        return Rejected(_batch(value))
    return _one(value)


def _loads(text: str) -> Any:
    try:
        value = json.loads(text, parse_constant=_not_json, parse_float=_finite)
        check_depth(value)
    except RecursionError:
        raise _Limit(f"nested more than {MAX_DEPTH} levels deep") from None
    except JsonProblem:
        raise _Limit(f"nested more than {MAX_DEPTH} levels deep") from None
    except json.JSONDecodeError:
        raise
    except _Limit:
        raise
    except ValueError as exc:  # an integer over Python's 4,300-digit limit
        raise _Limit(f"a number cannot be read ({str(exc).split(';')[0]})") from None
    if "\\u" in text and not _encodable(value):
        raise _Limit("a string holds a lone surrogate (\\ud800-\\udfff), which is not text")
    return value


def _not_json(name: str) -> Any:
    raise json.JSONDecodeError(f"{name} is not a JSON value", name, 0)


def _finite(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise _Limit(f"the number {text[:20]}... is out of range")
    return number


def _encodable(value: Any) -> bool:
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _one(message: Any) -> Accepted | Rejected:
    if not isinstance(message, dict):
        return Rejected(error_line(None, INVALID_REQUEST, "Invalid Request: not an object"))
    has_id = "id" in message
    found = message.get("id")
    if has_id and (isinstance(found, bool) or not isinstance(found, str | int)):
        why = "Invalid Request: 'id' must be a string or an integer"
        return Rejected(error_line(None, INVALID_REQUEST, why))
    problem = _problem(message)
    if problem is None:
        return Accepted(message)
    code, why = problem
    return Rejected(error_line(found, code, why))


def _problem(message: dict[str, Any]) -> tuple[int, str] | None:
    if message.get("jsonrpc") != "2.0":
        return INVALID_REQUEST, "Invalid Request: 'jsonrpc' must be \"2.0\""
    if "method" not in message:
        if "id" in message and ("result" in message or "error" in message):
            return None  # a response to a request of ours (sampling)
        return INVALID_REQUEST, "Invalid Request: no 'method'"
    if not isinstance(message["method"], str):
        return INVALID_REQUEST, "Invalid Request: 'method' must be a string"
    if "params" in message and not isinstance(message["params"], dict):
        return INVALID_PARAMS, "Invalid params: 'params' must be an object"
    return None


def _batch(messages: list[Any]) -> bytes:
    """MCP removed JSON-RPC batching (2025-06-18): each request in one is answered with
    an error, all in one array, so no client waits for an answer that never comes."""
    why = "Invalid Request: batches are not supported; send one message a line"
    if not messages:
        return error_line(None, INVALID_REQUEST, why)
    replies = []
    for message in messages:
        found = message.get("id") if isinstance(message, dict) else None
        if isinstance(message, dict) and "id" not in message and "method" in message:
            continue  # a notification is never answered
        valid = isinstance(found, str | int) and not isinstance(found, bool)
        replies.append(_error(found if valid else None, INVALID_REQUEST, why))
    if not replies:
        return error_line(None, INVALID_REQUEST, why)
    return (json.dumps(replies, separators=(",", ":")) + "\n").encode()


def _error(found: Id, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": found, "error": {"code": code, "message": message}}


def error_line(found: Id, code: int, message: str) -> bytes:
    """One JSON-RPC error response, as the line to write."""
    return (json.dumps(_error(found, code, message), separators=(",", ":")) + "\n").encode()


# -- the id of a message too deep or too big to parse ------------------------------------

_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}:,]|[^\s\[\]{}:,"]+')
_SMALL_INT = re.compile(r"-?(?:0|[1-9][0-9]{0,17})")


def envelope(text: str) -> tuple[Id, bool]:
    """The top-level ``id`` of a message (None if absent or not a string or an integer)
    and whether it has a ``method``, read token by token without building the message."""
    depth, key, expecting_value = 0, None, False
    found: Id = None
    with_method = False
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            expecting_value = False
        elif token in "]}":
            depth -= 1
        elif depth != 1:
            continue
        elif token == ":":
            expecting_value = True
        elif token == ",":
            key, expecting_value = None, False
        elif expecting_value:
            if key == "id":
                found = _scalar_id(token)
            with_method = with_method or key == "method"
            expecting_value = False
        elif token.startswith('"'):
            key = _string(token)
    return found, with_method


def _scalar_id(token: str) -> Id:
    if token.startswith('"'):
        return _string(token)
    return int(token) if _SMALL_INT.fullmatch(token) else None


def _string(token: str) -> str | None:
    try:
        value = json.loads(token)
    except ValueError:
        return None
    return value if isinstance(value, str) else None
