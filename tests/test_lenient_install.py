"""`check` is for publishers, `install` is for consumers (issue 29): through the real CLI
over the loopback GitHub, skills that break the spec in ways hosts load anyway (a long
description, a name that is not kebab-case, a template, a version without CHANGELOG.md)
install with exit 0 and one grouped warning per rule; `--strict` and `strict: true` fail
on them; a package with dependencies whose CHANGELOG contradicts its version still fails;
a no-op or `--frozen` run says nothing again. Fixtures: registry-fixtures/repos/
out-of-spec/ and changelog-deps/."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import FIXTURES, Run, assert_fails_with, assert_ok, diagnostics
from ghfixtures import GH, make_gh
from golden import assert_matches

pytestmark = pytest.mark.real_cli  # through a real `python -m metapkg` process

REPOS = FIXTURES / "repos"
OUT_OF_SPEC = "pub/out-of-spec"
TOLERATED_RULES = {"description", "name", "template-placeholder", "changelog-missing", "version"}


@pytest.fixture
def gh(tmp_path: Path) -> Iterator[GH]:
    for found in make_gh(tmp_path, web=True):
        for name in ("out-of-spec", "changelog-deps"):
            copy = tmp_path / "repos" / name
            shutil.copytree(REPOS / name, copy, symlinks=True)
            found.server.add_repo("pub", name, {"c1": copy}, {"main": "c1"})
        found.manifest()
        yield found


def _warning_lines(run: Run) -> list[str]:
    return [line for line in run.err.splitlines() if line.startswith("warning[")]


def _normal(text: str) -> str:
    text = re.sub(r"\b[0-9a-f]{12}\b", "<commit>", text)
    return re.sub(r"\b\d+\.\d\ds\b", "<t>s", text)


def test_out_of_spec_skills_install_with_one_grouped_warning_per_rule(gh: GH) -> None:
    run = assert_ok(gh.run("add", OUT_OF_SPEC, "--all"))
    lines = _warning_lines(run)
    strict = gh.run("install", "--strict")
    assert strict.code == 1
    said = f"$ metapkg add {OUT_OF_SPEC} --all (the warnings)\n" + "\n".join(lines) + "\n"
    said += "$ metapkg install --strict\n" + strict.err.replace(str(gh.cache), "<cache>")
    assert_matches("lenient-warnings.txt", _normal(said))
    assert {line.split("]")[0].removeprefix("warning[") for line in lines} == TOLERATED_RULES
    assert len(lines) == len(TOLERATED_RULES)  # one line per rule, not one per skill
    assert not diagnostics(run.err)  # no per-package lines without -v
    # every skill installed, under its folder name where its own is no package name
    for folder in ("api-client", "release-automation", "ticket-triage", "project-template",
                   "changelog-less", "float-version", "clean"):  # fmt: skip
        assert (gh.project / f".claude/skills/{folder}/SKILL.md").is_file(), folder
    packages = gh.packages()
    assert packages["changelog-less"]["version"] == "1.4.0"  # a plain skill with a version
    assert "version" not in packages["float-version"]  # 2.0 is not SemVer: left out


def test_verbose_lists_each_finding(gh: GH) -> None:
    run = assert_ok(gh.run("-v", "add", OUT_OF_SPEC, "--all"))
    found = {(d.path.split("/skills/")[-1], d.rule) for d in diagnostics(run.err)}
    assert ("api-client/SKILL.md", "description") in found
    assert ("release-automation/SKILL.md", "name") in found
    assert ("project-template/SKILL.md", "template-placeholder") in found
    assert ("changelog-less/CHANGELOG.md", "changelog-missing") in found
    assert ("clean/SKILL.md", "not-metaagents") in found  # plain skills: -v only
    assert all(d.severity == "warning" for d in diagnostics(run.err))


@pytest.mark.parametrize("how", ["--strict", "strict: true"])
def test_strict_fails_on_every_finding_install_tolerates(gh: GH, how: str) -> None:
    if how == "--strict":
        run = gh.run("add", OUT_OF_SPEC, "--all", "--strict")
    else:
        gh.manifest()
        with (gh.project / "metapkg.yaml").open("a") as manifest:
            manifest.write("strict: true\n")
        run = gh.run("add", OUT_OF_SPEC, "--all")
    assert_fails_with(run, "description")
    errors = {d.rule for d in diagnostics(run.err) if d.severity == "error"}
    assert errors == TOLERATED_RULES
    assert not (gh.project / ".claude/skills").exists()  # nothing installed
    assert OUT_OF_SPEC not in (gh.project / "metapkg.yaml").read_text()  # nor added


def test_strict_must_be_true_or_false(gh: GH) -> None:
    with (gh.project / "metapkg.yaml").open("a") as manifest:
        manifest.write("strict: yes please\n")
    [found] = assert_fails_with(gh.install(), "manifest")
    assert "'strict' is true or false" in found.message and found.line is not None


def test_a_package_with_dependencies_and_a_contradicting_changelog_still_fails(gh: GH) -> None:
    run = gh.run("add", "pub/changelog-deps/skills/release-notes")
    [found] = assert_fails_with(run, "changelog-version")
    assert "1.2.0" in found.message and "1.3.0" in found.message
    assert not (gh.project / ".claude/skills").exists()


def test_no_op_and_frozen_installs_repeat_no_warning(gh: GH) -> None:
    assert _warning_lines(assert_ok(gh.run("add", OUT_OF_SPEC, "--all")))
    again = assert_ok(gh.install())
    assert "warning" not in again.err, again.err
    gh.forget_install()  # a fresh clone in CI: install from the lock, resolving it all
    frozen = assert_ok(gh.install("--frozen"))
    assert "Resolved 10 packages" in frozen.err
    assert "warning" not in frozen.err, frozen.err
    assert (gh.project / ".claude/skills/api-client/SKILL.md").is_file()


def test_adding_a_package_warns_about_that_package_only(gh: GH) -> None:
    assert_ok(gh.run("add", OUT_OF_SPEC, "--skill", "api-client"))
    run = assert_ok(gh.run("add", OUT_OF_SPEC, "--skill", "release-automation"))
    assert _warning_lines(run) == [
        "warning[name] 1 skill has a name that is not a package name (kebab-case, at most 64 "
        "characters): release-automation; it installs under its folder name"
    ]


def test_check_stays_strict_on_the_same_skills() -> None:
    from conftest import run_cli

    run = run_cli("check", str(REPOS / "out-of-spec"))
    assert run.code == 1
    errors = {d.rule for d in diagnostics(run.err + run.out) if d.severity == "error"}
    assert {"description", "name", "frontmatter", "changelog-missing", "version"} <= errors
    agentskills = run_cli("check", "--profile", "agentskills", str(REPOS / "out-of-spec"))
    assert agentskills.code == 1


def test_lock_takes_strict_too(gh: GH) -> None:
    assert_ok(gh.run("add", OUT_OF_SPEC, "--skill", "api-client"))
    assert_ok(gh.run("lock", "--check"))
    assert_fails_with(gh.run("lock", "--strict"), "description")
