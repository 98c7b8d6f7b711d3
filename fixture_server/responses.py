"""The response value every route and fault produces; the HTTP layer only writes it."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

DOCS_URL = "https://docs.github.com/rest"


@dataclass
class Response:
    status: int
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    # True for a tarball or a ref advertisement: only those are cut short by
    # `truncate_archive`.
    truncatable: bool = False
    # Sent with `Transfer-Encoding: chunked` and no Content-Length, as codeload.github.com
    # sends the archives it builds on the fly.
    chunked: bool = False
    # Set by `slow_body`: send the body in `trickle_chunks` pieces over this many seconds.
    trickle_seconds: float = 0.0
    trickle_chunks: int = 1


def json_response(status: int, payload: object, headers: dict[str, str] | None = None) -> Response:
    body = json.dumps(payload, indent=None, separators=(",", ":")).encode()
    return Response(
        status, body, {"Content-Type": "application/json; charset=utf-8", **(headers or {})}
    )


def message(status: int, text: str, headers: dict[str, str] | None = None) -> Response:
    """GitHub's error shape: `{"message": ..., "documentation_url": ...}`."""
    return json_response(status, {"message": text, "documentation_url": DOCS_URL}, headers)


def text_response(status: int, text: str, content_type: str = "text/plain") -> Response:
    return Response(status, text.encode(), {"Content-Type": f"{content_type}; charset=utf-8"})


def not_found() -> Response:
    return message(404, "Not Found")
