"""``file:`` origins: read in place, every time (like a path dependency in uv)."""

from __future__ import annotations

from metapkg.fetch.source import Fetched, NotFound
from metapkg.origins import FileOrigin, Origin


class FileSource:
    def fetch(self, origin: Origin) -> Fetched:
        assert isinstance(origin, FileOrigin)
        path = origin.local_path
        if not path.exists():
            raise NotFound(origin, f"{path} does not exist")
        return Fetched(origin, path, str(path), path.name)
