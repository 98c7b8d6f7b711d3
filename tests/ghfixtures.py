"""Helpers for the GitHub end-to-end tests: a FixtureGitHub per test, a project wired to it.

`make_gh(tmp_path, latency)` (wrap it in a fixture) starts an empty `FixtureGitHub` on
loopback (random ports, so tests are safe under pytest-xdist) and yields a `GH` object:

* `gh.server`: the fake GitHub (add_repo, fail, rate_limit, request log, ...);
* `gh.repo(owner, name, commits={label: {...}}, branches=..., tags=...)`: build commit
  folders in tmp_path with the conftest package builders, then add the repository;
* `gh.run(*args)`: the real CLI in a subprocess, in `gh.project`, with the API URL, an
  isolated cache/shared dir, fast retries and a keyring that holds nothing.
"""

from __future__ import annotations

import io
import shutil
import tarfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conftest import (
    Run,
    make_agent,
    make_mcp,
    make_skill,
    run_cli,
    write_manifest,
)

from fixture_server import FixtureGitHub

# -- origins and repositories -------------------------------------------------------------


def origin(repo: str, ref: str, path: str = "") -> str:
    """`https://github.com/<repo>/tree/<ref>[/<path>]`."""
    return f"https://github.com/{repo}/tree/{ref}" + (f"/{path}" if path else "")


def skill_origin(repo: str, ref: str, name: str) -> str:
    return origin(repo, ref, f"skills/{name}")


# A commit's content: {"skills": {name: {make_skill kwargs}}, "agents": {...},
# "mcps": {fqn: {make_mcp kwargs}}, "files": {relative path: text}}
Content = dict[str, Any]


@dataclass
class GH:
    server: FixtureGitHub
    tmp: Path
    project: Path
    cache: Path
    shared: Path
    env: dict[str, str] = field(default_factory=dict)
    _folders: int = 0

    # -- building repositories ------------------------------------------------------------

    def folder(self, content: Content) -> Path:
        """A fresh commit folder holding `content` (never changed afterwards)."""
        self._folders += 1
        root = self.tmp / "commits" / f"c{self._folders}"
        root.mkdir(parents=True)
        for name, kwargs in content.get("skills", {}).items():
            make_skill(root, name, **kwargs)
        for name, kwargs in content.get("agents", {}).items():
            make_agent(root, name, **kwargs)
        for fqn, kwargs in content.get("mcps", {}).items():
            make_mcp(root, fqn, **kwargs)
        for relative, text in content.get("files", {}).items():
            (root / relative).parent.mkdir(parents=True, exist_ok=True)
            (root / relative).write_text(text)
        return root

    def repo(
        self,
        full_name: str,
        commits: dict[str, Content],
        branches: dict[str, str] | None = None,
        tags: dict[str, str] | None = None,
        renamed_to: str | None = None,
    ) -> dict[str, str]:
        """Add a repository; returns {label: sha}. Default: branch main -> first commit."""
        owner, name = full_name.split("/")
        folders = {label: self.folder(content) for label, content in commits.items()}
        if branches is None:
            branches = {"main": next(iter(commits))} if commits else {}
        self.server.add_repo(owner, name, folders, branches, tags or {}, renamed_to)
        return {label: self.server.sha(owner, name, label) for label in commits}

    def commit(self, full_name: str, label: str, content: Content) -> str:
        owner, name = full_name.split("/")
        return self.server.add_commit(owner, name, label, self.folder(content))

    def sha(self, full_name: str, ref: str) -> str:
        owner, name = full_name.split("/")
        return self.server.sha(owner, name, ref)

    # -- the project ----------------------------------------------------------------------

    def manifest(
        self,
        skills: list[str] | None = None,
        agents: list[str] | None = None,
        mcps: list[str] | None = None,
    ) -> None:
        write_manifest(self.project, agents=agents, skills=skills, mcps=mcps)

    def run(
        self,
        *args: str,
        env: dict[str, str] | None = None,
        cwd: Path | None = None,
        stdin: str | None = None,
    ) -> Run:
        full = {**self.env, **(env or {})}
        full = {k: v for k, v in full.items() if v is not None}
        if stdin is None:
            return run_cli(*args, cwd=cwd or self.project, env=full)
        return _run_with_stdin(args, cwd or self.project, full, stdin)

    def install(self, *args: str, env: dict[str, str] | None = None) -> Run:
        return self.run("install", *args, env=env)

    @property
    def lock_text(self) -> str:
        return (self.project / "metapkg.lock").read_text()

    def lock(self) -> dict[str, Any]:
        from ruamel.yaml import YAML

        return YAML(typ="safe").load(self.lock_text)

    def pins(self) -> dict[tuple[str, str], str]:
        return {(p["repo"], p["ref"]): p["commit"] for p in self.lock()["pins"]}

    def packages(self) -> dict[str, dict[str, Any]]:
        return {p["fqn"]: p for p in self.lock()["packages"]}

    def forget_install(self) -> None:
        """Make the next install do real work: drop the state and the provisioned files."""
        for name in (".metapkg", ".agents", ".claude", ".mcp.json"):
            path = self.project / name
            if path.is_dir():
                shutil.rmtree(path)
            elif path.exists():
                path.unlink()

    def count(self, pattern: str, host: str | None = None) -> int:
        return self.server.count(pattern, host)

    def lookups(self) -> list[str]:
        """Paths of every `commits/<ref>` request, in order."""
        return [r.path for r in self.server.requests if "/commits/" in r.path]


def _run_with_stdin(args: tuple[str, ...], cwd: Path, env: dict[str, str], stdin: str) -> Run:
    import os
    import subprocess
    import sys

    full_env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("METAPKG_", "GITHUB_TOKEN", "GH_TOKEN"))
    }
    full_env["NO_COLOR"] = "1"
    full_env.update(env)
    proc = subprocess.run(
        [sys.executable, "-m", "metapkg", *args],
        cwd=cwd,
        env=full_env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return Run(proc.returncode, proc.stdout, proc.stderr)


def make_gh(tmp_path: Path, latency: float = 0.0, web: bool = False) -> Iterator[GH]:
    """``web``: also point metapkg at the fake web host (git ref advertisement) and
    archive host, as it is pointed at github.com and codeload by default."""
    server = FixtureGitHub(latency=latency)
    with server:
        project = tmp_path / "project"
        project.mkdir()
        gh = GH(server, tmp_path, project, tmp_path / "cache", tmp_path / "shared")
        gh.env = {
            "METAPKG_GITHUB_API_URL": server.api_url,
            "METAPKG_CACHE_DIR": str(gh.cache),
            "METAPKG_SHARED_DIR": str(gh.shared),
            "METAPKG_CONFIG_DIR": str(gh.shared.parent / "config"),
            "METAPKG_HTTP_BACKOFF": "0.01",
            "METAPKG_RATE_LIMIT_WAIT": "5",
            "METAPKG_HTTP_TIMEOUT": "10",
            # Never the developer's own keyring: "no keyring" unless a test picks one.
            "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
        }
        if web:
            gh.env["METAPKG_GITHUB_URL"] = server.web_url
            gh.env["METAPKG_GITHUB_ARCHIVE_URL"] = server.download_url
        yield gh


# -- crafted archives ---------------------------------------------------------------------

Entry = Callable[[tarfile.TarFile, str], None]


def reg(name: str, data: bytes = b"x\n", mode: int = 0o644) -> Entry:
    def add(tar: tarfile.TarFile, top: str) -> None:
        info = tarfile.TarInfo(f"{top}/{name}" if top else name)
        info.size, info.mode = len(data), mode
        tar.addfile(info, io.BytesIO(data))

    return add


def raw_reg(full_name: str, data: bytes = b"x\n") -> Entry:
    """A regular file whose name is taken as is (no top folder prepended)."""

    def add(tar: tarfile.TarFile, top: str) -> None:
        info = tarfile.TarInfo(full_name)
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))

    return add


def special(name: str, kind: bytes, linkname: str = "") -> Entry:
    def add(tar: tarfile.TarFile, top: str) -> None:
        info = tarfile.TarInfo(f"{top}/{name}")
        info.type, info.linkname, info.mode = kind, linkname, 0o644
        if kind in (tarfile.CHRTYPE, tarfile.BLKTYPE):
            info.devmajor, info.devminor = 1, 3
        tar.addfile(info)

    return add


def directory(name: str) -> Entry:
    return special(name, tarfile.DIRTYPE)


def skill_entries(folder: Path, top_rel: str) -> list[Entry]:
    """Regular-file entries for every file under `folder`, at `top_rel/<relative path>`."""
    entries: list[Entry] = []
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            rel = f"{top_rel}/{path.relative_to(folder).as_posix()}"
            entries.append(
                reg(rel, path.read_bytes(), 0o755 if path.stat().st_mode & 0o111 else 0o644)
            )
    return entries


def tarball(entries: list[Entry], top: str = "acme-repo-0000000") -> bytes:
    """A gzip tar with a top folder `top/` and the given entries (in order)."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w:gz", format=tarfile.GNU_FORMAT) as tar:
        if top:
            info = tarfile.TarInfo(top)
            info.type, info.mode = tarfile.DIRTYPE, 0o755
            tar.addfile(info)
        for entry in entries:
            entry(tar, top)
    return raw.getvalue()


def cut_archive(entries: list[Entry], top: str = "acme-repo-0000000") -> bytes:
    """What a download cut short between two entries looks like: the tar of `entries`
    without its end-of-archive blocks, in a gzip stream without its trailer (CRC, size)."""
    import zlib

    raw = io.BytesIO()
    # Never closed: close() would write the end-of-archive blocks.
    tar = tarfile.open(fileobj=raw, mode="w", format=tarfile.GNU_FORMAT)  # noqa: SIM115
    info = tarfile.TarInfo(top)
    info.type, info.mode = tarfile.DIRTYPE, 0o755
    tar.addfile(info)
    for entry in entries:
        entry(tar, top)
    prefix = raw.getvalue()  # each entry is written at once; close() would add the end
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    return compressor.compress(prefix) + compressor.flush(zlib.Z_SYNC_FLUSH)


def tree_files(root: Path) -> dict[str, bytes]:
    """{relative posix path: content} of every file under root (empty if absent)."""
    if not root.exists():
        return {}
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }
