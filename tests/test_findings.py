"""The grouped lines install prints about packages (metapkg/actions/findings.py): one per
rule, a count, a few names and "and N more", and what the active hosts do about it."""

from __future__ import annotations

from metapkg.actions.findings import Finding, changed_keys, group
from metapkg.diagnostics import warning
from metapkg.lock.format import LockedPackage, Lockfile


def _finding(name: str, rule: str, message: str = "...", kind: str = "skill") -> Finding:
    return Finding((kind, name), warning(rule, f"{name}/SKILL.md", message))  # type: ignore[arg-type]


def test_one_line_per_rule_with_a_count_and_a_few_names() -> None:
    long = "description is 1068 characters; the limit is 1024"
    found = [_finding(f"s{i}", "description", long) for i in range(5)]
    found += [_finding(f"s{i}", "not-metaagents") for i in range(5)]  # -v only
    [line] = [g.render() for g in group(found, ("claude", "codex"))]
    assert line == (
        "warning[description] 5 skills have a description over 1,024 characters: s0, s1, s2 "
        "and 2 more; Claude Code loads them, Codex shows the first 1,024 characters"
    )


def test_one_package_reads_in_the_singular_and_hosts_not_targeted_are_not_named() -> None:
    [name] = group([_finding("ahrefs-automation", "name", "name 'Ahrefs ...' must be ...")])
    assert name.render() == (
        "warning[name] 1 skill has a name that is not a package name (kebab-case, at most 64 "
        "characters): ahrefs-automation; it installs under its folder name"
    )
    [short] = group(
        [_finding("x", "description", "description is 2000 characters; the limit is 1024")],
        ("agents",),
    )
    assert short.render().endswith(": x")  # no target whose behaviour is documented


def test_a_missing_description_and_a_long_one_are_two_lines() -> None:
    found = [
        _finding("a", "description", "description is 1100 characters; the limit is 1024"),
        _finding("b", "description", "missing required field 'description'; add one"),
    ]
    texts = [g.text for g in group(found)]
    assert texts == [
        "1 skill has a description over 1,024 characters",
        "1 skill has no usable description",
    ]


def test_only_packages_that_enter_or_change_are_reported() -> None:
    def lock(*packages: LockedPackage) -> Lockfile:
        return Lockfile(("claude",), (), (), (), packages)

    same = LockedPackage("skill", "same", None, "o", "c", "sha256:1")
    moved = LockedPackage("skill", "moved", None, "o", "c", "sha256:2")
    new = LockedPackage("skill", "new", None, "o", "c", "sha256:3")
    changed = LockedPackage("skill", "moved", None, "o", "c2", "sha256:22")
    assert changed_keys(None, lock(same)) == {("skill", "same")}
    assert changed_keys(lock(same, moved), lock(same, changed, new)) == {
        ("skill", "moved"),
        ("skill", "new"),
    }
