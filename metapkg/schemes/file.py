"""``file:<absolute-path>`` (also ``file:///...`` and Windows drive forms). Relative
paths are allowed in the project manifest only, resolved against its folder."""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar
from urllib.parse import unquote

from metapkg.schemes.base import Origin, OriginSyntaxError

FORM = "file:<absolute-path>"
_DRIVE = re.compile(r"^/?([A-Za-z]):[/\\]")


@dataclass(frozen=True, order=True)
class FileOrigin:
    path: str  # absolute, forward slashes, no trailing slash ("/x/y" or "C:/x/y")

    scheme: ClassVar[str] = "file"
    host: ClassVar[str] = ""
    repo_id: ClassVar[str] = ""
    is_local: ClassVar[bool] = True

    def __str__(self) -> str:
        return f"file:{self.path}"

    @property
    def local_path(self) -> Path:
        return Path(self.path)

    @property
    def local(self) -> Path | None:
        return Path(self.path)

    @property
    def repository(self) -> str:
        return str(self)

    @property
    def path_text(self) -> str:
        return self.path

    def ref_keys(self) -> list[tuple[str, str]]:
        return []  # a folder on disk has no ref to pin

    def inside(self, relative: str, ref: str | None, base: str) -> Origin:
        return FileOrigin(f"{self.path}/{relative}")

    def display_repository(self, written: str) -> str:
        return self.repository

    def lock_text(self, project: Path) -> str:
        """Paths inside the project stay relative (``file:./x``), so the lock does not
        depend on where the project was cloned."""
        base = project.absolute().as_posix()
        if self.path == base:
            return "file:."
        if self.path.startswith(base + "/"):
            return "file:./" + self.path[len(base) + 1 :]
        return str(self)


class FileScheme:
    name = "file"
    forms = (FORM,)

    def claims(self, text: str) -> bool:
        return text.startswith("file:")

    def split_range(self, text: str) -> tuple[str, str | None]:
        return text, None  # a folder on disk has one version

    def parse(self, text: str, base_dir: Path | None) -> FileOrigin:
        raw = text[len("file:") :]
        if raw.startswith("//"):
            host, _, rest = raw[2:].partition("/")
            if host not in ("", "localhost"):
                raise OriginSyntaxError(
                    f"invalid file origin {text!r}: remote hosts are not supported; "
                    f"use file:<absolute-path>"
                )
            raw = unquote("/" + rest)
        raw = raw.replace("\\", "/")
        if not raw:
            raise OriginSyntaxError(f"invalid file origin {text!r}: the path is empty")
        drive = _DRIVE.match(raw)
        if drive:
            path = drive.group(1).upper() + ":" + posixpath.normpath("/" + raw[drive.end() :])
            return FileOrigin(path.rstrip("/") if len(path) > 3 else path)
        if raw.startswith("/"):
            return FileOrigin(posixpath.normpath(raw) if raw != "/" else "/")
        if base_dir is None:
            raise OriginSyntaxError(
                f"invalid file origin {text!r}: a package must use an absolute path "
                f"(file:/abs/path); relative file: origins are allowed in metapkg.yaml only"
            )
        joined = posixpath.join(base_dir.absolute().as_posix(), raw)
        return FileOrigin(posixpath.normpath(joined))
