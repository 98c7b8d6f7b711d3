"""Hostile inputs as data: every tests/attacks/*.yaml through the real CLI (see its README).

Each attack plants files (planted journals and state, links where host folders should be,
FIFOs and /dev/zero where text files should be, YAML and JSON nested tens of thousands of
levels deep, forged review text) and says what must happen. Whatever it says, no attack
may end in a traceback or a hang, or change anything outside the project and the cache.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, Run, _cli_environment, diagnostics, run_cli, write_changelog
from ruamel.yaml import YAML

from fixture_server import FixtureGitHub

ATTACKS = sorted((Path(__file__).parent / "attacks").glob("*.yaml"))
TIMEOUT = 30


def _expand(value: Any, sandbox: Path) -> Any:
    if isinstance(value, str):
        return value.replace("{sandbox}", str(sandbox))
    if isinstance(value, list):
        return [_expand(item, sandbox) for item in value]
    if isinstance(value, dict):
        return {key: _expand(item, sandbox) for key, item in value.items()}
    return value


def _plant(sandbox: Path, relative: str, spec: Any) -> None:
    path = sandbox / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(spec, str):
        path.write_text(spec)
    elif "link" in spec:
        if os.path.lexists(path):
            path.unlink()
        os.symlink(spec["link"], path)
    elif "fifo" in spec:
        if path.exists():
            path.unlink()
        os.mkfifo(path)
    elif "json" in spec:
        path.write_text(json.dumps(spec["json"], indent=2) + "\n")
    elif "text" in spec:
        pieces = [p if isinstance(p, str) else p[0] * p[1] for p in spec["text"]]
        path.write_text("".join(pieces))
    elif "nest" in spec:
        deep = path.joinpath(*["d"] * spec["nest"])
        os.makedirs(deep)
        (deep / "f.txt").write_text("deep\n")
    elif "skill" in spec:
        path.mkdir(parents=True, exist_ok=True)
        scope = spec.get("scope", "acme")
        (path / "SKILL.md").write_text(
            f"---\nname: {spec['skill']}\nscope: {scope}\ndescription: A skill.\n"
            f"version: 1.0.0\n{spec.get('extra', '')}---\n# {spec['skill']}\n"
        )
        write_changelog(path, "1.0.0")
    else:
        raise ValueError(f"unknown plant {spec!r} for {relative}")
    if isinstance(spec, dict) and "days_old" in spec:  # what a sweep of stale files takes
        when = time.time() - spec["days_old"] * 86400
        os.utime(path, (when, when), follow_symlinks=False)


def _digest(root: Path) -> dict[str, str]:
    """Every entry under ``root`` (a file or folder): links by target, files by content."""
    found: dict[str, str] = {}
    if not os.path.lexists(root):
        return found
    if root.is_symlink() or not root.is_dir():
        entries = [(root, root.name)]
    else:
        entries = [
            (Path(folder) / name, str((Path(folder) / name).relative_to(root)))
            for folder, dirs, files in os.walk(root)
            for name in dirs + files
        ]
    for path, key in entries:
        if path.is_symlink():
            found[key] = "link:" + os.readlink(path)
        elif path.is_file():
            found[key] = hashlib.sha256(path.read_bytes()).hexdigest()
        else:
            found[key] = "dir"
    return found


def _outside_code_blocks(markdown: str) -> str:
    """The markdown a renderer would interpret: fenced code blocks (inert) removed."""
    kept, fence = [], ""
    for line in markdown.splitlines():
        stripped = line.lstrip()
        if fence:
            if stripped.startswith(fence) and not stripped[len(fence) :].strip():
                fence = ""
            continue
        if stripped.startswith("```"):
            fence = stripped[: len(stripped) - len(stripped.lstrip("`"))]
            continue
        kept.append(line)
    return "\n".join(kept)


def _run(args: list[str], project: Path, env: dict[str, str], hang_prone: bool) -> Run:
    """In this process, unless the attack could hang one (FIFOs, devices): those run in
    a subprocess with a timeout, so a regression fails instead of stalling the suite."""
    if not hang_prone:
        return run_cli(*args, cwd=project, env=env)
    done = subprocess.run(
        [sys.executable, "-m", "metapkg", *args],
        cwd=project,
        env=_cli_environment(env),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        stdin=subprocess.DEVNULL,
    )
    return Run(done.returncode, done.stdout, done.stderr)


def _hang_prone(files: dict[str, Any]) -> bool:
    return any(
        isinstance(spec, dict) and ("fifo" in spec or str(spec.get("link", "")).startswith("/dev/"))
        for spec in files.values()
    )


@contextlib.contextmanager
def _github(
    sandbox: Path, root: str | None
) -> Iterator[tuple[FixtureGitHub | None, dict[str, str]]]:
    """The loopback fixture GitHub serving ``<sandbox>/<root>/<owner>/<repo>/repo.yaml``
    (web host, archive host and API, as github.com is used), or nothing."""
    if root is None:
        yield None, {}
        return
    with FixtureGitHub(root=sandbox / root) as server:
        yield (
            server,
            {
                "METAPKG_GITHUB_API_URL": server.api_url,
                "METAPKG_GITHUB_URL": server.web_url,
                "METAPKG_GITHUB_ARCHIVE_URL": server.download_url,
                "METAPKG_HTTP_BACKOFF": "0.01",
                "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
            },
        )


@pytest.mark.parametrize("attack", ATTACKS, ids=[a.stem for a in ATTACKS])
def test_attack(attack: Path, tmp_path: Path) -> None:
    spec = YAML(typ="safe").load(attack.read_text())
    sandbox = tmp_path
    files = spec.get("files", {})
    for relative, planted in files.items():
        _plant(sandbox, relative, _expand(planted, sandbox))
    project = sandbox / "project"
    project.mkdir(exist_ok=True)
    with _github(sandbox, spec.get("github")) as (server, served):
        _attack(spec, sandbox, project, files, served)
        for pattern, count in spec["expect"].get("requests", {}).items():
            assert server is not None, "requests: needs github:"
            assert server.count(pattern) == count, (pattern, server.requests)


def _attack(
    spec: dict[str, Any],
    sandbox: Path,
    project: Path,
    files: dict[str, Any],
    served: dict[str, str],
) -> None:
    expect = spec["expect"]
    watched = {p: _digest(sandbox / p) for p in expect.get("unchanged", [])}
    env = {
        "METAPKG_CACHE_DIR": str(sandbox / "cache"),
        "METAPKG_SHARED_DIR": str(sandbox / "shared"),
        **served,
        **_expand(spec.get("env", {}), sandbox),
    }
    runs = spec["run"]
    runs = runs if isinstance(runs[0], list) else [runs]
    for args in runs:
        done = _run(_expand(args, sandbox), project, env, _hang_prone(files))
        shown = f"{args}: exit {done.code}\n{done.out}\n{done.err}"
        assert "Traceback" not in done.err, shown
        assert done.code == expect.get("exit", 1), shown
        if "rule" in expect:
            said = diagnostics(done.err + done.out)  # check reports on stdout
            rules = {d.rule for d in said if d.severity == "error"}
            assert expect["rule"] in rules, shown
        for text in expect.get("stdout_lacks", []):
            assert text not in done.out, shown
        for text in expect.get("stdout_has", []):
            assert text in done.out, shown
        for text in expect.get("stderr_has", []):
            assert text in done.err, shown
        size = len((done.out + done.err).encode())
        assert size <= expect.get("output_max_bytes", size), f"{args}: {size:,} bytes of output"
        for text in expect.get("output_lacks", []):  # stdout and stderr
            assert text not in done.out + done.err, shown
        for text in expect.get("output_has", []):
            assert _expand(text, sandbox) in done.out + done.err, shown
        for text in expect.get("markdown_text_lacks", []):
            assert text not in _outside_code_blocks(done.out), shown
    for path, before in watched.items():
        assert _digest(sandbox / path) == before, f"{path} changed"
    for path in expect.get("exists", []):
        assert os.path.lexists(sandbox / path), f"{path} is gone"
    for path in expect.get("absent", []):
        assert not os.path.lexists(sandbox / path), f"{path} was written"


def test_every_attack_names_what_must_happen() -> None:
    assert len(ATTACKS) >= 20
    for attack in ATTACKS:
        spec = YAML(typ="safe").load(attack.read_text())
        assert spec.get("what") and spec.get("run") and spec.get("expect"), attack.name


def test_the_runner_plants_what_it_is_told(tmp_path: Path) -> None:
    """The planting itself (a broken planter would make every attack pass vacuously)."""
    _plant(tmp_path, "a/link", {"link": "../elsewhere"})
    _plant(tmp_path, "a/fifo", {"fifo": True})
    _plant(tmp_path, "a/text", {"text": ["x", ["[", 3]]})
    _plant(tmp_path, "a/skill", {"skill": "s"})
    assert os.readlink(tmp_path / "a/link") == "../elsewhere"
    assert (tmp_path / "a/fifo").is_fifo()
    assert (tmp_path / "a/text").read_text() == "x[[["
    assert (tmp_path / "a/skill/SKILL.md").is_file()
    assert REPO.is_dir()
