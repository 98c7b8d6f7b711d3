"""Shared test helpers: run the real CLI in a subprocess, build packages in temp dirs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "registry-fixtures"
CATALOGS = FIXTURES / "catalogs"


@dataclass
class Run:
    code: int
    out: str
    err: str

    @property
    def json(self) -> Any:
        return json.loads(self.out)


def run_cli(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None,
            timeout: float = 60) -> Run:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith(("METAPKG_", "GITHUB_TOKEN", "GH_TOKEN"))}
    full_env["NO_COLOR"] = "1"
    full_env.update(env or {})
    proc = subprocess.run(
        [sys.executable, "-m", "metapkg", *args],
        cwd=cwd or REPO,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return Run(proc.returncode, proc.stdout, proc.stderr)


@pytest.fixture
def cli(tmp_path: Path) -> Any:
    """run_cli with isolated cache and shared dirs under tmp_path."""
    base_env = {
        "METAPKG_CACHE_DIR": str(tmp_path / "cache"),
        "METAPKG_SHARED_DIR": str(tmp_path / "shared"),
    }

    def run(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> Run:
        return run_cli(*args, cwd=cwd, env={**base_env, **(env or {})})

    return run
