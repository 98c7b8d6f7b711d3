"""What a mirror sends is untrusted: a layer that escapes its folder, holds a link, or
differs from the lock is never published in the cache; the install falls back to the
origin with a warning. Against the real registry (docker-registry on loopback)."""

from __future__ import annotations

import gzip
import io
import tarfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import make_skill

from fixture_server.oci import RunningRegistry, start_registry, unavailable
from metapkg.fetch.cache import Cache
from metapkg.fetch.oci import artifact
from metapkg.fetch.oci.client import Registry
from metapkg.fetch.oci.mirror import Mirrors, Wanted
from metapkg.fetch.oci.reference import parse_namespace
from metapkg.integrity import tree_hash

pytestmark = pytest.mark.skipif(unavailable() is not None, reason=unavailable() or "")
COMMIT = "c" * 40


@pytest.fixture
def registry(tmp_path: Path) -> Iterator[RunningRegistry]:
    with start_registry(tmp_path / "registry") as running:
        yield running


def _layer(entries: list[tarfile.TarInfo], data: bytes = b"x\n") -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        for info in entries:
            if info.isfile():
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
            else:
                tar.addfile(info)
    return gzip.compress(raw.getvalue())


def _push(registry: RunningRegistry, wanted: Wanted, layer: bytes, space: str) -> None:
    """Push a manifest with ``layer`` where the mirror looks for ``wanted``."""
    where = parse_namespace(f"oci://{registry.host}/{space}").locate(
        wanted.kind, wanted.fqn, wanted.integrity
    )
    facts = artifact.Facts(wanted.kind, wanted.fqn, wanted.integrity)
    client = Registry(registry.host)
    try:
        config = facts.to_json()
        client.push_blob(where.repository, config)
        client.push_blob(where.repository, layer)
        body = _manifest(config, layer)  # by hand: artifact.build makes only honest layers
        client.put_manifest(where.repository, where.reference, body, artifact.MANIFEST_TYPE)
    finally:
        client.close()


def _manifest(config: bytes, layer: bytes) -> bytes:
    import hashlib
    import json

    def descriptor(media_type: str, data: bytes) -> dict[str, object]:
        return {
            "mediaType": media_type,
            "digest": "sha256:" + hashlib.sha256(data).hexdigest(),
            "size": len(data),
        }

    return json.dumps(
        {
            "schemaVersion": 2,
            "mediaType": artifact.MANIFEST_TYPE,
            "artifactType": artifact.ARTIFACT_TYPE,
            "config": descriptor(artifact.CONFIG_TYPE, config),
            "layers": [descriptor(artifact.LAYER_TYPE, layer)],
        }
    ).encode()


def _entry(name: str, kind: bytes = tarfile.REGTYPE, link: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname, info.mode = kind, link, 0o644
    return info


@pytest.mark.parametrize(
    ("entries", "why"),
    [
        ([_entry("package/SKILL.md"), _entry("package/../../escape")], "'..'"),
        (
            [_entry("package/SKILL.md"), _entry("package/x", tarfile.SYMTYPE, "/etc/passwd")],
            "regular file",
        ),
        ([_entry("/abs/SKILL.md")], "absolute"),
        ([_entry("package/SKILL.md")], "hashes to"),
    ],
)
def test_a_hostile_or_wrong_layer_is_never_published(
    registry: RunningRegistry, tmp_path: Path, entries: list[tarfile.TarInfo], why: str
) -> None:
    real = make_skill(tmp_path / "real", "x")
    wanted = Wanted("skill", "acme/x", tree_hash(real))
    _push(registry, wanted, _layer(entries), "fleet")
    cache = Cache(tmp_path / "cache")
    mirrors = Mirrors([f"oci://{registry.host}/fleet"], {(COMMIT, "skills/x"): wanted})
    try:
        found = mirrors.fetch(cache, "acme/catalog", f"{COMMIT}-part", COMMIT, "skills/x")
    finally:
        mirrors.close()
    assert found is None
    notes = mirrors.warnings()
    assert len(notes) == 1 and notes[0].rule == "mirror" and why in notes[0].message
    assert not (tmp_path / "cache" / "github").exists() or not any(
        (tmp_path / "cache" / "github").rglob("SKILL.md")
    )
    assert not (tmp_path / "escape").exists()


def test_the_locked_content_is_published_under_its_path(
    registry: RunningRegistry, tmp_path: Path
) -> None:
    real = make_skill(tmp_path / "real", "x")
    wanted = Wanted("skill", "acme/x", tree_hash(real))
    _push(registry, wanted, artifact.layer(real), "fleet")
    cache = Cache(tmp_path / "cache")
    mirrors = Mirrors([f"oci://{registry.host}/fleet"], {(COMMIT, "skills/x"): wanted})
    try:
        tree = mirrors.fetch(cache, "acme/catalog", f"{COMMIT}-part", COMMIT, "skills/x")
    finally:
        mirrors.close()
    assert tree is not None and tree_hash(tree / "skills/x") == wanted.integrity
    assert mirrors.warnings() == [] and mirrors.served == 1


def test_tags_are_listed_across_pages(registry: RunningRegistry, tmp_path: Path) -> None:
    """What an ``oci://`` origin's version ranges will choose among."""
    package = make_skill(tmp_path / "pkgs", "x")
    facts = artifact.Facts("skill", "acme/x", tree_hash(package))
    built = artifact.build(package, facts)
    client = Registry(registry.host)
    try:
        client.push_blob("team/x", built.config)
        client.push_blob("team/x", built.layer)
        for tag in ("1.0.0", "1.1.0", "2.0.0-rc.1"):
            client.put_manifest("team/x", tag, built.manifest, artifact.MANIFEST_TYPE)
        assert sorted(client.tags("team/x", page=2)) == ["1.0.0", "1.1.0", "2.0.0-rc.1"]
        assert client.tags("team/none") == []
    finally:
        client.close()
