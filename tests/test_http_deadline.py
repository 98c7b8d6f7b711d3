"""A host that answers one byte at a time is cut off by the whole-response deadline.

``METAPKG_HTTP_TIMEOUT`` bounds each wait for a byte, so a host trickling a byte every
0.2 s never trips it: an install once read such a host for as long as it kept going.
Each of metapkg's HTTP paths (the REST API, git's smart-HTTP ref advertisement on the
web host, the archive host) is pointed at a loopback server that trickles, in the body
or in the headers, and the install must end with ``error[fetch]`` within seconds.
"""

from __future__ import annotations

import socket
import socketserver
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import assert_fails_with
from ghfixtures import GH, make_gh, skill_origin

TRICKLE_EVERY = 0.2  # seconds between two bytes
MOST_BYTES = 100  # the server gives up by itself after this many (20 s)


class _Trickle(socketserver.BaseRequestHandler):
    """Reads the request, then sends status and headers at once and the body a byte at a
    time (``server.where == "body"``), or the headers themselves a byte at a time."""

    def handle(self) -> None:
        self.request.settimeout(5)
        seen = b""
        try:
            while b"\r\n\r\n" not in seen and len(seen) < 65536:
                chunk = self.request.recv(4096)
                if not chunk:
                    return
                seen += chunk
            head = b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
            if self.server.where == "body":  # type: ignore[attr-defined]
                self.request.sendall(head + b"Content-Length: 100000\r\n\r\n")
                pieces = b"x" * MOST_BYTES
            else:
                self.request.sendall(b"HTTP/1.1 200 OK\r\n")
                pieces = b"X-Slow: " + b"a" * MOST_BYTES
            for byte in pieces:
                self.request.sendall(bytes([byte]))
                time.sleep(TRICKLE_EVERY)
        except OSError:
            return  # the client hung up: what the deadline is for


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


@pytest.fixture(params=["body", "headers"])
def trickle(request: pytest.FixtureRequest) -> Iterator[str]:
    server = _Server(("127.0.0.1", 0), _Trickle)
    server.where = request.param  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


@pytest.fixture
def gh(tmp_path: Path) -> Iterator[GH]:
    yield from make_gh(tmp_path, web=True)


@pytest.mark.parametrize("host", ["api", "web", "archive"])
def test_a_trickling_host_ends_in_a_fetch_error_within_the_deadline(
    gh: GH, trickle: str, host: str
) -> None:
    gh.repo("acme/tools", {"c1": {"skills": {"alpha": {}}}})
    gh.manifest(skills=[skill_origin("acme/tools", "main", "alpha")])
    env = {"METAPKG_HTTP_TIMEOUT": "2", "METAPKG_HTTP_DEADLINE": "1"}
    if host == "api":  # the REST API alone (no web host): the ref lookup trickles
        env |= {"METAPKG_GITHUB_API_URL": trickle, "METAPKG_GITHUB_URL": ""}
    elif host == "web":  # git's smart-HTTP ref advertisement trickles
        env["METAPKG_GITHUB_URL"] = trickle
    else:  # refs from the fixture, the archive trickles
        env["METAPKG_GITHUB_ARCHIVE_URL"] = trickle
    started = time.monotonic()
    run = gh.install(env=env)
    took = time.monotonic() - started
    [found] = assert_fails_with(run, "fetch")
    assert "METAPKG_HTTP_DEADLINE" in found.message, found
    assert took < 6, f"the install read a trickling host for {took:.1f} s"
    assert not (gh.project / "metapkg.lock").exists()


def test_the_loopback_server_trickles(trickle: str) -> None:
    """The server itself (a server that answered at once would make the test pass for
    nothing): two reads a trickle apart, each of a byte or so."""
    port = int(trickle.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=5) as client:
        client.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        client.recv(4096)  # the status line (and headers, for a body trickle)
        started = time.monotonic()
        first = client.recv(4096)
        second = client.recv(4096)
        assert 0 < len(first) <= 2 and 0 < len(second) <= 2
        assert time.monotonic() - started >= TRICKLE_EVERY * 0.9


def test_the_deadline_grows_with_what_arrives() -> None:
    """An archive on a slow but honest line keeps going: each MiB received adds
    SECONDS_PER_MIB to the base (a floor of 64 KiB/s), so only a trickle is cut off."""
    from metapkg.fetch import deadline

    budget = deadline.Budget(1.0)
    assert 0.5 < budget.remaining() <= 1.0
    budget.received = 4 * deadline.MIB
    assert 1 + 4 * deadline.SECONDS_PER_MIB - 0.5 < budget.remaining() <= 1 + 4 * 16.0
    budget.started -= 100
    with pytest.raises(deadline.DeadlinePassed, match="METAPKG_HTTP_DEADLINE=1 s"):
        budget.check()
