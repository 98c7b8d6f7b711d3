"""The HTTP plumbing: a threaded HTTP/1.1 server that hands each request (GET, HEAD, or
POST with its body) to an application object and writes back the `Response` it returns."""

from __future__ import annotations

import contextlib
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal, Protocol, cast

from fixture_server.responses import Response

HostKind = Literal["api", "download", "web"]
# The largest request body read (git's fetch negotiation of a huge repository stays far
# below this); a longer one is answered 413 without being read.
MAX_REQUEST_BODY = 64 * 1024 * 1024

# Errors that only mean the client went away (e.g. it timed out on a slow body).
_DISCONNECTS = (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, TimeoutError)


class Application(Protocol):
    def handle(
        self, host: HostKind, method: str, path: str, headers: dict[str, str], body: bytes = b""
    ) -> Response: ...


class LoopbackServer(ThreadingHTTPServer):
    """One host of the fake GitHub. Tracks open connections so `close` can cut idle
    keep-alive connections at once instead of waiting for clients to drop them."""

    daemon_threads = True
    # Handler threads may sit in a keep-alive read; closing their sockets ends them.
    block_on_close = False
    # socketserver's default listen backlog is 5: a burst of parallel connects overflows it
    # and the kernel drops SYNs, stalling clients for a 1 s retransmit. Benchmarks hit that.
    request_queue_size = 256

    def __init__(self, address: tuple[str, int], app: Application, host: HostKind) -> None:
        super().__init__(address, _Handler)
        self.app = app
        self.host_kind: HostKind = host
        self._open: set[socket.socket] = set()
        self._open_lock = threading.Lock()
        self._thread: threading.Thread | None = None

    @property
    def bound(self) -> tuple[str, int]:
        host, port = self.socket.getsockname()[:2]
        return str(host), int(port)

    @property
    def url(self) -> str:
        host, port = self.bound
        return f"http://{host}:{port}"

    def start(self) -> None:
        self._thread = threading.Thread(
            target=self.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"fixture-github-{self.host_kind}",
            daemon=True,
        )
        self._thread.start()

    def close(self) -> None:
        stopper = threading.Thread(target=self.shutdown, daemon=True)
        stopper.start()
        # A throwaway connection wakes the accept loop, so shutdown need not wait out the
        # poll interval (it still ends within one if the wake-up comes too early).
        with contextlib.suppress(OSError):
            socket.create_connection(self.bound, timeout=0.5).close()
        stopper.join()
        with self._open_lock:
            for conn in self._open:
                with contextlib.suppress(OSError):
                    conn.shutdown(socket.SHUT_RDWR)
        self.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._open_lock:
            self._open.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self._open_lock:
            self._open.discard(request)
        super().shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Disconnects are expected (clients time out on purpose in tests); real bugs are not.
        if not isinstance(sys.exc_info()[1], OSError):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body are written separately; without this, Nagle + delayed ACKs would add
    # ~40 ms to many responses and skew latency benchmarks.
    disable_nagle_algorithm = True
    # Idle keep-alive connections are dropped after this long.
    timeout = 30

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self._serve(send_body=True)

    def do_HEAD(self) -> None:
        self._serve(send_body=False)

    def do_POST(self) -> None:
        try:
            body = self._read_body()
        except _BadBody as bad:
            self.close_connection = True
            self._reply_plain(bad.status, str(bad))
            return
        self._serve(send_body=True, body=body)

    def _serve(self, send_body: bool, body: bytes = b"") -> None:
        server = cast(LoopbackServer, self.server)
        headers = {name.lower(): value for name, value in self.headers.items()}
        response = server.app.handle(server.host_kind, self.command, self.path, headers, body)
        try:
            self._write(response, send_body)
        except _DISCONNECTS:
            self.close_connection = True

    def _read_body(self) -> bytes:
        """The request body, by Content-Length or chunked (git sends large requests
        chunked); `Content-Encoding` is left to the application."""
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            return self._read_chunked()
        try:
            length = int(self.headers.get("Content-Length", "0"))
        except ValueError:
            raise _BadBody(400, "bad Content-Length") from None
        if length < 0 or length > MAX_REQUEST_BODY:
            raise _BadBody(413, "request body too large")
        return self.rfile.read(length)

    def _read_chunked(self) -> bytes:
        parts: list[bytes] = []
        total = 0
        while True:
            line = self.rfile.readline(1024).split(b";")[0].strip()
            try:
                size = int(line, 16)
            except ValueError:
                raise _BadBody(400, "bad chunk size") from None
            if size == 0:
                while self.rfile.readline(1024).strip():  # trailers, then the blank line
                    pass
                return b"".join(parts)
            total += size
            if total > MAX_REQUEST_BODY:
                raise _BadBody(413, "request body too large")
            parts.append(self.rfile.read(size))
            self.rfile.readline(16)  # the CRLF after each chunk

    def _reply_plain(self, status: int, text: str) -> None:
        with contextlib.suppress(*_DISCONNECTS):
            self._write(Response(status, text.encode(), {"Content-Type": "text/plain"}), True)

    def _write(self, response: Response, send_body: bool) -> None:
        body = response.body
        if response.trickle_seconds > 0 and not body:
            time.sleep(response.trickle_seconds)
        self.send_response(response.status)
        for name, value in response.headers.items():
            self.send_header(name, value)
        if response.chunked:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if not send_body:
            return
        if body:
            self._write_body(response, body)
        if response.chunked:
            self.wfile.write(b"0\r\n\r\n")

    def _write_body(self, response: Response, body: bytes) -> None:
        pieces = 1
        if response.trickle_seconds > 0:
            pieces = max(1, min(response.trickle_chunks, len(body)))
        size = -(-len(body) // pieces)
        for start in range(0, len(body), size):
            if response.trickle_seconds > 0:
                time.sleep(response.trickle_seconds / pieces)
            piece = body[start : start + size]
            if response.chunked:
                piece = f"{len(piece):x}\r\n".encode() + piece + b"\r\n"
            self.wfile.write(piece)
            if pieces > 1:
                self.wfile.flush()


class _BadBody(Exception):
    def __init__(self, status: int, why: str) -> None:
        super().__init__(why)
        self.status = status
