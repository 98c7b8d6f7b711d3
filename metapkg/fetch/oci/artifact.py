"""A package as an OCI artifact (media types documented in lockfile-spec.md).

* manifest: ``application/vnd.oci.image.manifest.v1+json``, ``artifactType``
  ``application/vnd.metapkg.package.v1``;
* config: ``application/vnd.metapkg.package.config.v1+json``, the package's lock facts
  (kind, fqn, version, origin, commit, integrity, layout);
* one layer: ``application/vnd.metapkg.package.layer.v1.tar+gzip``, the package folder
  (or its one file) under a top folder ``package/``.

The layer is deterministic: entries sorted by their UTF-8 path, mtime 0, uid/gid 0, no
user or group names, mode 0644 or 0755 (the executable bit is all the integrity keeps),
gzip with no name and mtime 0. So the same package always gives the same digests, and
pushing it again changes nothing.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import tarfile
from dataclasses import dataclass
from pathlib import Path

from metapkg.integrity import tree_files

MANIFEST_TYPE = "application/vnd.oci.image.manifest.v1+json"
ARTIFACT_TYPE = "application/vnd.metapkg.package.v1"
CONFIG_TYPE = "application/vnd.metapkg.package.config.v1+json"
LAYER_TYPE = "application/vnd.metapkg.package.layer.v1.tar+gzip"
TOP = "package"
CONFIG_CAP = 64 * 1024
# The manifest says whether the layer is a folder or one file, so an install needs only
# the manifest and the layer (two requests), not the config too.
LAYOUT_ANNOTATION = "dev.metapkg.package.layout"


@dataclass(frozen=True)
class Facts:
    """What the config blob says of the package (its lock entry)."""

    kind: str
    fqn: str
    integrity: str
    version: str | None = None
    origin: str | None = None
    commit: str | None = None
    layout: str = "folder"  # "folder", or "file" (an MCP server's one .json file)

    def to_json(self) -> bytes:
        data = {
            "kind": self.kind,
            "fqn": self.fqn,
            "version": self.version,
            "origin": self.origin,
            "commit": self.commit,
            "integrity": self.integrity,
            "layout": self.layout,
        }
        return json.dumps(data, sort_keys=True, separators=(",", ":")).encode("utf-8")


class BadArtifact(ValueError):
    """The manifest or config is not a metapkg package; the message says what is off."""


@dataclass(frozen=True)
class Built:
    config: bytes
    layer: bytes
    manifest: bytes

    @property
    def digest(self) -> str:
        return "sha256:" + hashlib.sha256(self.manifest).hexdigest()


def layer(package: Path) -> bytes:
    """The deterministic tar.gz of a package folder (or file), under ``package/``."""
    files = tree_files(package)  # sorted by UTF-8 path; a file package is its one file
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        folders: set[str] = set()
        for relative, path, executable in files:
            parts = relative.split("/")
            for depth in range(1, len(parts)):
                folder = "/".join(parts[:depth])
                if folder not in folders:
                    folders.add(folder)
                    tar.addfile(_info(f"{TOP}/{folder}", tarfile.DIRTYPE, 0o755, 0))
            content = path.read_bytes()
            info = _info(
                f"{TOP}/{relative}", tarfile.REGTYPE, 0o755 if executable else 0o644, len(content)
            )
            tar.addfile(info, io.BytesIO(content))
    out = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=out, mtime=0) as zipped:
        zipped.write(raw.getvalue())
    return out.getvalue()


def _info(name: str, kind: bytes, mode: int, size: int) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.mode = mode
    info.size = size
    info.mtime = 0
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    return info


def build(package: Path, facts: Facts) -> Built:
    config = facts.to_json()
    data = layer(package)
    manifest = {
        "schemaVersion": 2,
        "mediaType": MANIFEST_TYPE,
        "artifactType": ARTIFACT_TYPE,
        "config": _descriptor(CONFIG_TYPE, config),
        "layers": [_descriptor(LAYER_TYPE, data)],
        "annotations": {
            LAYOUT_ANNOTATION: facts.layout,
            "org.opencontainers.image.title": facts.fqn,
            **({"org.opencontainers.image.version": facts.version} if facts.version else {}),
        },
    }
    body = json.dumps(manifest, sort_keys=True, separators=(",", ":")).encode("utf-8")
    return Built(config, data, body)


def _descriptor(media_type: str, data: bytes) -> dict[str, object]:
    return {
        "mediaType": media_type,
        "digest": "sha256:" + hashlib.sha256(data).hexdigest(),
        "size": len(data),
    }


@dataclass(frozen=True)
class Parsed:
    config_digest: str
    layer_digest: str
    layer_size: int
    layout: str = "folder"


def parse_manifest(data: bytes) -> Parsed:
    """The config and layer a metapkg manifest names; BadArtifact for anything else."""
    try:
        manifest = json.loads(data)
    except ValueError:
        raise BadArtifact("the manifest is not JSON") from None
    if not isinstance(manifest, dict) or manifest.get("artifactType") != ARTIFACT_TYPE:
        raise BadArtifact(f"the manifest's artifactType is not {ARTIFACT_TYPE}")
    config, layers = manifest.get("config"), manifest.get("layers")
    if not isinstance(config, dict) or config.get("mediaType") != CONFIG_TYPE:
        raise BadArtifact(f"the manifest's config is not {CONFIG_TYPE}")
    if not (isinstance(layers, list) and len(layers) == 1 and isinstance(layers[0], dict)):
        raise BadArtifact("a metapkg package has exactly one layer")
    only = layers[0]
    if only.get("mediaType") != LAYER_TYPE:
        raise BadArtifact(f"the layer is not {LAYER_TYPE}")
    digests = (config.get("digest"), only.get("digest"))
    size = only.get("size")
    if not all(isinstance(d, str) and d.startswith("sha256:") for d in digests):
        raise BadArtifact("a descriptor's digest is not sha256")
    if not isinstance(size, int) or size < 0:
        raise BadArtifact("the layer's size is missing")
    annotations = manifest.get("annotations")
    layout = annotations.get(LAYOUT_ANNOTATION) if isinstance(annotations, dict) else None
    if layout not in (None, "folder", "file"):
        raise BadArtifact(f"the manifest's layout {layout!r} is not folder or file")
    return Parsed(str(digests[0]), str(digests[1]), size, layout or "folder")


def parse_config(data: bytes) -> Facts:
    try:
        config = json.loads(data)
    except ValueError:
        raise BadArtifact("the config is not JSON") from None
    if not isinstance(config, dict):
        raise BadArtifact("the config is not an object")
    fields = ("kind", "fqn", "integrity")
    if not all(isinstance(config.get(name), str) for name in fields):
        raise BadArtifact("the config lacks kind, fqn or integrity")
    layout = config.get("layout", "folder")
    if layout not in ("folder", "file"):
        raise BadArtifact(f"the config's layout {layout!r} is not folder or file")

    def text(name: str) -> str | None:
        value = config.get(name)
        return value if isinstance(value, str) else None

    return Facts(
        config["kind"],
        config["fqn"],
        config["integrity"],
        text("version"),
        text("origin"),
        text("commit"),
        layout,
    )
