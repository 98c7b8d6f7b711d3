"""``--global``: the user-scope manifest, started on first use.

Its metapkg.yaml, metapkg.lock and ``.metapkg/`` state live in ``settings.global_dir()``
(the user config directory); the first ``install --global`` or ``add --global`` writes a
starter there whose targets are the hosts the user already has (their user-level folders
exist), else the default targets.
"""

from __future__ import annotations

from pathlib import Path

from metapkg import manifest
from metapkg.actions.edit import starter
from metapkg.diagnostics import UsageError
from metapkg.provision import scope as scopes
from metapkg.textio import write_atomic

HEADER = """\
# metapkg.yaml of the user scope: what `metapkg install --global` puts in each host's
# user-level folders. Edit by hand or with `metapkg add --global` / `metapkg remove --global`.
"""


def manifest_folder(create: bool) -> tuple[Path, tuple[str, ...] | None]:
    """The user-scope folder, and the targets of a starter manifest written just now
    (None: it was there). Without ``create``, a missing manifest is a usage error."""
    scope = scopes.user()
    path = scope.base / manifest.FILENAME
    if path.is_file():
        return scope.base, None
    if not create:
        raise UsageError.single(
            "usage",
            str(path),
            "nothing is installed with --global yet (no metapkg.yaml here); start with "
            "`metapkg add --global SOURCE` or `metapkg install --global`",
        )
    targets = scopes.detect_user_hosts(scope) or manifest.DEFAULT_TARGETS
    text = HEADER + starter(targets).split("\n", 1)[1]  # the header replaces its first line
    scope.base.mkdir(parents=True, exist_ok=True)
    write_atomic(path, text)
    return scope.base, targets
