"""``oci://REGISTRY/REPOSITORY[:TAG|@sha256:DIGEST]`` and the names ``mirror`` derives.

A mirror needs no index: the repository and tag of a locked package are computed from
its lock entry alone (kind, fqn, integrity), by ``mirror`` when it pushes and by
``install`` when it looks, so both always agree.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SCHEME = "oci://"
_HOST = re.compile(
    r"^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$"
)
_COMPONENT = re.compile(r"^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$")
_TAG = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$")
_DIGEST = re.compile(r"^sha256:[0-9a-f]{64}$")
_LOOPBACK = re.compile(r"^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])(?::\d+)?$")


class BadReference(ValueError):
    """Not an ``oci://`` reference metapkg can use; the message says why and the form."""


@dataclass(frozen=True)
class Reference:
    registry: str  # host[:port], lowercase
    repository: str  # "team/skills/review": lowercase components joined by "/"
    tag: str | None = None
    digest: str | None = None  # "sha256:<hex>"

    @property
    def reference(self) -> str:
        """What the manifest is asked for by: the digest when given, else the tag."""
        return self.digest or self.tag or "latest"

    def __str__(self) -> str:
        at = f"@{self.digest}" if self.digest else f":{self.tag}" if self.tag else ""
        return f"{SCHEME}{self.registry}/{self.repository}{at}"


@dataclass(frozen=True)
class Namespace:
    """``oci://REGISTRY/NAMESPACE``: where ``mirror`` pushes and installs look."""

    registry: str
    path: str  # "" for the registry's root

    def __str__(self) -> str:
        return f"{SCHEME}{self.registry}/{self.path}".rstrip("/")

    def locate(self, kind: str, fqn: str, integrity: str) -> Reference:
        """Where the locked package (kind, fqn, integrity) is kept in this mirror."""
        parts = [self.path] if self.path else []
        repository = "/".join([*parts, kind, *_components(fqn)])
        return Reference(self.registry, repository, tag=integrity_tag(integrity))


def base_url(registry: str) -> str:
    """HTTPS, except on loopback (a registry a test or a developer runs locally, as
    Docker treats ``localhost``)."""
    return f"{'http' if _LOOPBACK.match(registry) else 'https'}://{registry}"


def integrity_tag(integrity: str) -> str:
    """A lock integrity (``sha256:<hex>``) as a tag (``sha256-<hex>``): tags may not hold
    ``:``. The tag names the content, so two fqns sanitised alike never share content."""
    algorithm, _, hexdigest = integrity.partition(":")
    return f"{algorithm}-{hexdigest}"


def parse(text: str) -> Reference:
    registry, path = _split(text)
    digest = tag = None
    if "@" in path:
        path, _, digest = path.partition("@")
        if not _DIGEST.match(digest):
            raise BadReference(f"{text!r}: a digest is sha256: and 64 lowercase hex digits")
    last = path.rsplit("/", 1)[-1]
    if ":" in last:
        path, _, tag = path.rpartition(":")
        if not _TAG.match(tag):
            raise BadReference(f"{text!r}: {tag!r} is not a tag (letters, digits, . _ -)")
    _check_repository(text, path)
    return Reference(registry, path, tag, digest)


def parse_namespace(text: str) -> Namespace:
    registry, path = _split(text, allow_empty=True)
    if path:
        _check_repository(text, path)
    return Namespace(registry, path)


def _split(text: str, allow_empty: bool = False) -> tuple[str, str]:
    if not text.startswith(SCHEME):
        raise BadReference(f"{text!r} is not an oci:// reference (oci://REGISTRY/NAMESPACE/NAME)")
    registry, _, path = text[len(SCHEME) :].partition("/")
    if not _HOST.match(registry):
        raise BadReference(f"{text!r}: {registry!r} is not a registry host[:port]")
    path = path.strip("/")
    if not path and not allow_empty:
        raise BadReference(f"{text!r} names no repository (oci://REGISTRY/NAMESPACE/NAME:TAG)")
    return registry.lower(), path


def _check_repository(text: str, path: str) -> None:
    if not all(_COMPONENT.match(part) for part in path.split("/")):
        raise BadReference(
            f"{text!r}: repository names are lowercase letters and digits separated by "
            f"'.', '_', '-' and '/'"
        )


def _components(fqn: str) -> list[str]:
    """An fqn as repository path components: lowercase, anything else a '-'."""
    found = []
    for part in fqn.lower().split("/"):
        cleaned = re.sub(r"[^a-z0-9]+", "-", part).strip("-") or "x"
        found.append(cleaned)
    return found
