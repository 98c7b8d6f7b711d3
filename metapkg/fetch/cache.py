"""The content cache: extracted package trees keyed by their pinned identity.

    <cache>/github/<owner>/<repo>/<commit>/     the repository tree at that commit
    <cache>/refs/<owner>/<repo>.json            last known ref -> commit (for --offline)
    <cache>/tmp/                                downloads and extractions in progress

A tree appears under its final name only by an atomic rename of a complete, verified
extraction, so a failed or interrupted download never leaves a half tree behind.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from metapkg.textio import write_atomic


def cache_root() -> Path:
    configured = os.environ.get("METAPKG_CACHE_DIR")
    if configured:
        return Path(configured).absolute()
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("metapkg", appauthor=False))


class Cache:
    def __init__(self, root: Path | None = None) -> None:
        self.root = root or cache_root()

    def tree(self, repo: str, commit: str) -> Path:
        return self.root / "github" / repo / commit

    def has_tree(self, repo: str, commit: str) -> bool:
        return self.tree(repo, commit).is_dir()

    def scratch(self, suffix: str = "") -> Path:
        """A fresh temporary path inside the cache (same file system as the trees)."""
        folder = self.root / "tmp"
        folder.mkdir(parents=True, exist_ok=True)
        handle, name = tempfile.mkstemp(dir=folder, suffix=suffix)
        os.close(handle)
        return Path(name)

    def store_tree(self, repo: str, commit: str, build: Callable[[Path], None]) -> Path:
        """Build a tree in a temporary folder with ``build``, then move it into place."""
        final = self.tree(repo, commit)
        if final.is_dir():
            return final
        (self.root / "tmp").mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(dir=self.root / "tmp", prefix="tree-"))
        try:
            build(staging)
            final.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.rename(staging, final)
            except OSError:
                if not final.is_dir():  # another process won the race: keep theirs
                    raise
        finally:
            if staging.exists():
                shutil.rmtree(staging, onerror=_make_writable_and_retry)
        return final

    def remember_refs(self, repo: str, refs: dict[str, str]) -> None:
        path = self.root / "refs" / f"{repo}.json"
        known = self.known_refs(repo)
        known.update(refs)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, json.dumps(known, sort_keys=True, indent=1))

    def known_refs(self, repo: str) -> dict[str, str]:
        try:
            data = json.loads((self.root / "refs" / f"{repo}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}

    def clean(self) -> int:
        """Delete everything; return the number of bytes freed."""
        if not self.root.exists():
            return 0
        size = sum(f.stat().st_size for f in self.root.rglob("*") if f.is_file())
        shutil.rmtree(self.root, onerror=_make_writable_and_retry)
        return size


def _make_writable_and_retry(function: Callable[..., object], path: str, _: object) -> None:
    """Cached files are read-only; some systems refuse to delete those as they are."""
    os.chmod(path, 0o700)
    function(path)
