"""``oci://`` origins end to end through the real CLI, against a real registry (Debian's
docker-registry on loopback): add by tag, the lock pins the manifest digest, install
--frozen on an empty cache fetches by digest, a range picks the newest version tag, and
an artifact whose bytes differ from its digest is an error."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import assert_ok, make_skill
from ghfixtures import GH, make_gh

from fixture_server.oci import RunningRegistry, start_registry, unavailable

pytestmark = [
    pytest.mark.real_cli,
    pytest.mark.skipif(unavailable() is not None, reason=unavailable() or ""),
]


@pytest.fixture
def gh(tmp_path: Path) -> Iterator[GH]:
    yield from make_gh(tmp_path)


@pytest.fixture
def registry(tmp_path: Path) -> Iterator[RunningRegistry]:
    with start_registry(tmp_path / "registry") as running:
        yield running


def _publish(gh: GH, registry: RunningRegistry, tmp: Path, version: str) -> tuple[str, str]:
    """Push acme/hello at ``version`` under the tag ``version``: (reference, digest)."""
    package = make_skill(
        tmp / f"v{version}", "hello", version=version, files={"notes.md": f"v{version}\n"}
    )
    reference = f"oci://{registry.host}/team/hello:{version}"
    digest = assert_ok(gh.run("publish", str(package), reference)).out.strip()
    return reference, digest


def _installed_notes(gh: GH) -> str:
    return (gh.project / ".agents/skills/hello/notes.md").read_text()


def test_add_by_tag_pins_the_digest_and_frozen_installs_by_it(
    gh: GH, registry: RunningRegistry, tmp_path: Path
) -> None:
    gh.manifest()
    reference, digest = _publish(gh, registry, tmp_path, "1.0.0")
    assert_ok(gh.run("add", reference))
    assert reference in (gh.project / "metapkg.yaml").read_text()
    locked = gh.packages()["acme/hello"]
    assert locked["origin"] == reference and locked["commit"] == digest
    pins = gh.lock()["pins"]
    assert {"host": registry.host, "repo": "team/hello", "ref": "1.0.0", "commit": digest} in [
        dict(p) for p in pins
    ]
    assert _installed_notes(gh) == "v1.0.0\n"
    # The tag moves to other content: a frozen install on an empty cache keeps the digest.
    moved = make_skill(tmp_path / "moved", "hello", files={"notes.md": "moved\n"})
    assert_ok(gh.run("publish", str(moved), reference))
    lock_before = gh.lock_text
    gh.forget_install()
    env = {"METAPKG_CACHE_DIR": str(tmp_path / "empty-cache")}
    assert_ok(gh.install("--frozen", env=env))
    assert _installed_notes(gh) == "v1.0.0\n"
    assert gh.lock_text == lock_before
    assert_ok(gh.run("verify", env=env))


def test_a_range_picks_the_newest_version_tag_in_range(
    gh: GH, registry: RunningRegistry, tmp_path: Path
) -> None:
    gh.manifest()
    _publish(gh, registry, tmp_path, "1.0.0")
    _, newest = _publish(gh, registry, tmp_path, "1.2.0")
    _publish(gh, registry, tmp_path, "2.0.0")
    assert_ok(gh.run("add", f"oci://{registry.host}/team/hello#^1.0"))
    locked = gh.packages()["acme/hello"]
    assert locked["commit"] == newest and locked["version"] == "1.2.0"
    assert _installed_notes(gh) == "v1.2.0\n"


def test_an_artifact_whose_layer_was_tampered_with_is_an_error(
    gh: GH, registry: RunningRegistry, tmp_path: Path
) -> None:
    gh.manifest()
    reference, _ = _publish(gh, registry, tmp_path, "1.0.0")
    assert_ok(gh.run("add", reference))
    # Someone with access to the registry's storage rewrites the layer's bytes.
    storage = tmp_path / "registry"
    blobs = storage.rglob("blobs/sha256/*/*/data")
    layers = [p for p in blobs if p.read_bytes()[:2] == b"\x1f\x8b"]  # gzip: the layer
    assert layers
    for layer in layers:
        layer.write_bytes(layer.read_bytes()[:-8] + b"tampered")
    gh.forget_install()
    run = gh.install("--frozen", env={"METAPKG_CACHE_DIR": str(tmp_path / "victim")})
    assert run.code != 0
    assert "does not match its digest" in run.err, run.err
    assert not (gh.project / ".agents/skills/hello").exists()


def test_a_locked_integrity_the_artifact_does_not_match_is_an_error(
    gh: GH, registry: RunningRegistry, tmp_path: Path
) -> None:
    gh.manifest()
    reference, _ = _publish(gh, registry, tmp_path, "1.0.0")
    assert_ok(gh.run("add", reference))
    integrity = gh.packages()["acme/hello"]["integrity"]
    lock = gh.project / "metapkg.lock"
    lock.write_text(lock.read_text().replace(integrity, "sha256:" + "0" * 64))
    gh.forget_install()
    run = gh.install("--frozen", env={"METAPKG_CACHE_DIR": str(tmp_path / "other")})
    assert run.code != 0 and "error[integrity]" in run.err and "acme/hello" in run.err, run.err
    assert not (gh.project / ".agents/skills/hello").exists()


def test_remove_takes_an_oci_origin_out_of_the_manifest(
    gh: GH, registry: RunningRegistry, tmp_path: Path
) -> None:
    gh.manifest()
    reference, _ = _publish(gh, registry, tmp_path, "1.0.0")
    assert_ok(gh.run("add", reference))
    assert_ok(gh.run("remove", reference))
    assert "oci://" not in (gh.project / "metapkg.yaml").read_text()
    assert "acme/hello" not in gh.packages()


def test_update_moves_to_a_newer_version_tag_in_range(
    gh: GH, registry: RunningRegistry, tmp_path: Path
) -> None:
    gh.manifest()
    _publish(gh, registry, tmp_path, "1.0.0")
    assert_ok(gh.run("add", f"oci://{registry.host}/team/hello#^1.0"))
    assert gh.packages()["acme/hello"]["version"] == "1.0.0"
    _, newer = _publish(gh, registry, tmp_path, "1.1.0")
    assert_ok(gh.install())  # the lock's choice stands until update
    assert gh.packages()["acme/hello"]["version"] == "1.0.0"
    assert_ok(gh.run("update"))
    assert gh.packages()["acme/hello"]["commit"] == newer
    assert _installed_notes(gh) == "v1.1.0\n"
