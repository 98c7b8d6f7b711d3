"""A real OCI registry for tests and the fleet benchmark: Debian's ``docker-registry``
(the CNCF distribution server), on a loopback port, storage in a temp folder.

``start_registry(folder, users={"alice": "secret"})`` turns on htpasswd basic auth (the
password file is written by ``htpasswd -B`` from apache2-utils). ``unavailable()`` says
why a test cannot run here (no server, or no htpasswd for the auth cases), for a skip.
CI installs both (.ci/run).
"""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

PROGRAMS = ("docker-registry", "registry")


def program() -> str | None:
    return next((found for name in PROGRAMS if (found := shutil.which(name))), None)


def unavailable(auth: bool = False) -> str | None:
    if program() is None:
        return "no OCI registry here: apt-get install docker-registry (CI does, .ci/run)"
    if auth and shutil.which("htpasswd") is None:
        return "no htpasswd for the basic-auth registry: apt-get install apache2-utils"
    return None


@dataclass
class RunningRegistry:
    host: str  # 127.0.0.1:PORT
    process: subprocess.Popen[bytes]
    log: Path

    @property
    def url(self) -> str:
        return f"http://{self.host}"

    def requests(self) -> int:
        """How many requests the registry answered (its access log, one line each)."""
        try:
            text = self.log.read_text(errors="replace")
        except OSError:
            return 0
        return sum(
            '"GET /' in line
            or '"HEAD /' in line
            or '"PUT /' in line
            or '"POST /' in line
            or '"PATCH /' in line
            for line in text.splitlines()
        )


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _config(folder: Path, port: int, htpasswd: Path | None) -> str:
    auth = (
        f"auth:\n  htpasswd:\n    realm: metapkg-test\n    path: {htpasswd}\n" if htpasswd else ""
    )
    return (
        "version: 0.1\n"
        "log:\n  level: error\n  accesslog:\n    disabled: false\n"
        f"storage:\n  filesystem:\n    rootdirectory: {folder / 'storage'}\n"
        "  delete:\n    enabled: true\n"
        f"http:\n  addr: 127.0.0.1:{port}\n" + auth
    )


@contextlib.contextmanager
def start_registry(folder: Path, users: dict[str, str] | None = None) -> Iterator[RunningRegistry]:
    found = program()
    assert found is not None, unavailable()
    folder.mkdir(parents=True, exist_ok=True)
    htpasswd = None
    if users:
        htpasswd = folder / "htpasswd"
        for index, (user, password) in enumerate(users.items()):
            flags = "-Bbc" if index == 0 else "-Bb"
            subprocess.run(
                ["htpasswd", flags, str(htpasswd), user, password], check=True, capture_output=True
            )
    port = _free_port()
    config = folder / "config.yml"
    config.write_text(_config(folder, port, htpasswd))
    log = folder / "registry.log"
    with log.open("wb") as out:
        process = subprocess.Popen([found, "serve", str(config)], stdout=out, stderr=out)
    running = RunningRegistry(f"127.0.0.1:{port}", process, log)
    try:
        _wait_until_up(running)
        yield running
    finally:
        process.terminate()
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _wait_until_up(running: RunningRegistry) -> None:
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if running.process.poll() is not None:
            raise RuntimeError(f"the registry exited: {running.log.read_text(errors='replace')}")
        try:
            urllib.request.urlopen(f"{running.url}/v2/", timeout=1).close()
            return
        except urllib.error.HTTPError:
            return  # 401: up, and asking for a login
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("the registry did not start within 15 s")
