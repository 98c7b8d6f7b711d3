"""OCI registries end to end, against a real registry (Debian's docker-registry, the CNCF
distribution server, on loopback): publish, mirror, and installs that fetch locked
packages from the mirror first, with 0 requests to the fixture GitHub, falling back to
the origin (with a warning) when the mirror's copy is not the locked package."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import assert_ok, diagnostics, make_skill
from ghfixtures import GH, make_gh, origin, skill_origin

from fixture_server.oci import RunningRegistry, start_registry, unavailable
from metapkg.fetch.oci.credentials import variable

pytestmark = [
    pytest.mark.real_cli,
    pytest.mark.skipif(unavailable() is not None, reason=unavailable() or ""),
]
ARCHIVES = r"tarball|tar\.gz"


@pytest.fixture
def gh(tmp_path: Path) -> Iterator[GH]:
    yield from make_gh(tmp_path, web=True)


@pytest.fixture
def registry(tmp_path: Path) -> Iterator[RunningRegistry]:
    with start_registry(tmp_path / "registry") as running:
        yield running


def _project(gh: GH) -> None:
    gh.repo(
        "acme/catalog",
        {
            "v1": {
                "skills": {
                    "review": {},
                    "lint": {"skills": [skill_origin("acme/catalog", "main", "review")]},
                }
            }
        },
    )
    gh.repo("acme/solo", {"v1": {"skills": {"solo": {}}, "mcps": {"io.github.acme/weather": {}}}})
    gh.manifest(
        skills=[
            skill_origin("acme/catalog", "main", "lint"),
            skill_origin("acme/solo", "main", "solo"),
        ],
        mcps=[origin("acme/solo", "main", "mcps/io.github.acme_weather.json")],  # one file
    )
    assert_ok(gh.install())


def _fresh_machine(gh: GH, name: str) -> dict[str, str]:
    """A runner with an empty download cache and no provisioned files."""
    gh.forget_install()
    return {"METAPKG_CACHE_DIR": str(gh.tmp / name)}


def test_mirror_then_frozen_install_asks_github_nothing(gh: GH, registry: RunningRegistry) -> None:
    _project(gh)
    mirror = f"oci://{registry.host}/fleet"
    pushed = assert_ok(gh.run("mirror", mirror, "--json")).json
    assert len(pushed["pushed"]) == 4 and not pushed["present"]
    again = assert_ok(gh.run("mirror", mirror, "--json")).json
    assert not again["pushed"] and len(again["present"]) == 4  # idempotent: nothing re-pushed
    lock_before = gh.lock_text
    gh.server.clear_log()
    env = {**_fresh_machine(gh, "runner-cache"), "METAPKG_MIRROR": mirror}
    run = assert_ok(gh.install("--frozen", env=env))
    assert gh.server.requests == [], [r.path for r in gh.server.requests]
    assert "warning" not in run.err
    assert gh.lock_text == lock_before
    assert (gh.project / ".agents/skills/review/SKILL.md").is_file()
    assert "weather" in (gh.project / ".mcp.json").read_text()
    assert_ok(gh.run("verify"))
    # A cached copy edited after the fact is fetched again, from the mirror.
    cached = next((gh.tmp / "runner-cache").rglob("skills/review/SKILL.md"))
    cached.chmod(0o644)
    cached.write_text(cached.read_text() + "tampered\n")
    gh.forget_install()
    assert_ok(gh.install("--frozen", env=env))
    assert gh.server.requests == []
    assert "tampered" not in (gh.project / ".agents/skills/review/SKILL.md").read_text()


def test_the_manifest_mirrors_setting_is_used(gh: GH, registry: RunningRegistry) -> None:
    _project(gh)
    mirror = f"oci://{registry.host}/team"
    assert_ok(gh.run("mirror", mirror))
    manifest = gh.project / "metapkg.yaml"
    manifest.write_text(manifest.read_text() + f"mirrors:\n  - {mirror}\n")
    assert_ok(gh.run("lock"))
    gh.server.clear_log()
    assert_ok(gh.install("--frozen", env=_fresh_machine(gh, "second")))
    assert gh.count(ARCHIVES) == 0 and gh.server.requests == []


def test_a_package_missing_from_the_mirror_comes_from_github(
    gh: GH, registry: RunningRegistry
) -> None:
    _project(gh)
    mirror = f"oci://{registry.host}/fleet"
    assert_ok(gh.run("mirror", mirror))
    gh.server.clear_log()
    env = {**_fresh_machine(gh, "elsewhere"), "METAPKG_MIRROR": f"oci://{registry.host}/empty"}
    run = assert_ok(gh.install("--frozen", env=env))
    assert gh.count(ARCHIVES) == 2  # catalog and solo, as with no mirror at all
    assert "warning" not in run.err  # not mirrored is not a fault


def test_a_mirror_copy_that_differs_from_the_lock_falls_back_with_a_warning(
    gh: GH, registry: RunningRegistry, tmp_path: Path
) -> None:
    _project(gh)
    mirror = f"oci://{registry.host}/fleet"
    integrity = gh.packages()["acme/solo"]["integrity"]
    tag = integrity.replace(":", "-")
    # Someone pushed other content under the locked package's name and tag.
    other = make_skill(tmp_path / "evil", "solo", files={"notes.md": "Do something else.\n"})
    target = f"oci://{registry.host}/fleet/skill/acme/solo:{tag}"
    assert_ok(gh.run("publish", str(other), target))
    gh.server.clear_log()
    env = {**_fresh_machine(gh, "victim"), "METAPKG_MIRROR": mirror}
    run = assert_ok(gh.install("--frozen", env=env))
    warned = [d for d in diagnostics(run.err) if d.rule == "mirror"]
    assert (
        warned
        and "acme/solo" in warned[0].message
        and "not the locked package" in warned[0].message
    )
    assert gh.count(ARCHIVES) >= 1  # the origin gave the real content
    assert gh.packages()["acme/solo"]["integrity"] == integrity
    assert_ok(gh.run("verify"))


def test_publish_prints_the_digest_and_is_deterministic(
    gh: GH, registry: RunningRegistry, tmp_path: Path
) -> None:
    package = make_skill(tmp_path / "pkgs", "hello")
    target = f"oci://{registry.host}/team/hello:1.0.0"
    first = assert_ok(gh.run("publish", str(package), target))
    digest = first.out.strip()
    assert digest.startswith("sha256:") and len(digest) == 71
    second = assert_ok(gh.run("publish", str(package), target, "--json")).json
    assert second["digest"] == digest and second["fqn"] == "acme/hello"


def test_publish_refuses_a_package_check_fails(
    gh: GH, registry: RunningRegistry, tmp_path: Path
) -> None:
    package = make_skill(tmp_path / "pkgs", "broken")
    (package / "CHANGELOG.md").unlink()
    before = registry.requests()
    run = gh.run("publish", str(package), f"oci://{registry.host}/team/broken:1.0.0")
    assert run.code != 0 and "changelog-missing" in run.err
    assert registry.requests() == before


@pytest.mark.skipif(unavailable(auth=True) is not None, reason=unavailable(auth=True) or "")
def test_a_registry_behind_basic_auth(gh: GH, tmp_path: Path) -> None:
    with start_registry(tmp_path / "private", users={"ci": "s3cret"}) as private:
        _project(gh)
        mirror = f"oci://{private.host}/fleet"
        refused = gh.run("mirror", mirror)
        assert refused.code != 0
        assert variable(private.host) in refused.err and "s3cret" not in refused.err
        creds = {variable(private.host): "ci:s3cret"}
        assert_ok(gh.run("mirror", mirror, env=creds))
        gh.server.clear_log()
        # without the credential the mirror refuses: a warning, then the origin
        env = {**_fresh_machine(gh, "no-creds"), "METAPKG_MIRROR": mirror}
        run = assert_ok(gh.install("--frozen", env=env))
        assert any(d.rule == "mirror" for d in diagnostics(run.err))
        assert gh.count(ARCHIVES) == 2
        gh.server.clear_log()
        env = {**_fresh_machine(gh, "with-creds"), "METAPKG_MIRROR": mirror, **creds}
        assert_ok(gh.install("--frozen", env=env))
        assert gh.server.requests == []


@pytest.mark.skipif(unavailable(auth=True) is not None, reason=unavailable(auth=True) or "")
def test_docker_config_credentials_are_used(gh: GH, tmp_path: Path) -> None:
    import base64
    import json

    with start_registry(tmp_path / "private", users={"ci": "pw"}) as private:
        docker = tmp_path / "docker"
        docker.mkdir()
        auth = base64.b64encode(b"ci:pw").decode()
        (docker / "config.json").write_text(json.dumps({"auths": {private.host: {"auth": auth}}}))
        package = make_skill(tmp_path / "pkgs", "hello")
        run = gh.run(
            "publish",
            str(package),
            f"oci://{private.host}/team/hello:1.0.0",
            env={"DOCKER_CONFIG": str(docker)},
        )
        assert_ok(run)
