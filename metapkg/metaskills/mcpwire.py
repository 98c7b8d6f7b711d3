"""The stdio transport of `metapkg mcp`: bounded lines in, every request answered, and a
prompt stop on SIGINT/SIGTERM.

The SDK's own ``stdio_server`` reads stdin in a worker thread, line by line without a
cap (a line without a newline grew to 369 MiB), hands undecodable messages to the
session, which drops them unanswered, and its blocked thread kept the process alive
after Ctrl-C until stdin closed. This one:

* reads with ``os.read`` once the event loop says stdin is readable (no thread, so a
  signal ends the loop at once; _access says how files and Windows differ), and caps a
  message at jsonrpc.MAX_MESSAGE_BYTES: a longer line is answered with an error and
  skipped to its end, never kept;
* checks every line (jsonrpc.check) and answers the invalid ones itself;
* writes at most PIPE_BUF bytes once stdout is writable, so a client that stops reading
  blocks only this connection's writer, never the event loop;
* like the SDK, moves fd 0 to /dev/null and fd 1 to stderr while serving, so a program a
  metaskill runs cannot read the client's messages or write into the protocol.
"""

from __future__ import annotations

import os
import select
import stat
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, Literal

import anyio
import anyio.to_thread
import mcp_types as types
from anyio.lowlevel import checkpoint
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from metapkg.diagnostics import UsageError
from metapkg.metaskills import jsonrpc

CHUNK = 64 * 1024
PIPE_BUF = getattr(select, "PIPE_BUF", 512)  # POSIX's atomic pipe write; 512 at least


def require_stdio() -> None:
    """Both ends must be open before serving (``metapkg mcp <&-`` left fd 0 to whatever
    the process opened next)."""
    for stream, name in ((sys.stdin, "stdin"), (sys.stdout, "stdout")):
        if stream is None:
            raise UsageError.single(
                "usage",
                name,
                f"{name} is closed; `metapkg mcp` speaks MCP over stdin and stdout: start it "
                f"from an MCP client (a host's MCP config), which opens both",
            )


Access = Literal["wait", "direct", "thread"]


def _access(fd: int) -> Access:
    """How to use ``fd`` without blocking the event loop. Pipes, sockets and terminals are
    waited on in the loop ("wait"). A regular file or a device such as /dev/null is always
    ready and cannot be waited on (epoll refuses it), so it is used directly. Windows can
    wait only on sockets: a pipe there is read and written in a worker thread, which a
    stop abandons (mcpserver.py ends the process 2 s after a signal in any case)."""
    mode = os.fstat(fd).st_mode
    if stat.S_ISREG(mode) or (stat.S_ISCHR(mode) and not os.isatty(fd)):
        return "direct"
    if sys.platform == "win32":
        return "thread"
    return "wait"


class Wire:
    """The client's end: two private copies of fd 0 and 1, restored when done."""

    def __init__(self) -> None:
        self.fd_in = os.dup(0)
        self.fd_out = os.dup(1)
        self.access_in = _access(self.fd_in)
        self.access_out = _access(self.fd_out)
        os.set_inheritable(self.fd_in, False)
        os.set_inheritable(self.fd_out, False)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        os.dup2(2, 1)
        self._lock = anyio.Lock()
        self.gone = False  # the client closed its end of stdout

    def restore(self) -> None:
        os.dup2(self.fd_in, 0)
        os.dup2(self.fd_out, 1)
        os.close(self.fd_in)
        os.close(self.fd_out)

    async def write(self, data: bytes) -> None:
        """All of ``data``, in pieces a writable pipe takes without blocking."""
        async with self._lock:
            view = memoryview(data)
            while view and not self.gone:
                try:
                    written = await self._write_some(view[:PIPE_BUF])
                except BrokenPipeError:
                    self.gone = True  # nobody reads any more: nothing left to answer
                    return
                view = view[written:]

    async def _write_some(self, piece: memoryview) -> int:
        if self.access_out == "thread":
            return await anyio.to_thread.run_sync(
                os.write, self.fd_out, piece, abandon_on_cancel=True
            )
        await (anyio.wait_writable(self.fd_out) if self.access_out == "wait" else checkpoint())
        return os.write(self.fd_out, piece)

    async def _read_some(self) -> bytes:
        if self.access_in == "thread":
            return await anyio.to_thread.run_sync(
                os.read, self.fd_in, CHUNK, abandon_on_cancel=True
            )
        await (anyio.wait_readable(self.fd_in) if self.access_in == "wait" else checkpoint())
        return os.read(self.fd_in, CHUNK)

    async def chunks(self) -> AsyncIterator[bytes]:
        """What the client sends, as it arrives, until it closes its end."""
        while True:
            chunk = await self._read_some()
            if not chunk:
                return
            yield chunk


class Answers:
    """The client's requests not answered yet. At the end of its input the session stays
    until each is answered: a client may send its requests and close stdin at once."""

    def __init__(self) -> None:
        self.waiting: set[str | int] = set()
        self._changed = anyio.Event()

    def asked(self, message: dict[str, Any]) -> None:
        if "method" in message and "id" in message:
            self.waiting.add(message["id"])
        elif message.get("method") == "notifications/cancelled":  # no answer will come
            params = message.get("params") or {}
            self.answered(params.get("requestId"))

    def answered(self, found: object) -> None:
        if isinstance(found, str | int):
            self.waiting.discard(found)
        self._changed.set()

    async def all_answered(self, wire: Wire) -> None:
        while self.waiting and not wire.gone:
            self._changed = anyio.Event()
            await self._changed.wait()


async def lines(wire: Wire) -> AsyncIterator[bytes]:
    """Each complete line (without its newline); an over-long one is answered with an
    error as soon as it passes the cap, and the rest of it is read and dropped."""
    pending = bytearray()
    skipping = False
    async for chunk in wire.chunks():
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            if end < 0:
                break
            if skipping:
                skipping = False
            elif len(pending) + end - start > jsonrpc.MAX_MESSAGE_BYTES:
                await wire.write(_too_long())
            else:
                pending += chunk[start:end]
                yield bytes(pending)
            pending.clear()
            start = end + 1
        if not skipping:
            pending += chunk[start:]
            if len(pending) > jsonrpc.MAX_MESSAGE_BYTES:
                pending.clear()
                skipping = True
                await wire.write(_too_long())
    if pending and not skipping:
        yield bytes(pending)  # the last message, without a newline, at the end of input


def _too_long() -> bytes:
    size = jsonrpc.MAX_MESSAGE_BYTES // (1024 * 1024)
    why = f"Invalid Request: a message is longer than {size} MiB; it was skipped"
    return jsonrpc.error_line(None, jsonrpc.INVALID_REQUEST, why)


@asynccontextmanager
async def stdio_wire() -> AsyncIterator[tuple[Any, Any]]:
    """``(read, write)`` streams for ``Server.run``, as the SDK's ``stdio_server`` yields."""
    wire = Wire()
    read_send: MemoryObjectSendStream[SessionMessage | Exception]
    read_recv: MemoryObjectReceiveStream[SessionMessage | Exception]
    read_send, read_recv = anyio.create_memory_object_stream(0)
    write_send: MemoryObjectSendStream[SessionMessage]
    write_recv: MemoryObjectReceiveStream[SessionMessage]
    write_send, write_recv = anyio.create_memory_object_stream(0)
    reading = anyio.CancelScope()
    answers = Answers()
    try:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(_read, reading, wire, answers, read_send)
            tasks.start_soon(_write, wire, answers, write_recv)
            yield read_recv, write_send
            reading.cancel()
            await write_send.aclose()  # the writer finishes the message it is on, then ends
    finally:
        wire.restore()


async def _read(
    scope: anyio.CancelScope,
    wire: Wire,
    answers: Answers,
    into: MemoryObjectSendStream[SessionMessage | Exception],
) -> None:
    with scope:
        async with into:
            await _forward(wire, answers, into)
            await answers.all_answered(wire)  # then closing ``into`` ends the session


async def _forward(
    wire: Wire, answers: Answers, into: MemoryObjectSendStream[SessionMessage | Exception]
) -> None:
    async for line in lines(wire):
        checked = jsonrpc.check(line)
        if isinstance(checked, jsonrpc.Rejected):
            if checked.reply is not None:
                await wire.write(checked.reply)
            continue
        try:
            message = types.jsonrpc_message_adapter.validate_python(checked.message)
        except ValidationError:
            await wire.write(_invalid(checked.message))
            continue
        answers.asked(checked.message)
        await into.send(SessionMessage(message))


def _invalid(message: dict[str, Any]) -> bytes:
    why = "Invalid Request: not a JSON-RPC request, notification or response MCP knows"
    return jsonrpc.error_line(message.get("id"), jsonrpc.INVALID_REQUEST, why)


async def _write(
    wire: Wire, answers: Answers, queued: MemoryObjectReceiveStream[SessionMessage]
) -> None:
    async with queued:
        async for session_message in queued:
            message = session_message.message
            data = message.model_dump_json(by_alias=True, exclude_unset=True)
            await wire.write(data.encode("utf-8") + b"\n")
            if isinstance(message, types.JSONRPCResponse | types.JSONRPCError):
                answers.answered(message.id)
