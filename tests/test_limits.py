"""Size caps on untrusted text (metapkg/limits.py): past its cap a file is refused before
any parsing, with its name, its size and the cap; no real file comes near one."""

from __future__ import annotations

from pathlib import Path

import pytest

from metapkg import limits, manifest
from metapkg.agent3md import check_document
from metapkg.diagnostics import LockError, ManifestError
from metapkg.lock import format as lockfmt
from metapkg.packages import frontmatter, mcp

GH = "https://github.com/acme/catalog/tree/main/skills"


def test_frontmatter_over_its_cap_is_refused_before_yaml_reads_it() -> None:
    text = "---\nname: a\ntags: [" + "x, " * 30_000 + "]\n---\n# a\n"
    with pytest.raises(frontmatter.FrontmatterProblem) as caught:
        frontmatter.parse(text)
    assert "the frontmatter is 90," in caught.value.message
    assert "cap of 64 KiB (65,536 bytes)" in caught.value.message and caught.value.line == 1
    frontmatter.parse("---\nname: a\ndescription: " + "d" * 60_000 + "\n---\n")  # under it


def test_manifest_and_lock_over_their_caps_name_the_file(tmp_path: Path) -> None:
    big = "# " + "x" * limits.MANIFEST_BYTES + "\n"
    with pytest.raises(ManifestError, match=r"metapkg.yaml is 2,097,155 bytes, over"):
        manifest.parse(big, tmp_path / "metapkg.yaml")
    with pytest.raises(LockError) as caught:
        lockfmt.parse("# " + "x" * limits.LOCK_BYTES + "\n")
    assert not isinstance(caught.value, lockfmt.UnreadableLock)  # too big is not damaged
    assert "metapkg.lock is 8,388,611 bytes, over metapkg's cap of 8 MiB" in str(caught.value)


def test_a_lock_of_3000_packages_is_far_under_the_cap() -> None:
    count = 3000
    packages = tuple(
        lockfmt.LockedPackage(
            kind="skill",
            fqn=f"acme/s{i}",
            version="1.0.0",
            origin=f"{GH}/s{i}",
            commit=f"{i:040x}",
            integrity="sha256:" + "ab" * 32,
            dependencies=tuple(("skill", f"acme/s{j}") for j in range(i + 1, min(i + 6, count))),
        )
        for i in range(count)
    )
    text = lockfmt.render(
        lockfmt.Lockfile(
            targets=("agents", "claude"),
            requires=tuple(lockfmt.Requirement("skill", p.fqn, p.origin) for p in packages),
            overrides=(),
            pins=(lockfmt.Pin("acme/catalog", "main", "0" * 40),),
            packages=packages,
            provisioned=tuple(
                f".{h}/skills/s{i}" for i in range(count) for h in ("agents", "claude")
            ),
        )
    )
    assert limits.size(text) * 4 < limits.LOCK_BYTES


def test_files_over_their_caps_are_not_read(tmp_path: Path) -> None:
    config = tmp_path / "io.acme_srv.json"
    config.write_text('{"command": "x", "args": [' + '"a",' * 70_000 + '"a"]}')
    found, diags = mcp.load(config, "mcps/io.acme_srv.json")
    assert found is None and [d.path for d in diags] == ["mcps/io.acme_srv.json"]
    assert "over the cap of 262,144 bytes" in diags[0].message

    agent = tmp_path / "a.3md"
    agent.write_text("---\n3md: 1.0\nagent: a\n---\n" + "text\n" * 60_000)
    [problem] = check_document(agent, "agents/a/a.3md")
    assert problem.path == "agents/a/a.3md" and "cap of 262,144 bytes" in problem.message
