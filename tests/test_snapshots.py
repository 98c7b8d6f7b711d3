"""The text people read, compared with golden files in tests/snapshots/ (see golden.py).

Install and update summaries, one error of every family, `check` output and `diff` in
its three formats. (`graph` in mermaid and dot: test_graph.py.) Temporary paths and
timings are replaced by <tmp> and <t> so the files stay the same from run to run. After a
deliberate change: METAPKG_UPDATE_SNAPSHOTS=1 pytest tests/test_snapshots.py, and review
the diff of tests/snapshots/ in the commit.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import graph_locks
from conftest import (
    Run,
    assert_ok,
    file_origin,
    make_agent,
    make_mcp,
    make_skill,
    write_changelog,
    write_manifest,
)
from golden import assert_matches


def _normal(text: str, tmp_path: Path) -> str:
    text = text.replace(str(tmp_path.resolve()), "<tmp>").replace(str(tmp_path), "<tmp>")
    return re.sub(r"\b\d+\.\d\ds\b", "<t>s", text)


def _said(run: Run, tmp_path: Path) -> str:
    """What a person sees: the exit code, then stdout and stderr."""
    out = f"$ exit {run.code}\n"
    if run.out:
        out += "--- stdout\n" + run.out
    if run.err:
        out += "--- stderr\n" + run.err
    return _normal(out, tmp_path)


def _catalog(tmp_path: Path) -> Path:
    cat = tmp_path / "cat"
    make_mcp(cat, "io.acme/db")
    make_skill(cat, "base", version="1.0.0", mcps=[file_origin(cat / "mcps/io.acme_db.json")])
    make_skill(cat, "pinned", version="1.6.0")
    make_skill(cat, "fading", version="0.9.0")
    make_agent(cat, "reviewer", skills=[file_origin(cat / "skills/base")])
    return cat


def _manifest(project: Path, cat: Path, *skills: str) -> None:
    write_manifest(
        project,
        agents=[file_origin(cat / "agents/reviewer")],
        skills=[file_origin(cat / "skills" / name) for name in skills],
    )


def test_install_and_update_summaries(cli, tmp_path: Path) -> None:
    cat = _catalog(tmp_path)
    project = tmp_path / "proj"
    _manifest(project, cat, "pinned", "fading")
    dry = cli("install", "--dry-run", cwd=project)
    first = cli("install", cwd=project)
    again = cli("install", cwd=project)
    # a release later: an upgrade, a downgrade, a package dropped, one new, one edited
    make_skill(cat, "base", version="1.1.0", mcps=[file_origin(cat / "mcps/io.acme_db.json")])
    make_skill(cat, "pinned", version="1.5.0")
    make_skill(cat, "fresh", version="0.1.0")
    (cat / "agents/reviewer/AGENTS.md").write_text(
        (cat / "agents/reviewer/AGENTS.md").read_text() + "\nOne more rule.\n"
    )
    _manifest(project, cat, "pinned", "fresh")
    update = cli("update", cwd=project)
    text = "\n".join(
        f"## metapkg {title}\n{_said(run, tmp_path)}"
        for title, run in (
            ("install --dry-run", dry),
            ("install", first),
            ("install (again)", again),
            ("update", update),
        )
    )
    assert_matches("summaries.txt", text)


def test_update_summary_as_json(cli, tmp_path: Path) -> None:
    cat = _catalog(tmp_path)
    project = tmp_path / "proj"
    _manifest(project, cat, "pinned")
    assert_ok(cli("install", cwd=project))
    make_skill(cat, "pinned", version="1.7.0")
    write_changelog(cat / "skills/pinned", "1.7.0")
    run = assert_ok(cli("update", "--json", cwd=project))
    assert_matches("update.json", _normal(json.dumps(run.json, indent=2) + "\n", tmp_path))


def _errors(cli, tmp_path: Path) -> list[tuple[str, Run]]:
    cat = _catalog(tmp_path)
    # it declares a dependency, so its dependents rely on its version: still an error
    make_skill(cat, "broken", version="one", skills=[file_origin(cat / "skills/base")])
    found: list[tuple[str, Run]] = []

    def project(name: str, text: str | None = None) -> Path:
        folder = tmp_path / name
        if text is None:
            _manifest(folder, cat)
        else:
            folder.mkdir()
            (folder / "metapkg.yaml").write_text(text)
        return folder

    ok = project("ok")
    wide = {"COLUMNS": "80"}  # argparse wraps its usage line to the terminal
    typo = cli("install", "--froze", cwd=ok, env=wide)
    found.append(("usage: an option that does not exist", typo))
    found.append(("usage: arguments that make no sense", cli("diff", "a", "b", "c", cwd=ok)))
    found.append(("manifest", cli("install", cwd=project("manifest", "dependencies: [1, 2]\n"))))
    broken = f"dependencies:\n  skills:\n    - {file_origin(cat / 'skills/broken')}\n"
    found.append(("package", cli("install", cwd=project("package", broken))))
    remote = "dependencies:\n  skills:\n    - https://github.com/acme/catalog/tree/main/skills/x\n"
    found.append(("fetch", cli("install", "--offline", cwd=project("fetch", remote))))
    missing = f"dependencies:\n  skills:\n    - {file_origin(cat / 'skills/nowhere')}\n"
    found.append(("resolution", cli("install", cwd=project("resolution", missing))))
    found.append(("lock", cli("install", "--frozen", cwd=project("lock"))))
    collision = project("provision")
    (collision / ".agents/skills/base").mkdir(parents=True)
    (collision / ".agents/skills/base/SKILL.md").write_text("mine\n")
    found.append(("provision", cli("install", cwd=collision)))
    assert_ok(cli("install", cwd=ok))
    found.append(("missing: a name not in the lock", cli("why", "acme/bsae", cwd=ok)))
    return found


def test_every_error_family(cli, tmp_path: Path) -> None:
    found = _errors(cli, tmp_path)
    for title, run in found:
        assert run.code in (1, 2) and "Traceback" not in run.err, (title, run.err)
    text = "\n".join(f"## {title}\n{_said(run, tmp_path)}" for title, run in found)
    assert_matches("errors.txt", text)


def test_check_output(cli) -> None:
    text = cli("check", "registry-fixtures/catalogs/invalid")
    one = "registry-fixtures/catalogs/invalid/skills/bad-changelog-order"
    data = cli("check", one, "--json")
    assert text.code == data.code == 1
    assert_matches("check.txt", _said(text, Path("/nonexistent")))
    assert_matches("check.json", data.out)


def test_diff_in_three_formats(cli, tmp_path: Path) -> None:
    make_skill(tmp_path, "house-style", version="0.1.0", scope=None)
    (tmp_path / "skills").rename(tmp_path / "local-skills")  # the locks' file: origin
    graph_locks.write(tmp_path / "old.lock", graph_locks.before())
    graph_locks.write(tmp_path / "new.lock", graph_locks.after())
    for fmt, name in (("text", "diff.txt"), ("markdown", "diff.md"), ("json", "diff.json")):
        run = cli("diff", "old.lock", "new.lock", "--format", fmt, "--offline", cwd=tmp_path)
        assert run.code == 0, run.err
        assert_matches(name, _normal(run.out, tmp_path))
