"""Where the mirrors come from: METAPKG_MIRROR replaces metapkg.yaml's and the user
config's, which are tried in that order; a bad URL names where it was written."""

from __future__ import annotations

from pathlib import Path

import pytest

from metapkg.actions.mirrors import configured
from metapkg.diagnostics import ManifestError
from metapkg.manifest import Manifest, parse


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("METAPKG_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.delenv("METAPKG_MIRROR", raising=False)
    (tmp_path / "config").mkdir()
    return tmp_path / "config" / "config.yaml"


def _manifest(tmp_path: Path, *mirrors: str) -> Manifest:
    lines = "".join(f"  - {m}\n" for m in mirrors)
    return parse(f"mirrors:\n{lines}" if mirrors else "{}\n", tmp_path / "metapkg.yaml")


def test_project_then_user_mirrors(config: Path, tmp_path: Path) -> None:
    config.write_text("mirrors:\n  - oci://user.example/m\n  - oci://127.0.0.1:5000/team\n")
    manifest = _manifest(tmp_path, "oci://127.0.0.1:5000/team", "oci://ghcr.io/acme/mirror")
    assert configured(manifest) == (
        "oci://127.0.0.1:5000/team",
        "oci://ghcr.io/acme/mirror",
        "oci://user.example/m",
    )
    assert configured(_manifest(tmp_path)) == ("oci://user.example/m", "oci://127.0.0.1:5000/team")


def test_the_variable_replaces_them_and_off_turns_them_off(
    config: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config.write_text("mirrors: [oci://user.example/m]\n")
    manifest = _manifest(tmp_path, "oci://ghcr.io/acme/mirror")
    monkeypatch.setenv("METAPKG_MIRROR", "oci://a.example/x, oci://b.example/y")
    assert configured(manifest) == ("oci://a.example/x", "oci://b.example/y")
    monkeypatch.setenv("METAPKG_MIRROR", "off")
    assert configured(manifest) == ()


def test_bad_mirror_urls_name_where_they_were_written(
    config: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(ManifestError) as caught:
        _manifest(tmp_path, "https://ghcr.io/acme")
    assert caught.value.diagnostics[0].path == "metapkg.yaml"
    assert "oci://" in caught.value.diagnostics[0].message
    config.write_text("mirrors: [oci://UPPER.example/Bad]\n")
    with pytest.raises(ManifestError) as user:
        configured(None)
    assert user.value.diagnostics[0].path == str(config)
    monkeypatch.setenv("METAPKG_MIRROR", "ghcr.io/acme")
    with pytest.raises(ManifestError) as variable:
        configured(None)
    assert variable.value.diagnostics[0].path == "METAPKG_MIRROR"
