"""``tag-version`` for a local checkout: the version tag at a git repository's HEAD names
another version than the package there declares.

Install already refuses a fetched tag whose package says another version
(resolve/node.tag_disagrees); ``check`` says it before the release is pushed. It asks
git once per repository (``git tag --points-at HEAD``), and nothing at all for a folder
outside a git repository or where git is not installed. Which tags speak for a package
follows fetch/tags.py: tags of the package's own form (``<folder>@1.2.3``,
``<folder>/v1.2.3``) wherever it is in the repository; plain tags (``v1.2.3``) only for the
package at the repository's top, since in a catalog they name no one package.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterable
from pathlib import Path

from metapkg.diagnostics import Diagnostic, warning
from metapkg.fetch.tags import tag_version
from metapkg.packages.semver import SemVer
from metapkg.profiles.base import Target


def tag_findings(targets: Iterable[Target]) -> list[Diagnostic]:
    found = []
    asked: dict[Path, tuple[str, ...]] = {}  # repository top -> its HEAD's tags, this run
    for target in targets:
        folder = (target.path if target.path.is_dir() else target.path.parent).resolve()
        top = _repository(folder)
        if top is None:
            continue
        if top not in asked:
            asked[top] = _head_tags(top)
        if asked[top]:
            found.extend(_disagreements(target, asked[top], folder == top))
    return found


def _disagreements(target: Target, tags: tuple[str, ...], at_top: bool) -> list[Diagnostic]:
    own = (f"{target.folder_name}@", f"{target.folder_name}/")
    speaking = [tag for tag in tags if tag.startswith(own) or at_top]
    named = [(tag, v) for tag in speaking if (v := tag_version(tag, target.folder_name))]
    if not named:
        return []
    version, where = _declared(target)
    declared = SemVer.parse(version) if version else None
    if declared is None:
        return []
    return [
        warning(
            "tag-version",
            where,
            f"HEAD of this git checkout is tagged {tag}, which names version {found}, but "
            f"the package says {version}; retag the release, or fix the version (and its "
            f"CHANGELOG entry) before pushing the tag",
        )
        for tag, found in named
        if found != declared
    ]


def _declared(target: Target) -> tuple[str | None, str]:
    """The version the package declares (MetaAgents ``version``, else Agent Skills
    ``metadata.version``), and how findings name its manifest file."""
    from metapkg.packages.load import MANIFEST_FILES, load_package

    loaded = load_package(target.path, target.display, target.kind, target.folder_name)
    package = loaded.package
    manifest = MANIFEST_FILES.get(target.kind)
    where = f"{target.display}/{manifest}" if manifest and target.path.is_dir() else target.display
    if package is None:
        return None, where
    return package.version or package.metadata_version, where


def _repository(folder: Path) -> Path | None:
    """The top of the git working tree holding ``folder`` (a ``.git`` folder or, in a
    worktree or submodule, a ``.git`` file), or None."""
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


def _head_tags(top: Path) -> tuple[str, ...]:
    git = shutil.which("git")
    if git is None:
        return ()
    try:
        done = subprocess.run(
            [git, "-C", str(top), "tag", "--points-at", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return ()
    return tuple(done.stdout.split()) if done.returncode == 0 else ()
