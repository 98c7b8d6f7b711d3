"""Every parser of untrusted text, as a fuzz target: inputs, entry point, allowed errors.

A target is an entry in ``TARGETS``: the hypothesis strategy that draws its inputs, the
public entry point to call, and the exceptions that entry point documents (besides
``MetapkgError``, which every one of them may raise). Anything else escaping, a hang
included, is an unhandled exception. ``big`` (big.py) gives each target its 1 MB inputs.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from reliability.fuzz import big, seeds, tarballs
from reliability.fuzz.mutate import JSON_TOKENS, MARKDOWN_TOKENS, YAML_TOKENS, near


@dataclass(frozen=True)
class Target:
    name: str  # short name (command line, regression cases)
    title: str  # the row of the table
    inputs: Callable[[], st.SearchStrategy[Any]]  # built lazily: seeds read files
    call: Callable[[Any], object]
    allowed: Callable[[], tuple[type[BaseException], ...]]  # imported lazily
    big: Callable[[], big.Inputs]
    weight: float = 1.0  # share of the example budget (slow targets get fewer)


# -- entry points ------------------------------------------------------------------------


def _frontmatter(text: str) -> object:
    from metapkg.packages import frontmatter

    return frontmatter.parse(text)


def _package(value: tuple[str, str, str | None]) -> object:
    """A package folder holding the generated manifest file (and CHANGELOG.md)."""
    from metapkg.packages.load import load_package

    filename, text, changelog = value
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        folder = Path(tmp) / ("skills" if filename == "SKILL.md" else "agents") / "a"
        folder.mkdir(parents=True)
        (folder / filename).write_text(text, encoding="utf-8", newline="")
        if changelog is not None:
            (folder / "CHANGELOG.md").write_text(changelog, encoding="utf-8", newline="")
        return load_package(folder, "skills/a")


def _mcp(text: str) -> object:
    from metapkg.packages import mcp

    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        path = Path(tmp) / "io.acme_srv.json"
        path.write_text(text, encoding="utf-8", newline="")
        return mcp.load(path, "mcps/io.acme_srv.json")


def _manifest(text: str) -> object:
    from metapkg import manifest

    return manifest.parse(text, Path(tempfile.gettempdir()) / "fuzz-project" / "metapkg.yaml")


def _lock(text: str) -> object:
    from metapkg.lock import format as lockfmt

    return lockfmt.parse(text)


def _changelog(text: str) -> object:
    """The parser, then the same checks ``check`` runs on its entries (order, versions)."""
    from metapkg.packages import changelog

    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        (Path(tmp) / changelog.FILENAME).write_text(text, encoding="utf-8", newline="")
        changelog.parse(text, "CHANGELOG.md")
        entries, _ = changelog.check(Path(tmp), "skills/a", "1.0.0")
        return changelog.between(entries, "0.1.0", "9.0.0")


def _archive(value: tarballs.Archive | bytes) -> object:
    from metapkg.fetch import archive

    data = value if isinstance(value, bytes) else tarballs.build(value)
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        path, destination = Path(tmp) / "a.tar.gz", Path(tmp) / "tree"
        path.write_bytes(data)
        destination.mkdir()
        return archive.extract(path, destination, "https://github.com/acme/catalog")


def _three_md(text: str) -> object:
    """The base parser, the validator and the provisioner, each on the same text."""
    from metapkg import agent3md
    from metapkg.diagnostics import PackageError

    try:
        document = agent3md.parse(text)
        agent3md.links(document)
    except agent3md.ParseError:
        pass
    agent3md.validate(text)
    try:
        return agent3md.provision(text, "a.3md")
    except PackageError:
        return None


def _range(text: str) -> object:
    from metapkg.packages.semver import Range, SemVer

    parsed = Range.parse(text)
    for version in ("0.0.0", "1.2.3", "1.3.0-beta.1", "2.0.0", "99999.0.0"):
        parsed.contains(version)
    SemVer.parse(text)
    return str(parsed)


def _yaml(text: str) -> object:
    from metapkg import yamlsafe

    return yamlsafe.load(text)


def _json(text: str) -> object:
    from metapkg import jsonsafe

    return jsonsafe.loads(text)


# -- documented problem types --------------------------------------------------------------


def _none() -> tuple[type[BaseException], ...]:
    return ()


def _frontmatter_problem() -> tuple[type[BaseException], ...]:
    from metapkg.packages.frontmatter import FrontmatterProblem

    return (FrontmatterProblem,)


def _range_error() -> tuple[type[BaseException], ...]:
    from metapkg.packages.semver import RangeError

    return (RangeError,)


def _yaml_problem() -> tuple[type[BaseException], ...]:
    from metapkg.yamlsafe import YamlProblem

    return (YamlProblem,)


def _json_problem() -> tuple[type[BaseException], ...]:
    from metapkg.jsonsafe import JsonProblem

    return (JsonProblem,)


# -- inputs ----------------------------------------------------------------------------------

RANGE_TOKENS = [
    "^", "~", ">=", "<=", ">", "<", "=", "||", ",", "-", " - ", "x", "X", "*", ".", "0", "1",
    "99999999999999999999", "9" * 5000, "-rc.1", "+b", "v", " ", "1.2.3", "01", "-0",
]  # fmt: skip


def _package_inputs() -> st.SearchStrategy[Any]:
    markdown = near(seeds.skill_md(), YAML_TOKENS + MARKDOWN_TOKENS)
    changelogs = st.one_of(st.none(), near(seeds.changelog(), MARKDOWN_TOKENS))
    return st.tuples(st.sampled_from(["SKILL.md", "AGENTS.md"]), markdown, changelogs)


TARGETS = (
    Target("frontmatter", "SKILL.md/AGENTS.md frontmatter",
           lambda: near(seeds.skill_md(), YAML_TOKENS), _frontmatter, _frontmatter_problem,
           big.frontmatter),
    Target("package", "package folder (load_package)", _package_inputs, _package, _none,
           big.package, 0.5),
    Target("mcp", "MCP JSON (mcp.load)", lambda: near(seeds.mcp_json(), JSON_TOKENS), _mcp,
           _none, big.mcp),
    Target("manifest", "metapkg.yaml", lambda: near(seeds.MANIFESTS, YAML_TOKENS), _manifest,
           _none, big.manifest),
    Target("lock", "metapkg.lock", lambda: near(seeds.lock(), YAML_TOKENS), _lock, _none,
           big.lock),
    Target("changelog", "CHANGELOG.md", lambda: near(seeds.changelog(), MARKDOWN_TOKENS),
           _changelog, _none, big.changelog),
    Target("archive", "archive member names (extract)", lambda: tarballs.archives, _archive,
           _none, big.archive, 0.5),
    Target("3md", "3md (parse, validate, provision)",
           lambda: near(seeds.three_md(), MARKDOWN_TOKENS + YAML_TOKENS), _three_md, _none,
           big.three_md),
    Target("ranges", "version ranges (Range.parse)", lambda: near(seeds.RANGES, RANGE_TOKENS),
           _range, _range_error, big.ranges),
    Target("yaml", "YAML (yamlsafe.load)", lambda: near(seeds.MANIFESTS + seeds.lock(),
           YAML_TOKENS), _yaml, _yaml_problem, big.yaml),
    Target("json", "JSON (jsonsafe.loads)", lambda: near(seeds.mcp_json(), JSON_TOKENS), _json,
           _json_problem, big.json_text),
)  # fmt: skip

BY_NAME = {target.name: target for target in TARGETS}
