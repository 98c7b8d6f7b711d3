"""Headless Chromium driven through the DevTools protocol, for tests/browser.py.

The standard library has no websocket client, so a minimal one (RFC 6455, text frames,
loopback only) is below. :func:`page` starts a fresh Chromium with a throw-away profile
and yields a :class:`DevTools` connection to its one page.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

CHROMIUM = "/usr/bin/chromium"
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--window-size=1400,900",
    "--remote-debugging-address=127.0.0.1",
    "--remote-debugging-port=0",
)


def chromium() -> str | None:
    found = CHROMIUM if os.access(CHROMIUM, os.X_OK) else shutil.which("chromium")
    return found


# -- a minimal websocket client (RFC 6455), loopback only -----------------------------------


class _WebSocket:
    def __init__(self, url: str, timeout: float) -> None:
        parsed = urlparse(url)
        if parsed.hostname not in ("127.0.0.1", "localhost"):
            raise ValueError(f"refusing a non-loopback DevTools address: {url}")
        self.sock = socket.create_connection((parsed.hostname, parsed.port or 80), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(
            f"GET {parsed.path} HTTP/1.1\r\nHost: {parsed.netloc}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n".encode()
        )
        self.buffer = b""
        while b"\r\n\r\n" not in self.buffer:
            self.buffer += self._recv()
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise ConnectionError(f"websocket handshake refused: {head[:200]!r}")

    def _recv(self) -> bytes:
        chunk = self.sock.recv(1 << 16)
        if not chunk:
            raise ConnectionError("DevTools closed the connection")
        return chunk

    def _exact(self, size: int) -> bytes:
        while len(self.buffer) < size:
            self.buffer += self._recv()
        data, self.buffer = self.buffer[:size], self.buffer[size:]
        return data

    def send(self, text: str) -> None:
        payload, mask = text.encode(), os.urandom(4)
        header = bytearray([0x81])
        if len(payload) < 126:
            header.append(0x80 | len(payload))
        elif len(payload) < 1 << 16:
            header += bytes([0x80 | 126]) + len(payload).to_bytes(2, "big")
        else:
            header += bytes([0x80 | 127]) + len(payload).to_bytes(8, "big")
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(bytes(header) + mask + masked)

    def receive(self) -> str:
        message = b""
        while True:
            first, second = self._exact(2)
            size = second & 0x7F
            if size == 126:
                size = int.from_bytes(self._exact(2), "big")
            elif size == 127:
                size = int.from_bytes(self._exact(8), "big")
            data = self._exact(size)
            opcode = first & 0x0F
            if opcode == 8:
                raise ConnectionError("DevTools closed the websocket")
            if opcode in (0, 1, 2):
                message += data
                if first & 0x80:
                    return message.decode()

    def close(self) -> None:
        self.sock.close()


class DevTools:
    """Commands and events of one page target."""

    def __init__(self, url: str, timeout: float = 30.0) -> None:
        self.socket = _WebSocket(url, timeout)
        self.events: list[dict[str, Any]] = []
        self.last_id = 0

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        self.last_id += 1
        self.socket.send(json.dumps({"id": self.last_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.receive())
            if message.get("id") == self.last_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                result: dict[str, Any] = message.get("result", {})
                return result
            self.events.append(message)

    def wait_for(self, method: str) -> dict[str, Any]:
        for event in self.events:
            if event.get("method") == method:
                return event
        while True:
            message: dict[str, Any] = json.loads(self.socket.receive())
            self.events.append(message)
            if message.get("method") == method:
                return message

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"page script failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    def close(self) -> None:
        self.socket.close()


@contextmanager
def page(browser: str | None = None) -> Iterator[DevTools]:
    """A fresh headless Chromium (its own profile folder) and its page, closed after."""
    browser = browser or chromium()
    if browser is None:
        raise FileNotFoundError("no Chromium: apt-get install -y chromium")
    # Removed by _remove_profile, not TemporaryDirectory: Chromium's helper processes may
    # still write into the profile just after the browser process has exited (seen as
    # "Directory not empty: 'Default'" on a slow disk).
    with _profile_folder() as profile:
        process = subprocess.Popen(
            [browser, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            tools = DevTools(_page_websocket(Path(profile)))
            try:
                yield tools
            finally:
                tools.close()
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@contextmanager
def _profile_folder() -> Iterator[str]:
    profile = tempfile.mkdtemp(prefix="metapkg-chromium-")
    try:
        yield profile
    finally:
        for _ in range(50):  # up to 5 s for Chromium's helpers to let go
            try:
                shutil.rmtree(profile)
                break
            except FileNotFoundError:
                break
            except OSError:
                time.sleep(0.1)
        shutil.rmtree(profile, ignore_errors=True)


def _page_websocket(profile: Path, timeout: float = 30.0) -> str:
    """Chromium writes its DevTools port to DevToolsActivePort once it listens."""
    deadline = time.monotonic() + timeout
    marker = profile / "DevToolsActivePort"
    while not marker.exists() or not marker.read_text().strip():
        if time.monotonic() > deadline:
            raise TimeoutError("Chromium did not start its DevTools server")
        time.sleep(0.05)
    port = int(marker.read_text().splitlines()[0])
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    while True:
        with opener.open(f"http://127.0.0.1:{port}/json/list", timeout=timeout) as answer:
            targets = json.load(answer)
        pages = [t for t in targets if t.get("type") == "page"]
        if pages:
            url: str = pages[0]["webSocketDebuggerUrl"]
            return url
        if time.monotonic() > deadline:
            raise TimeoutError("Chromium opened no page")
        time.sleep(0.05)
