"""Issue 29: how people get metapkg. The name "metapkg" on the Python package index is an
unrelated project (dependency confusion), so the distribution is metapkg-cli while the
import package and the command stay metapkg; the README says so before its demo."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
import tomllib
from pathlib import Path

import metapkg

REPO = Path(__file__).resolve().parent.parent
DISTRIBUTION = "metapkg-cli"


def test_the_distribution_is_metapkg_cli_with_the_metapkg_command() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["name"] == DISTRIBUTION
    assert project["scripts"] == {"metapkg": "metapkg.cli.main:main"}
    assert project["version"] == metapkg.__version__


def test_the_installed_distribution_owns_the_metapkg_package_and_command() -> None:
    dist = importlib.metadata.distribution(DISTRIBUTION)
    assert dist.version == metapkg.__version__
    scripts = {ep.name: ep.value for ep in dist.entry_points if ep.group == "console_scripts"}
    assert scripts == {"metapkg": "metapkg.cli.main:main"}
    # Once per place it is recorded (the editable install records it twice).
    assert set(importlib.metadata.packages_distributions()["metapkg"]) == {DISTRIBUTION}


def test_the_metapkg_command_answers_version() -> None:
    command = Path(sys.executable).with_name("metapkg")
    for argv in ([str(command)], [sys.executable, "-m", "metapkg"]):
        done = subprocess.run(
            [*argv, "--version"], capture_output=True, text=True, timeout=60, check=False
        )
        assert (done.returncode, done.stdout, done.stderr) == (
            0,
            f"metapkg {metapkg.__version__}\n",
            "",
        )


def test_the_readme_opens_with_the_install_command_and_the_name_warning() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    install = readme.index('uv tool install "git+https://github.com/')
    warning = readme.index("**Do not `pip install metapkg`.**")
    assert install < warning < readme.index("scripts/demo")
    assert readme.index("## Install") < readme.index("## Quick start")
    assert f"**`{DISTRIBUTION}`**" in readme
