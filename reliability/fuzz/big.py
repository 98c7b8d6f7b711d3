"""About one megabyte of input per parser, in the shapes that make parsers slow.

Each builder returns ``(label, input)`` pairs: many small items (keys, list entries,
packages, entries, planes), one huge value, one huge line, and a near-miss that makes a
regular expression or a scanner backtrack. The long mode times each parse and prints the
slowest; a quadratic parser takes minutes here instead of milliseconds.
"""

from __future__ import annotations

import json

from reliability.fuzz import seeds, tarballs

MB = 1 << 20
GH = seeds.GH
Inputs = list[tuple[str, object]]


def _k(count: int) -> str:
    return f"{count // 1000}k" if count >= 1000 else str(count)


def _front(body: str) -> str:
    return "---\n" + body + "---\n# x\n"


def frontmatter() -> Inputs:
    keys, items, nests = MB // 12, MB // 3, MB // 12000
    nested = "a:\n" + "".join("  " * d + "b:\n" for d in range(1, 60)) + "  " * 60 + "c: 1\n"
    return [
        (f"{_k(keys)} keys", _front("".join(f"k{i}: v{i}\n" for i in range(keys)))),
        ("1 MB value", _front("name: a\ndescription: " + "x" * MB + "\n")),
        ("1 MB body", _front("name: a\n") + "text " * (MB // 5)),
        ("never closed", "---\n" + "a: b\n" * (MB // 5)),
        (f"flow list of {_k(items)}", _front("tags: [" + "x, " * items + "]\n")),
        ("1 MB of brackets", _front("a: " + "[" * MB + "\n")),
        (f"{nests} mappings 60 deep", _front(nested * nests)),
    ]


def package() -> Inputs:
    skill = _front("name: a\nscope: acme\ndescription: A.\nversion: 1.0.0\n")
    count = MB // 30
    entries = "".join(f"## 1.0.{i} (2026-01-15)\n\n- x\n\n" for i in range(count, 0, -1))
    return [
        ("1 MB SKILL.md body", ("SKILL.md", skill + "text " * (MB // 5), None)),
        (f"CHANGELOG of {_k(count)} entries", ("SKILL.md", skill, "# Changelog\n\n" + entries)),
    ]


def mcp() -> Inputs:
    meta = '"_meta": {"name": "io.acme/srv"}, "command": "npx"'
    args, keys = MB // 5, MB // 12
    env = json.dumps({f"K{i}": "v" for i in range(keys)})
    return [
        (f"{_k(args)} args", "{" + meta + ', "args": ' + json.dumps(["a"] * args) + "}"),
        ("1 MB arg", "{" + meta + ', "args": ["' + "${workspaceDir}" * (MB // 15) + '"]}'),
        (f"{_k(keys)} env keys", "{" + meta + ', "env": ' + env + "}"),
        ("duplicate key at the end", "{" + meta + ', "args": [' + '"a",' * (MB // 4) + '"z"], '
         '"command": "x"}'),
    ]  # fmt: skip


def manifest() -> Inputs:
    count, globs = MB // 50, MB // 16
    skills = "".join(f"    - {GH}/main/skills/s{i}\n" for i in range(count))
    overrides = "".join(f"  acme/s{i}: {GH}/v2/skills/s{i}\n" for i in range(count))
    return [
        (f"{_k(count)} dependencies", "dependencies:\n  skills:\n" + skills),
        (f"{_k(count)} overrides", "dependencies:\n  skills: []\noverrides:\n" + overrides),
        (f"{_k(globs)} trust globs", "trust:\n  metaskills:\n" + "    - 'acme/*'\n" * globs),
        ("1 MB origin", "dependencies:\n  skills:\n    - " + GH + "/main/" + "a/" * (MB // 2)),
    ]


def lock() -> Inputs:
    from metapkg.lock import format as lockfmt

    count = MB // 420
    packages = tuple(
        lockfmt.LockedPackage(
            kind="skill",
            fqn=f"acme/s{i}",
            version="1.0.0",
            origin=f"{GH}/main/skills/s{i}",
            commit=f"{i:040x}",
            integrity="sha256:" + "ab" * 32,
            dependencies=(("skill", f"acme/s{i + 1}"),) if i + 1 < count else (),
        )
        for i in range(count)
    )
    lockfile = lockfmt.Lockfile(
        targets=("agents", "claude"),
        requires=(lockfmt.Requirement("skill", "acme/s0", f"{GH}/main/skills/s0"),),
        overrides=(),
        pins=(lockfmt.Pin("acme/catalog", "main", "0" * 40),),
        packages=packages,
        provisioned=tuple(f".agents/skills/s{i}" for i in range(count)),
    )
    return [(f"{count:,} packages", lockfmt.render(lockfile)), ("1 MB of brackets", "[" * MB)]


def changelog() -> Inputs:
    count = MB // 30
    entries = "".join(f"## 1.0.{i} (2026-01-15)\n\n- x\n\n" for i in range(count, 0, -1))
    return [
        (f"{_k(count)} entries", "# Changelog\n\n" + entries),
        ("one 1 MB entry", "## 1.0.0 (2026-01-15)\n\n" + "- x\n" * (MB // 4)),
        ("1 MB header line", "## " + "1" * MB + " (2026-01-15)\n"),
        ("near-miss headers", "## 1.0.0 (2026-01-1\n" * (MB // 20)),
        ("unclosed fence", "```\n" + "## 1.0.0 (2026-01-15)\n" * (MB // 22)),
    ]


def archive() -> Inputs:
    return [(f"{MB // 1024:,} files", tarballs.many_members(MB))]


def three_md() -> Inputs:
    head = "---\n3md: 1.0\naxis: skill\nagent: a\n---\n"
    identity = '@plane z=0 label="a" kind=identity\n# a\n\nRoute.\n\n'
    count = MB // 64

    def planes(linked: bool) -> str:
        return "".join(
            f'@plane z={i} label="s{i}" kind=skill triggers="t{i}"\n# Skill: s{i}\n'
            + (f"[[z={i - 1}|x]]\n" if linked else "Do it.\n")
            for i in range(1, count)
        )

    return [
        (f"{_k(count)} planes", head + identity + planes(False)),
        (f"{_k(count)} planes, each linking the one before", head + identity + planes(True)),
        ("one 1 MB plane", head + identity + "text\n" * (MB // 5)),
        ("1 MB frontmatter", "---\n3md: 1.0\n" + "k: v\n" * (MB // 5) + "---\n"),
        ("1 MB of links", head + identity + "[[z=0|a]] " * (MB // 10)),
        ("unclosed fence", head + identity + "```\n" + "@plane z=1\n" * (MB // 11)),
    ]


def ranges() -> Inputs:
    return [
        (f"{_k(MB // 10)} alternatives", "^1.2.3 || " * (MB // 10) + "^1.0.0"),
        ("1 MB of spaces", " " * MB + "1.0.0"),
        ("1 MB of digits", "1" * MB),
        ("long prerelease", "1.2.3-" + "a." * (MB // 2) + "!"),
        ("1 MB of commas", ">=1" + "," * MB),
    ]


def yaml() -> Inputs:
    return [
        (f"flow list of {_k(MB // 3)} numbers", "[" + "1, " * (MB // 3) + "]"),
        (f"flow list of {_k(MB // 3)} strings", "[" + "a, " * (MB // 3) + "]"),
        (f"{_k(MB // 10)} keys", "".join(f"k{i}: v\n" for i in range(MB // 10))),
        ("1 MB scalar", "a: " + "x" * MB),
        ("1 MB of brackets", "[" * MB),
        ("1 MB of dashes", "- " * (MB // 2)),
    ]


def json_text() -> Inputs:
    return [
        (f"{_k(MB // 2)} numbers", "[" + "1," * (MB // 2) + "1]"),
        (f"{_k(MB // 16)} keys", json.dumps({f"k{i}": i for i in range(MB // 16)})),
        ("1 MB string", json.dumps("x" * MB)),
        ("1 MB of brackets", "[" * MB),
        ("duplicate key at the end", '{"a": [' + "1," * (MB // 2) + '1], "a": 2}'),
    ]
