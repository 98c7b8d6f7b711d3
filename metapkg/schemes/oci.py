"""``oci://REGISTRY/NAMESPACE/NAME[:TAG|@sha256:DIGEST]``: a package stored as an OCI
artifact (the format ``metapkg publish`` pushes, lockfile-spec.md).

A tag is a movable name, pinned in the lock by the manifest digest it named; a digest is
the content itself. A version range rides after ``#`` (``oci://reg/ns/name#^1.2``) and
chooses among the tags that are SemVer versions. Without a tag or digest the origin names
``latest``, as ``docker pull`` does. The rules for names are the distribution spec's
(metapkg/fetch/oci/reference.py holds the same ones for ``publish`` and mirrors).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import ClassVar
from urllib.parse import unquote

from metapkg.redact import redact
from metapkg.schemes.base import Origin, OriginSyntaxError

PREFIX = "oci://"
FORM = "oci://<registry>/<namespace>/<name>:<tag> (or @sha256:<digest>)"
_HOST = re.compile(r"^[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?(?::\d{1,5})?$")
_COMPONENT = re.compile(r"^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$")
_TAG = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$")
_DIGEST = re.compile(r"^sha256:[0-9a-f]{64}$")


@dataclass(frozen=True, order=True)
class OciOrigin:
    """A package in an OCI registry: its repository, and a tag or a manifest digest."""

    registry: str  # host[:port], lowercase
    name: str  # the repository on the registry: "namespace/name"
    tag: str | None = None
    digest: str | None = None  # "sha256:<hex>": the manifest's, fixed content

    scheme: ClassVar[str] = "oci"
    is_local: ClassVar[bool] = False

    def __str__(self) -> str:
        at = f"@{self.digest}" if self.digest else f":{self.tag}" if self.tag else ""
        return f"{PREFIX}{self.registry}/{self.name}{at}"

    @property
    def host(self) -> str:
        return self.registry

    @property
    def repo_id(self) -> str:
        return self.name

    @property
    def ref(self) -> str:
        """What the manifest is asked for by: the digest, else the tag (``latest``)."""
        return self.digest or self.tag or "latest"

    @property
    def repository(self) -> str:
        return f"{self.registry}/{self.name}"

    @property
    def folder_name(self) -> str:
        return self.name.rsplit("/", 1)[-1]

    @property
    def path_text(self) -> str:
        return self.name

    @property
    def local(self) -> Path | None:
        return None

    def lock_text(self, project: Path) -> str:
        return str(self)

    def ref_keys(self) -> list[tuple[str, str]]:
        # a digest needs no pin: it is the content; a tag is pinned like a git ref
        return [] if self.digest else [(self.repository, self.ref)]

    def at(self, tag: str) -> OciOrigin:
        return replace(self, tag=tag, digest=None)

    def inside(self, relative: str, ref: str | None, base: str) -> Origin:
        return self  # an artifact is one package, with nothing inside it

    def display_repository(self, written: str) -> str:
        return self.repository


class OciScheme:
    name = "oci"
    forms = (FORM,)

    def claims(self, text: str) -> bool:
        return text.lower().startswith(PREFIX)

    def split_range(self, text: str) -> tuple[str, str | None]:
        stripped = text.strip()
        if "#" not in stripped:
            return text, None
        origin, _, fragment = stripped.partition("#")
        return origin, unquote(fragment)

    def parse(self, text: str, base_dir: Path | None) -> OciOrigin:
        return parse_oci(text)


def parse_oci(text: str) -> OciOrigin:
    def bad(why: str) -> OriginSyntaxError:
        return OriginSyntaxError(f"invalid OCI origin {redact(text)!r}: {why}; use {FORM}")

    rest = text.strip()[len(PREFIX) :]
    registry, _, path = rest.partition("/")
    if "@" in registry:
        raise bad("credentials never go in an origin (use METAPKG_TOKEN_<HOST> or docker login)")
    registry = registry.lower()
    if not _HOST.match(registry):
        raise bad(f"{registry!r} is not a registry host[:port]")
    digest = tag = None
    if "@" in path:
        path, _, digest = path.partition("@")
        if not _DIGEST.match(digest):
            raise bad("a digest is sha256: and 64 lowercase hex digits")
    head, _, last = path.rpartition("/")
    if ":" in last:
        last, _, tag = last.partition(":")
        if not _TAG.match(tag):
            raise bad(f"{tag!r} is not a tag (letters, digits, '.', '_', '-')")
        path = f"{head}/{last}" if head else last
    parts = path.strip("/").split("/")
    if len(parts) < 2:
        raise bad("it names no namespace and name (REGISTRY/NAMESPACE/NAME)")
    if not all(_COMPONENT.match(part) for part in parts):
        raise bad("repository names are lowercase letters and digits separated by '.', '_', '-'")
    return OciOrigin(registry, "/".join(parts), tag, digest)
