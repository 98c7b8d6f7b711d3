"""``file:`` origins: read in place, every time (like a path dependency in uv)."""

from __future__ import annotations

from collections.abc import Iterable

from metapkg.diagnostics import Diagnostic
from metapkg.fetch.source import Fetched, Located, NotFound, Place, RefPin, Tag
from metapkg.origins import FileOrigin, Origin


class FileSource:
    def fetch(self, origin: Origin) -> Fetched:
        assert isinstance(origin, FileOrigin)  # the registry sends only file: origins here
        path = origin.local_path
        if not path.exists():
            raise NotFound(origin, f"{path} does not exist")
        return Fetched(origin, path, str(path), path.name, place=Place(str(origin), ""))

    def locate(self, origin: Origin) -> Located:
        return Located(Place(str(origin), ""))

    def versions(self, origin: Origin) -> list[Tag]:
        return []  # a folder on disk has one version: whatever is there now

    def at_hand(self, origin: Origin) -> bool:
        return True

    def used_pins(self) -> Iterable[RefPin]:
        return ()

    def warnings(self) -> list[Diagnostic]:
        return []

    def close(self) -> None:
        pass
