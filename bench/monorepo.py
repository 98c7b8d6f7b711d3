"""Big-monorepo benchmark: one small skill out of a repository with >= 500 MB of other content.

    .venv/bin/python -m bench.monorepo                 # 512 MB, 3 runs (~3 minutes, 3 GB RAM)
    .venv/bin/python -m bench.monorepo --other-mb 64   # a quick look

A fixture repository holds `--other-mb` MB of incompressible files (`--files` of them, in
folders of 50) and one small skill. It is served by the loopback fixture server with
`--latency` seconds before every answer, and the skill is fetched three ways:

* archive: the whole repository as codeload's tar.gz by commit, streamed to disk and
  extracted with metapkg's safe extraction (`metapkg.fetch.archive.extract`; its size caps
  are lifted for this run: by default they refuse an archive this big);
* sparse: `metapkg.fetch.sparse.fetch_subtree` (git partial clone, blob:none, depth 1, then
  the skill's blobs);
* adaptive: what a client that does not know the repository is big pays the first time:
  the archive download, stopped at `sparse.LARGE_ARCHIVE_BYTES`, then sparse.

Bytes are the response bodies the server sent (its request log); time is wall clock on
loopback, where bandwidth is nearly free, so a modelled time at `--mbit` Mbit/s (that
time plus bytes / bandwidth) is printed beside it. The server builds its
archive and its git repository once, before the timed runs (as codeload and GitHub have
them ready). Not run by CI: figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import httpx

from fixture_server import FixtureGitHub, RequestRecord
from metapkg.fetch import archive, sparse
from metapkg.fetch.webhost import WebHost

REPO = "acme/mono"
SKILL = "skills/tiny"


@dataclass
class Figure:
    method: str
    seconds: float
    bytes: int
    requests: Counter[str]
    files: int

    def modelled(self, mbit: float) -> float:
        """The loopback time (latency and work included) plus the transfer at `mbit`."""
        return self.seconds + self.bytes * 8 / (mbit * 1e6)


def build_repository(root: Path, other_mb: int, files: int) -> None:
    size = other_mb * 1024 * 1024 // files
    for index in range(files):
        folder = root / "vendor" / f"pack{index // 50:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"blob{index:05d}.bin").write_bytes(os.urandom(size))
    skill = root / SKILL
    (skill / "scripts").mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: tiny\ndescription: A small skill in a big repository.\nversion: 1.0.0\n---\n"
        + "Say hello.\n" * 200
    )
    (skill / "CHANGELOG.md").write_text("# Changelog\n\n## 1.0.0 (2026-01-01)\n\n- First.\n")
    (skill / "scripts" / "hello.sh").write_text("#!/bin/sh\necho hello\n" * 50)
    (skill / "scripts" / "hello.sh").chmod(0o755)


def endpoint(record: RequestRecord) -> str:
    path = record.path.split("?")[0]
    kind = "tar.gz" if "/tar.gz/" in path else path.rsplit("/", 1)[-1]
    return f"{record.method} {record.host} {'info/refs' if kind == 'refs' else kind}"


@dataclass
class Step:
    """One fetch of the skill by one method, in its own folder."""

    method: str
    url: str
    host: WebHost
    commit: str
    work: Path
    archive_bytes: int = 0  # counted by the client: a stopped download is not sent whole

    def __call__(self) -> int:
        if self.method == "archive":
            return self.fetch_archive()
        if self.method == "sparse":
            return self.fetch_sparse()
        self.fetch_archive(stop_after=sparse.LARGE_ARCHIVE_BYTES)
        return self.fetch_sparse()

    def fetch_archive(self, stop_after: int | None = None) -> int:
        """Stream the archive to disk (or stop once it shows it is large), then extract."""
        download = self.work / "archive.tar.gz"
        with httpx.Client(timeout=600) as client, client.stream("GET", self.url) as response:
            response.raise_for_status()
            length = response.headers.get("content-length")
            with open(download, "wb") as out:
                for chunk in response.iter_bytes(1 << 16):
                    out.write(chunk)
                    self.archive_bytes += len(chunk)
                    if stop_after is not None and sparse.is_large(
                        int(length) if length else None, self.archive_bytes, stop_after
                    ):
                        return 0
        target = self.work / "tree"
        target.mkdir()
        return len(archive.extract(download, target, self.url))

    def fetch_sparse(self) -> int:
        target = self.work / "tree"
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir()
        return len(sparse.fetch_subtree(self.host.clone_url(REPO), self.commit, SKILL, target, "x"))


def measured(server: FixtureGitHub, step: Step) -> Figure:
    server.clear_log()
    started = time.perf_counter()
    files = step()
    seconds = time.perf_counter() - started
    log = server.requests
    others = sum(r.body_bytes for r in log if endpoint(r) != "GET download tar.gz")
    requests = Counter(endpoint(r) for r in log)
    return Figure(step.method, seconds, step.archive_bytes + others, requests, files)


def lift_archive_caps() -> None:
    archive.MAX_ENTRY_BYTES = archive.MAX_TOTAL_BYTES = 1 << 40


def warm_up(server: FixtureGitHub, host: WebHost, url: str) -> None:
    """The archive host builds the archive once (as codeload caches it), and the first git
    request writes the fixture's bare repository."""
    started = time.perf_counter()
    httpx.get(url, timeout=600)
    command = ["git", "-c", "protocol.version=2", "ls-remote", host.clone_url(REPO)]
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0"}
    subprocess.run(command, check=True, capture_output=True, env=env)
    print(f"server warmed up in {time.perf_counter() - started:.1f} s")


def run(args: argparse.Namespace, scratch: Path) -> list[Figure]:
    started = time.perf_counter()
    build_repository(scratch / "repo", args.other_mb, args.files)
    server = FixtureGitHub()
    server.add_repo("acme", "mono", {"c1": scratch / "repo"}, branches={"main": "c1"})
    print(f"repository written and hashed in {time.perf_counter() - started:.1f} s")
    lift_archive_caps()
    figures: dict[str, list[Figure]] = {"archive": [], "sparse": [], "adaptive": []}
    with server:
        host = WebHost(server.web_url, server.download_url)
        commit = server.sha("acme", "mono", "c1")
        url = host.archive_url(REPO, commit)
        warm_up(server, host, url)
        server.latency = args.latency
        for attempt in range(args.runs):
            for method, results in figures.items():
                work = scratch / f"{method}-{attempt}"
                work.mkdir()
                results.append(measured(server, Step(method, url, host, commit, work)))
                shutil.rmtree(work, ignore_errors=True)
    return [min(runs, key=lambda f: abs(f.seconds - _median(runs))) for runs in figures.values()]


def _median(figures: list[Figure]) -> float:
    return statistics.median(f.seconds for f in figures)


def render(figures: list[Figure], args: argparse.Namespace) -> str:
    lines = [
        f"One {SKILL} skill out of a repository with {args.other_mb} MB of other content "
        f"({args.files} files), {args.latency * 1000:.0f} ms latency per request, "
        f"median of {args.runs} runs.",
        "",
        f"| method | files | bytes fetched | time (loopback) | modelled at {args.mbit:g} Mbit/s "
        "| requests by endpoint |",
        "|---|---|---|---|---|---|",
    ]
    for figure in figures:
        requests = ", ".join(f"{n} x {e}" for e, n in sorted(figure.requests.items()))
        lines.append(
            f"| {figure.method} | {figure.files} | {figure.bytes / 1e6:.2f} MB | "
            f"{figure.seconds:.2f} s | {figure.modelled(args.mbit):.1f} s "
            f"| {requests} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.monorepo", description=__doc__)
    parser.add_argument("--other-mb", type=int, default=512, help="MB of other content")
    parser.add_argument("--files", type=int, default=2000, help="files of other content")
    parser.add_argument("--latency", type=float, default=0.05, help="seconds per request")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--mbit", type=float, default=100.0, help="bandwidth for the model")
    args = parser.parse_args(argv)
    if sparse.find_git() is None:
        raise SystemExit("git 2.29 or newer is needed for the sparse path")
    with tempfile.TemporaryDirectory(prefix="metapkg-monorepo-") as scratch:
        print(render(run(args, Path(scratch)), args))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
