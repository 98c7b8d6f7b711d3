"""Any git forge through the real CLI, against a loopback forge running `git http-backend`
(tests/gitforge.py) under GitLab, Gitea/Forgejo, Bitbucket and Azure DevOps URL layouts."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import make_skill
from gitforge import Forge, git

from metapkg.lock import format as lockfmt

pytestmark = pytest.mark.skipif(
    __import__("shutil").which("git") is None, reason="needs the git program"
)


@pytest.fixture
def forge(tmp_path: Path) -> Iterator[Forge]:
    served = Forge(tmp_path / "forge").start()
    yield served
    served.stop()


def _catalog(tmp_path: Path, version: str = "1.0.0") -> Path:
    work = tmp_path / "work"
    make_skill(work, "git-pr", version=version)
    return work


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    project.mkdir(exist_ok=True)
    (project / "metapkg.yaml").write_text("dependencies: {}\n")
    return project


# repository path on the forge -> how a user pastes a folder of it
LAYOUTS = {
    "gitlab": ("acme/tools/catalog.git", "{url}/acme/tools/catalog/-/tree/main/skills/git-pr"),
    "gitea": ("acme/catalog.git", "{url}/acme/catalog/src/branch/main/skills/git-pr"),
    "bitbucket": ("ws/catalog.git", "{url}/ws/catalog/src/main/skills/git-pr"),
    "azure": (
        "org/proj/_git/catalog",
        "{url}/org/proj/_git/catalog?path=/skills/git-pr&version=GBmain",
    ),
    "pip": ("team/catalog.git", "git+{url}/team/catalog.git@main#subdirectory=skills/git-pr"),
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_add_install_remove_round_trip(cli, tmp_path: Path, forge: Forge, layout: str) -> None:
    repo, pasted = LAYOUTS[layout]
    commit = forge.publish(repo, _catalog(tmp_path))
    project = _project(tmp_path)
    added = cli("add", pasted.format(url=forge.url), cwd=project)
    assert added.code == 0, added.err
    manifest = (project / "metapkg.yaml").read_text()
    clone = f"{forge.url}/{repo}"
    assert f"git+{clone}@main#subdirectory=skills/git-pr" in manifest
    assert (project / ".agents/skills/git-pr/SKILL.md").is_file()
    lock = lockfmt.read(project / "metapkg.lock")
    assert lock is not None
    pins = [(p.host, p.repo, p.ref, p.commit) for p in lock.pins]
    assert pins == [(forge.host, repo.removesuffix(".git"), "main", commit)]
    removed = cli("remove", "acme/git-pr", cwd=project)
    assert removed.code == 0, removed.err
    assert "git-pr" not in (project / "metapkg.yaml").read_text()
    assert not (project / ".agents/skills/git-pr").exists()


def _release(forge: Forge, tmp_path: Path, repo: str, versions: list[str]) -> dict[str, str]:
    """Publish ``versions`` of the git-pr skill in turn, each tagged v<version>."""
    work = tmp_path / "work"
    commits = {}
    for version in versions:
        make_skill(work, "git-pr", version=version)
        commits[version] = forge.publish(repo, work, tags=(f"v{version}",))
    return commits


def test_a_range_over_tags_on_another_forge(cli, tmp_path: Path, forge: Forge) -> None:
    commits = _release(forge, tmp_path, "acme/tools/catalog.git", ["1.0.0", "1.2.0", "2.0.0"])
    project = _project(tmp_path)
    pasted = f"{forge.url}/acme/tools/catalog/-/tree/main/skills/git-pr#^1.0"
    added = cli("add", pasted, cwd=project)
    assert added.code == 0, added.err
    manifest = (project / "metapkg.yaml").read_text()
    assert "@main#subdirectory=skills/git-pr&range=^1.0" in manifest
    lock = lockfmt.read(project / "metapkg.lock")
    assert lock is not None
    [package] = lock.packages
    assert package.commit == commits["1.2.0"]
    assert "version: 1.2.0" in (project / ".agents/skills/git-pr/SKILL.md").read_text()
    assert package.origin.endswith("catalog.git@v1.2.0#subdirectory=skills/git-pr")
    assert {(p.host, p.ref) for p in lock.pins} == {(forge.host, "main"), (forge.host, "v1.2.0")}


def test_install_frozen_asks_the_forge_for_no_ref(cli, tmp_path: Path, forge: Forge) -> None:
    _release(forge, tmp_path, "acme/catalog.git", ["1.0.0"])
    project = _project(tmp_path)
    pasted = f"git+{forge.url}/acme/catalog.git@v1.0.0#subdirectory=skills/git-pr"
    assert cli("add", pasted, cwd=project).code == 0
    locked = (project / "metapkg.lock").read_bytes()
    _release(forge, tmp_path, "acme/catalog.git", ["1.1.0"])  # main moved on
    forge.seen.clear()
    fresh = {"METAPKG_CACHE_DIR": str(tmp_path / "cold-cache")}
    run = cli("install", "--frozen", cwd=project, env=fresh)
    assert run.code == 0, run.err
    assert not [s for s in forge.seen if s.path.endswith("/info/refs")]  # pins only
    assert (project / "metapkg.lock").read_bytes() == locked
    assert "version: 1.0.0" in (project / ".agents/skills/git-pr/SKILL.md").read_text()


def _token_variable(forge: Forge) -> str:
    return "METAPKG_TOKEN_127_0_0_1_" + forge.host.rsplit(":", 1)[1]


@pytest.fixture
def other_forge(tmp_path: Path) -> Iterator[Forge]:
    served = Forge(tmp_path / "other-forge").start()
    yield served
    served.stop()


def test_a_private_repository_takes_its_hosts_token_and_no_other(
    cli, tmp_path: Path, forge: Forge, other_forge: Forge
) -> None:
    forge.private["acme/private.git"] = ("alice", "s3cret-token")
    forge.publish("acme/private.git", _catalog(tmp_path))
    make_skill(tmp_path / "work2", "linter")
    other_forge.publish("team/public.git", tmp_path / "work2")
    project = _project(tmp_path)
    private = f"git+{forge.url}/acme/private.git@main#subdirectory=skills/git-pr"
    public = f"git+{other_forge.url}/team/public.git@main#subdirectory=skills/linter"

    refused = cli("add", private, cwd=project)
    assert refused.code == 1 and "Traceback" not in refused.err
    assert _token_variable(forge) in refused.err and "private repository" in refused.err

    env = {_token_variable(forge): "alice:s3cret-token"}
    assert cli("add", private, cwd=project, env=env).code == 0
    other_forge.seen.clear()
    added = cli("add", public, cwd=project, env=env)
    assert added.code == 0, added.err
    assert (project / ".agents/skills/linter/SKILL.md").is_file()
    assert other_forge.seen and all(s.authorization is None for s in other_forge.seen)
    assert any(s.authorization for s in forge.seen)  # the private one was reached with it

    # A fresh cache: the commit is pinned, so git itself needs the token for the content.
    cold = {**env, "METAPKG_CACHE_DIR": str(tmp_path / "cold")}
    assert cli("install", "--frozen", cwd=project, env=cold).code == 0


def test_a_wrong_token_is_refused_and_never_shown(cli, tmp_path: Path, forge: Forge) -> None:
    forge.private["acme/private.git"] = ("alice", "s3cret-token")
    forge.publish("acme/private.git", _catalog(tmp_path))
    project = _project(tmp_path)
    private = f"git+{forge.url}/acme/private.git@main#subdirectory=skills/git-pr"
    run = cli("add", private, cwd=project, env={_token_variable(forge): "alice:wrong-one-42"})
    assert run.code == 1 and "refused the credential" in run.err
    assert "wrong-one-42" not in run.err + run.out


def test_git_credential_helpers_come_first(cli, tmp_path: Path, forge: Forge) -> None:
    forge.private["acme/private.git"] = ("bob", "from-helper")
    forge.publish("acme/private.git", _catalog(tmp_path))
    store = tmp_path / "credentials"
    store.write_text(f"http://bob:from-helper@{forge.host}\n")
    config = tmp_path / "gitconfig"
    git("config", "--file", str(config), "credential.helper", f"store --file={store}", cwd=tmp_path)
    project = _project(tmp_path)
    private = f"git+{forge.url}/acme/private.git@main#subdirectory=skills/git-pr"
    env = {"GIT_CONFIG_GLOBAL": str(config), _token_variable(forge): "alice:not-this-one"}
    run = cli("add", private, cwd=project, env=env)
    assert run.code == 0, run.err
    assert (project / ".agents/skills/git-pr/SKILL.md").is_file()


def test_an_ssh_origin_is_fetched_through_the_users_ssh(cli, tmp_path: Path, forge: Forge) -> None:
    """git@HOST:PATH.git through git's ssh transport; the "ssh" here is a script that runs
    git-upload-pack on the forge's folder, so nothing leaves the machine."""
    commit = forge.publish("acme/catalog.git", _catalog(tmp_path))
    fake_ssh = tmp_path / "fake-ssh"
    fake_ssh.write_text(
        "#!/bin/sh\n"
        "for last; do :; done\n"
        f"cd '{forge.root}' || exit 1\n"
        f'exec sh -c "$(printf \'%s\' "$last" | sed "s#\'/#\'{forge.root}/#")"\n'
    )
    fake_ssh.chmod(0o755)
    project = _project(tmp_path)
    pasted = "git@git.example.com:acme/catalog.git@main#subdirectory=skills/git-pr"
    run = cli("add", pasted, cwd=project, env={"GIT_SSH_COMMAND": str(fake_ssh)})
    assert run.code == 0, run.err
    written = "git+ssh://git@git.example.com/acme/catalog.git@main#subdirectory=skills/git-pr"
    assert written in (project / "metapkg.yaml").read_text()
    lock = lockfmt.read(project / "metapkg.lock")
    assert lock is not None
    assert [(p.host, p.repo, p.commit) for p in lock.pins] == [
        ("git.example.com", "acme/catalog", commit)
    ]
    assert (project / ".agents/skills/git-pr/SKILL.md").is_file()


def test_update_moves_a_forge_range_and_the_cache_keys_by_host(
    cli, tmp_path: Path, forge: Forge
) -> None:
    _release(forge, tmp_path, "acme/catalog.git", ["1.0.0"])
    project = _project(tmp_path)
    pasted = f"git+{forge.url}/acme/catalog.git@main#subdirectory=skills/git-pr&range=^1.0"
    assert cli("add", pasted, cwd=project).code == 0
    commits = _release(forge, tmp_path, "acme/catalog.git", ["1.3.0"])
    assert cli("install", cwd=project).code == 0  # the lock's pins hold
    assert "version: 1.0.0" in (project / ".agents/skills/git-pr/SKILL.md").read_text()
    updated = cli("update", cwd=project)
    assert updated.code == 0, updated.err
    lock = lockfmt.read(project / "metapkg.lock")
    assert lock is not None and lock.packages[0].commit == commits["1.3.0"]
    assert "version: 1.3.0" in (project / ".agents/skills/git-pr/SKILL.md").read_text()
    # another forge's trees live under git/<host>/<path>, beside (never in) github/
    host_folder = tmp_path / "cache" / "git" / forge.host.replace(":", "_") / "acme" / "catalog"
    assert host_folder.is_dir() and not (tmp_path / "cache" / "github").exists()
    cleaned = cli("cache", "clean", "acme/git-pr", cwd=project)
    assert cleaned.code == 0, cleaned.err
    assert not [p for p in host_folder.iterdir() if p.name.startswith(commits["1.3.0"])]


def test_add_all_of_a_forge_repository(cli, tmp_path: Path, forge: Forge) -> None:
    work = tmp_path / "work"
    make_skill(work, "git-pr")
    make_skill(work, "linter")
    forge.publish("acme/tools/catalog.git", work)
    project = _project(tmp_path)
    added = cli("add", f"{forge.url}/acme/tools/catalog/-/tree/main", "--all", cwd=project)
    assert added.code == 0, added.err
    manifest = (project / "metapkg.yaml").read_text()
    for name in ("git-pr", "linter"):
        assert f"catalog.git@main#subdirectory=skills/{name}" in manifest
        assert (project / f".agents/skills/{name}/SKILL.md").is_file()


def test_a_forge_that_does_not_answer_is_named(cli, tmp_path: Path) -> None:
    project = _project(tmp_path)
    pasted = "git+http://127.0.0.1:9/acme/catalog.git@main#subdirectory=skills/git-pr"
    run = cli("add", pasted, cwd=project, env={"METAPKG_HTTP_ATTEMPTS": "1"})
    assert run.code == 1 and "Traceback" not in run.err
    assert "127.0.0.1:9 did not answer" in run.err and "GitHub" not in run.err
    assert (project / "metapkg.yaml").read_text() == "dependencies: {}\n"
