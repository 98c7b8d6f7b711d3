"""The environment an allowed command gets: built from an allow-list, never inherited.

A metaskill's command must not see the user's tokens (GITHUB_TOKEN, cloud keys) nor be
steered by variables that change what a program runs or loads (GIT_*, LD_*, PYTHON*,
PYTEST_ADDOPTS, RIPGREP_CONFIG_PATH...). So only the variables below pass, and none
whose name says it holds a secret; PATH keeps only absolute folders (an empty or
relative entry would find programs in the project folder). The program's own rule adds
what it needs (git's: no system or global config, no editor, no pager, no network).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

_PASSED_NAMES = (
    "PATH HOME USER LOGNAME LANG LANGUAGE TERM TMPDIR TEMP TMP TZ COLUMNS LINES NO_COLOR "
    "SYSTEMROOT SYSTEMDRIVE WINDIR COMSPEC PATHEXT"
)
PASSED = frozenset(_PASSED_NAMES.split())
PASSED_PREFIXES = ("LC_",)
SECRET = re.compile(r"TOKEN|SECRET|KEY|PASSW|CREDENTIAL|AUTH|COOKIE|SESSION", re.IGNORECASE)


def command_environment(
    inherited: Mapping[str, str], extra: Mapping[str, str] | None = None
) -> dict[str, str]:
    kept = {
        name: value
        for name, value in inherited.items()
        if (name.upper() in PASSED or name.upper().startswith(PASSED_PREFIXES))
        and not SECRET.search(name)
    }
    if "PATH" in kept:
        kept["PATH"] = safe_path(kept["PATH"])
    kept.update(extra or {})
    return kept


def safe_path(value: str) -> str:
    return os.pathsep.join(
        folder for folder in value.split(os.pathsep) if folder and os.path.isabs(folder)
    )
