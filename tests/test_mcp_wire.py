"""`metapkg mcp` answers every request, caps a message, and stops on a signal (issue 28,
item 12): the real server in a subprocess, spoken to over its pipes."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import assert_ok, run_cli

from metapkg.metaskills import jsonrpc

WAIT = 20.0  # seconds for an answer; the server starts in ~1.5 s (the MCP SDK's import)
MIB = 1024 * 1024


class McpProcess:
    def __init__(self, project: Path) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("METAPKG_")}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "metapkg", "mcp"],
            cwd=project,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.pending = b""

    def send(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def request(self, message: dict[str, Any]) -> None:
        self.send(json.dumps(message).encode() + b"\n")

    def answer(self, wait: float = WAIT) -> Any:
        """The next line the server writes, parsed; fails after ``wait`` seconds."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + wait
        while b"\n" not in self.pending:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([fd], [], [], max(left, 0))
            assert ready, f"no answer within {wait} s"
            chunk = os.read(fd, 65536)
            assert chunk, "the server closed stdout"
            self.pending += chunk
        line, _, self.pending = self.pending.partition(b"\n")
        return json.loads(line)

    def initialize(self, sampling: bool = False) -> None:
        self.request(
            {
                "jsonrpc": "2.0",
                "id": "init",
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {"sampling": {}} if sampling else {},
                    "clientInfo": {"name": "test", "version": "1"},
                },
            }
        )
        assert self.answer()["id"] == "init"
        self.request({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def peak_memory(self) -> int:
        """The server's peak resident memory in bytes (Linux's VmHWM)."""
        status = Path(f"/proc/{self.proc.pid}/status").read_text()
        line = next(x for x in status.splitlines() if x.startswith("VmHWM:"))
        return int(line.split()[1]) * 1024

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpProcess]:
    project = tmp_path_factory.mktemp("mcp")
    (project / "metapkg.yaml").write_text("dependencies: {}\n")
    running = McpProcess(project)
    try:
        running.initialize()
        yield running
    finally:
        running.stop()


def _call(extra: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": "tools/call", **extra}


DEEP = b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"run_metaskill",'
DEEP += b'"arguments":{"name":"x","input":{"a":' + b"[" * 50_000 + b"]" * 50_000 + b"}}}}"
BIG_INT = b'{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"run_metaskill",'
BIG_INT += b'"arguments":{"name":"x","input":{"n":' + b"7" * 5000 + b"}}}}"

INVALID = [
    ("no-method", json.dumps({"jsonrpc": "2.0", "id": 1}).encode(), 1, -32600),
    (
        "string-params",
        json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": "x"}).encode(),
        2,
        -32602,
    ),
    (
        "jsonrpc-1.0",
        json.dumps({"jsonrpc": "1.0", "id": "v1", "method": "tools/list"}).encode(),
        "v1",
        -32600,
    ),
    ("50k-deep-arguments", DEEP, 5, -32602),
    ("5000-digit-int", BIG_INT, "big", -32602),
    ("not-json", b'{"jsonrpc":"2.0","id":9,', None, -32700),
    ("not-utf8", b'{"jsonrpc":"2.0","id":10,"method":"\xff"}', None, -32700),
    ("nan", b'{"jsonrpc":"2.0","id":11,"method":"tools/list","params":{"x":NaN}}', None, -32700),
    (
        "lone-surrogate",
        b'{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"\\ud800"}}',
        12,
        -32602,
    ),
    ("bool-id", b'{"jsonrpc":"2.0","id":true,"method":"tools/list"}', None, -32600),
    ("unknown-method", b'{"jsonrpc":"2.0","id":13,"method":"no/such"}', 13, -32601),
]


@pytest.mark.parametrize(
    ("line", "found", "code"), [c[1:] for c in INVALID], ids=[c[0] for c in INVALID]
)
def test_an_invalid_request_gets_an_error_with_its_id(
    server: McpProcess, line: bytes, found: object, code: int
) -> None:
    server.send(line + b"\n")
    reply = server.answer()
    assert reply["id"] == found and reply["error"]["code"] == code, reply
    server.request({"jsonrpc": "2.0", "id": "after", "method": "tools/list"})
    assert server.answer()["id"] == "after"  # and the session goes on


def test_each_request_of_a_batch_gets_an_error(server: McpProcess) -> None:
    batch = [
        {"jsonrpc": "2.0", "id": 3, "method": "tools/list"},
        {"jsonrpc": "2.0", "method": "notifications/progress"},  # never answered
        {"jsonrpc": "2.0", "id": "b", "method": "tools/list"},
    ]
    server.send(json.dumps(batch).encode() + b"\n")
    replies = server.answer()
    assert [(r["id"], r["error"]["code"]) for r in replies] == [(3, -32600), ("b", -32600)]


def test_a_line_over_the_cap_is_answered_and_dropped_not_kept(server: McpProcess) -> None:
    before = server.peak_memory()
    piece = b"x" * MIB
    for _ in range(jsonrpc.MAX_MESSAGE_BYTES // MIB + 1):
        server.send(piece)
    reply = server.answer()  # as soon as the cap is passed, not when the line ends
    assert reply["id"] is None and reply["error"]["code"] == -32600
    assert "longer than 4 MiB" in reply["error"]["message"]
    for _ in range(24):  # 24 MiB more of the same line: read and dropped
        server.send(piece)
    server.send(b"\n")
    server.request({"jsonrpc": "2.0", "id": "next", "method": "tools/list"})
    assert server.answer()["id"] == "next"
    assert server.peak_memory() - before < 3 * jsonrpc.MAX_MESSAGE_BYTES


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_stops_the_server_while_stdin_stays_open(
    tmp_path: Path, signum: int, code: int
) -> None:
    running = McpProcess(tmp_path)
    try:
        running.initialize()
        running.send(b'{"jsonrpc":"2.0","id":1,')  # half a message, stdin left open
        running.proc.send_signal(signum)
        # Typically 0.1 s; the bound is generous for a loaded machine. Before the fix the
        # server never ended while stdin was open.
        assert running.proc.wait(timeout=10) == code
        assert running.proc.stderr is not None
        assert f"stopped by {signal.Signals(signum).name}" in running.proc.stderr.read().decode()
    finally:
        running.stop()


# -- the checks themselves (pure) ---------------------------------------------------------


def test_a_valid_request_and_a_response_pass() -> None:
    request = b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}'
    assert isinstance(jsonrpc.check(request), jsonrpc.Accepted)
    response = b'{"jsonrpc":"2.0","id":0,"result":{"content":{"type":"text","text":"hi"}}}'
    assert isinstance(jsonrpc.check(response), jsonrpc.Accepted)
    assert jsonrpc.check(b"  \r") == jsonrpc.Rejected(None)


def test_the_id_of_a_message_too_deep_to_parse_is_found() -> None:
    text = '{"params":{"a":' + "[" * 3000 + "]" * 3000 + '},"id":"late","method":"m"}'
    assert jsonrpc.envelope(text) == ("late", True)
    assert jsonrpc.envelope('{"id":' + "1" * 5000 + "}") == (None, False)
    assert jsonrpc.envelope('{"x":{"id":1},"id":2}') == (2, False)


def _waiting_project(root: Path) -> Path:
    """A project whose one metaskill asks the client's model, then waits for the answer."""
    project = root / "project"
    skill = project / "local" / "wait"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: wait\nscope: mine\ndescription: Waits for an answer.\nversion: 1.0.0\n"
        "---\n\nInput keys: any.\n"
    )
    (skill / "CHANGELOG.md").write_text("# Changelog\n\n## 1.0.0 (2026-05-01)\n\n- First.\n")
    (skill / "SKILL.star").write_text('def run(input):\n    return ask("hello", {})\n')
    (project / "metapkg.yaml").write_text(
        "dependencies:\n  skills:\n    - file:./local/wait\ntrust:\n  metaskills: [mine/*]\n"
    )
    env = {"METAPKG_CACHE_DIR": str(root / "cache"), "METAPKG_SHARED_DIR": str(root / "shared")}
    assert_ok(run_cli("install", cwd=project, env=env))
    return project


def test_a_signal_stops_the_server_while_a_metaskill_runs(tmp_path: Path) -> None:
    running = McpProcess(_waiting_project(tmp_path))
    try:
        running.initialize(sampling=True)
        arguments = {"name": "wait", "input": {"x": 1}}
        running.request(
            _call({"id": 7, "params": {"name": "run_metaskill", "arguments": arguments}})
        )
        asked = running.answer()  # the metaskill's ask(), which nobody will answer
        assert asked["method"] == "sampling/createMessage"
        running.proc.send_signal(signal.SIGINT)  # Ctrl-C
        assert running.proc.wait(timeout=10) == 130  # about 1 s on a loaded machine
    finally:
        running.stop()


INIT = {
    "jsonrpc": "2.0",
    "id": "init",
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}
SCRIPT = [INIT, {"jsonrpc": "2.0", "id": 1, "method": "ping"}, {"jsonrpc": "2.0", "id": 2}]


def _mcp(project: Path, **streams: Any) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("METAPKG_")}
    command = [sys.executable, "-m", "metapkg", "mcp"]
    return subprocess.run(command, cwd=project, env=env, timeout=60, check=False, **streams)


def test_requests_sent_before_stdin_closes_are_all_answered(tmp_path: Path) -> None:
    script = b"".join(json.dumps(m).encode() + b"\n" for m in SCRIPT)
    piped = _mcp(tmp_path, input=script, capture_output=True)
    assert piped.returncode == 0, piped.stderr
    # Answers come in any order: the invalid message 2 is answered before the SDK's two.
    assert {json.loads(line)["id"] for line in piped.stdout.splitlines()} == {"init", 1, 2}
    # From a file into a file: neither can be waited on in the event loop (epoll refuses
    # regular files), so they are read and written directly.
    (tmp_path / "in.jsonl").write_bytes(script)
    with open(tmp_path / "in.jsonl", "rb") as given, open(tmp_path / "out", "wb") as out:
        filed = _mcp(tmp_path, stdin=given, stdout=out, stderr=subprocess.PIPE)
    assert filed.returncode == 0, filed.stderr
    answers = (tmp_path / "out").read_bytes().splitlines()
    assert {json.loads(line)["id"] for line in answers} == {"init", 1, 2}


def test_a_closed_stdin_is_a_usage_error(tmp_path: Path) -> None:
    closed = subprocess.run(
        f"exec {sys.executable} -m metapkg mcp <&-",
        shell=True,
        cwd=tmp_path,
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert closed.returncode == 2
    assert b"stdin: error[usage]: stdin is closed" in closed.stderr


def test_a_whole_line_just_over_the_cap_is_refused_too(server: McpProcess) -> None:
    padding = " " * (jsonrpc.MAX_MESSAGE_BYTES - 30)  # with the message: a little over
    server.send(b'{"jsonrpc":"2.0","id":"x",' + padding.encode() + b'"method":"ping"}\n')
    reply = server.answer()
    assert reply["id"] is None and "longer than 4 MiB" in reply["error"]["message"]
