"""`metapkg add SOURCE --all` at repository scale, and how add reads its sources.

Issue 29: one repository holds hundreds of skills, and a few of them do not load. `add
--all` reads and writes metapkg.yaml once, adds every package that loads, lists each
one it skips with the reason and the fix, and refuses what is unsafe.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import Run, assert_ok, diagnostics, make_skill, show, write_manifest
from ghfixtures import GH, make_gh
from golden import assert_matches

from bench.repo_scale import flat_repository


@pytest.fixture
def gh(tmp_path: Path) -> Iterator[GH]:
    yield from make_gh(tmp_path, web=True)


def _entries(project: Path) -> list[str]:
    lines = (project / "metapkg.yaml").read_text().splitlines()
    return [line.strip()[2:] for line in lines if line.strip().startswith("- ")]


# -- metapkg.yaml is read once and written once ----------------------------------------------

_opened: list[tuple[str, object]] | None = None


def _audit(event: str, args: tuple[object, ...]) -> None:
    if _opened is None or event != "open" or not isinstance(args[0], str | Path):
        return
    path = os.fspath(args[0])
    if path.endswith("metapkg.yaml") or ".metapkg.yaml." in path:
        _opened.append((path, args[1]))


sys.addaudithook(_audit)  # audit hooks stay for the process: _opened is None when unused


def _opens_of_the_manifest(run: object) -> tuple[int, int]:
    """(reads, writes) of metapkg.yaml while ``run()`` runs the CLI in this process."""
    global _opened
    _opened = []
    try:
        run()  # type: ignore[operator]
        seen = list(_opened)
    finally:
        _opened = None
    writes = [p for p, mode in seen if ".tmp" in p or (isinstance(mode, str) and "w" in mode)]
    return len(seen) - len(writes), len(writes)


def test_add_all_reads_and_writes_the_manifest_once(cli, tmp_path: Path) -> None:
    catalog = tmp_path / "catalog"
    for index in range(40):
        make_skill(catalog, f"skill-{index:02d}")
    project = tmp_path / "proj"
    write_manifest(project)
    runs: list[Run] = []

    reads, writes = _opens_of_the_manifest(
        lambda: runs.append(cli("add", f"file:{catalog.as_posix()}", "--all", cwd=project))
    )

    assert_ok(runs[0])
    assert len(_entries(project)) == 40
    # One read for the edit (parsed, and its bytes kept to put back on failure), one
    # write; the second read is the no-op check's record hashing what is on disk
    # (provision/uptodate.py). Before: five reads, and one parse and dump per package.
    assert (reads, writes) == (2, 1), show(runs[0])


# -- the generated catalog over the loopback GitHub ---------------------------------------------


@pytest.mark.real_cli
def test_add_all_of_a_repository_of_hundreds_of_skills(gh: GH, tmp_path: Path) -> None:
    count = 200  # `python -m bench.repo_scale` times 864; before issue 29, 200 took 7 s
    source = flat_repository(tmp_path / "catalog", count)
    gh.server.add_repo("acme", "big-catalog", {"c1": source}, branches={"main": "c1"})
    write_manifest(gh.project)

    run = assert_ok(gh.run("add", "acme/big-catalog", "--all"))

    entries = _entries(gh.project)
    assert len(entries) == len(set(entries)) == count
    assert len(list((gh.project / ".claude" / "skills").iterdir())) == count
    assert f"Added {count} skills" in run.err
    assert "to metapkg.yaml" not in run.err  # one line for --all, not one per skill


# -- owner/repo keep their case ---------------------------------------------------------------


def test_owner_and_repository_are_written_as_typed_and_match_in_any_case(gh: GH) -> None:
    gh.repo("Acme-Labs/Skills", {"c1": {"skills": {"pdf": {}, "docx": {}}}})
    write_manifest(gh.project)

    assert_ok(gh.run("add", "Acme-Labs/Skills/skills/pdf"))
    assert _entries(gh.project) == ["https://github.com/Acme-Labs/Skills/tree/main/skills/pdf"]
    again = assert_ok(gh.run("add", "https://github.com/acme-labs/SKILLS", "--all"))

    assert _entries(gh.project) == [
        "https://github.com/Acme-Labs/Skills/tree/main/skills/pdf",
        "https://github.com/acme-labs/SKILLS/tree/main/skills/docx",
    ]
    assert "Added 1 skill, 1 already in metapkg.yaml" in again.err
    assert "acme-labs/skills" in gh.lock_text  # the lock keeps its canonical form


# -- skipped and refused ----------------------------------------------------------------------


def _catalog_with_bad_skills(root: Path) -> Path:
    for name in ("alpha", "beta", "gamma"):
        make_skill(root, name, version="1.0.0", scope=None)
    broken = root / "skills" / "broken"
    broken.mkdir(parents=True)
    (broken / "SKILL.md").write_text("---\nname: broken\ndescription: one: two\n---\n# x\n")
    return root


def test_add_all_skips_what_does_not_load_and_says_why(cli, tmp_path: Path) -> None:
    catalog = _catalog_with_bad_skills(tmp_path / "catalog")
    project = tmp_path / "proj"
    write_manifest(project)

    run = assert_ok(cli("add", f"file:{catalog.as_posix()}", "--all", cwd=project))

    assert {e.rsplit("/", 1)[-1] for e in _entries(project)} == {"alpha", "beta", "gamma"}
    skipped = [d for d in diagnostics(run.err) if d.rule == "skipped"]
    assert len(skipped) == 1 and skipped[0].severity == "warning"
    assert skipped[0].path.endswith("skills/broken/SKILL.md") and skipped[0].line == 3
    assert "broken not added: invalid YAML" in skipped[0].message
    assert "metapkg add ./broken" in skipped[0].message  # what the user can do
    assert "Added 3 skills, skipped 1 (see above)" in run.err
    assert not (project / ".claude/skills/broken").exists()


def test_add_all_refuses_an_unsafe_package_and_adds_the_rest(cli, tmp_path: Path) -> None:
    catalog = _catalog_with_bad_skills(tmp_path / "catalog")
    secret = tmp_path / "secret.txt"
    secret.write_text("do not ship\n")
    (catalog / "skills" / "alpha" / "notes.md").symlink_to(secret)
    project = tmp_path / "proj"
    write_manifest(project)

    run = cli("add", f"file:{catalog.as_posix()}", "--all", cwd=project)

    assert run.code == 1, show(run)
    refused = [d for d in diagnostics(run.err) if d.rule == "unsafe"]
    assert len(refused) == 1 and refused[0].severity == "error"
    assert "alpha refused: a symbolic link" in refused[0].message
    assert "Added 2 skills, skipped 1, refused 1 as unsafe (see above)" in run.err
    assert {e.rsplit("/", 1)[-1] for e in _entries(project)} == {"beta", "gamma"}
    assert not (project / ".claude/skills/alpha").exists()


def test_add_all_of_nothing_that_loads_changes_nothing(cli, tmp_path: Path) -> None:
    catalog = tmp_path / "catalog"
    for name in ("one", "two"):
        folder = catalog / "skills" / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: a: b\n---\n")
    project = tmp_path / "proj"
    before = write_manifest(project).read_bytes()

    run = cli("add", f"file:{catalog.as_posix()}", "--all", cwd=project)

    assert run.code == 1 and "none of its 2 packages can be added" in run.err, show(run)
    assert (project / "metapkg.yaml").read_bytes() == before


# -- --skill and --all apply to every source ---------------------------------------------------


def test_sources_after_options_are_sources_and_skill_applies_to_all(cli, tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    for name in ("pdf", "docx"):
        make_skill(first, name)
    for name in ("review", "lint"):
        make_skill(second, name)
    project = tmp_path / "proj"
    write_manifest(project)

    run = assert_ok(
        cli(
            "add",
            f"file:{first}",
            "--skill",
            "pdf",
            f"file:{second}",
            "--skill",
            "lint",
            cwd=project,
        )
    )

    assert sorted(e.rsplit("/", 1)[-1] for e in _entries(project)) == ["lint", "pdf"], show(run)


def test_a_skill_name_no_source_holds_is_an_error(cli, tmp_path: Path) -> None:
    first = tmp_path / "first"
    for name in ("pdf", "docx"):
        make_skill(first, name)
    project = tmp_path / "proj"
    before = write_manifest(project).read_bytes()

    run = cli("add", f"file:{first}", "--skill", "pdf", "--skill", "pptx", cwd=project)

    assert run.code == 2 and "no package pptx here" in run.err and "docx, pdf" in run.err
    assert (project / "metapkg.yaml").read_bytes() == before


# -- a missing ref is not a missing repository ---------------------------------------------------


@pytest.mark.parametrize("web", [True, False], ids=["advertisement", "rest"])
def test_a_missing_ref_says_the_ref_is_missing(tmp_path: Path, web: bool) -> None:
    for gh in make_gh(tmp_path, web=web):
        gh.repo(
            "obra/superpowers",
            {"c1": {"skills": {"brainstorming": {}}}, "c2": {"skills": {"brainstorming": {}}}},
            branches={"main": "c2", "dev": "c1"},
            tags={"v1.0.0": "c1", "v1.2.0": "c2"},
        )
        write_manifest(gh.project)

        run = gh.run("add", "obra/superpowers/skills/brainstorming@v99")

        assert run.code == 1, show(run)
        (found,) = [d for d in diagnostics(run.err) if d.rule == "missing"]
        assert "obra/superpowers has no branch or tag 'v99'" in found.message
        if web:  # the advertisement lists what there is, default branch and newest tag first
            assert "its branches are main, dev, its tags v1.2.0, v1.0.0;" in found.message
        assert "no repository" not in run.err

        gone = gh.run("add", "obra/nothing-here/skills/brainstorming@v1.0.0")

        assert gone.code == 1, show(gone)
        assert "no repository obra/nothing-here on GitHub" in gone.err


# -- what people read ------------------------------------------------------------------------


def test_add_all_summary_snapshot(cli, tmp_path: Path) -> None:
    """The skipped and refused lines and the tally, as text, after a dry run and a real one."""
    catalog = _catalog_with_bad_skills(tmp_path / "catalog")
    (catalog / "skills" / "gamma" / "extra.md").symlink_to(catalog / "skills" / "beta" / "SKILL.md")
    latin = catalog / "skills" / "latin"
    latin.mkdir()
    (latin / "SKILL.md").write_bytes(b"---\nname: latin\ndescription: caf\xe9\n---\n")
    project = tmp_path / "proj"
    write_manifest(project)
    source = f"file:{catalog.as_posix()}"

    runs = [
        (
            "metapkg add SOURCE --all --dry-run",
            cli("add", source, "--all", "--dry-run", cwd=project),
        ),
        ("metapkg add SOURCE --all", cli("add", source, "--all", cwd=project)),
        ("metapkg add SOURCE --all (again)", cli("add", source, "--all", cwd=project)),
    ]

    text = ""
    for title, run in runs:
        said = f"## {title}\n$ exit {run.code}\n--- stderr\n{run.err}"
        text += said.replace(str(tmp_path.resolve()), "<tmp>").replace(str(tmp_path), "<tmp>")
    text = re.sub(r"\b\d+\.\d\ds\b", "<t>s", text)
    assert_matches("add-all.txt", text)


def test_add_all_as_json_lists_what_it_left_out(cli, tmp_path: Path) -> None:
    catalog = _catalog_with_bad_skills(tmp_path / "catalog")
    project = tmp_path / "proj"
    write_manifest(project)

    run = assert_ok(cli("add", f"file:{catalog.as_posix()}", "--all", "--json", cwd=project))

    (left_out,) = run.json["skipped"]
    assert left_out["name"] == "broken" and left_out["unsafe"] is False
    assert left_out["diagnostics"][0]["rule"] == "frontmatter"
    assert len(run.json["added"]) == 3


def test_a_listing_of_hundreds_shows_twenty_names_and_how_many_more() -> None:
    from metapkg.actions.choosing import listing
    from metapkg.packages.discover import Found

    found = [Found(Path(f"skills/s{i:03d}"), f"s{i:03d}", "skill") for i in range(864)]
    shown = listing(found)
    assert shown.startswith("s000, s001") and "s019 and 844 more" in shown
    assert "s020" not in shown
