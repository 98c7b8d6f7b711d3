"""Load one package from disk: parse it, run every per-package rule, build the model."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from metapkg.diagnostics import Diagnostic, error
from metapkg.packages import changelog, mcp, metaskill
from metapkg.packages.frontmatter import FrontmatterProblem, parse
from metapkg.packages.models import Agent, Kind, Package, Skill
from metapkg.packages.rules import fields, files, unicode
from metapkg.packages.rules.dependencies import DependencyContext, parse_dependencies

MANIFEST_FILES: dict[Kind, str] = {"agent": "AGENTS.md", "skill": "SKILL.md"}


@dataclass(frozen=True)
class Loaded:
    package: Package | None  # None when not even a name could be read
    diagnostics: tuple[Diagnostic, ...]

    @property
    def ok(self) -> bool:
        return self.package is not None and not any(d.severity == "error" for d in self.diagnostics)


def detect_kind(path: Path) -> Kind | None:
    """What a path holds: a folder with SKILL.md or AGENTS.md, or an MCP .json file."""
    if path.is_file():
        return "mcp" if path.suffix == ".json" else None
    if (path / "SKILL.md").is_file():
        return "skill"
    if (path / "AGENTS.md").is_file():
        return "agent"
    return None


def load_package(
    path: Path, display: str, kind: Kind | None = None, folder_name: str | None = None
) -> Loaded:
    """Load the package at ``path`` (a folder, or an MCP file); ``display`` names it.

    ``folder_name`` overrides the name the ``name-dir`` rule compares against (a package at
    the root of a downloaded archive has no meaningful folder name of its own).
    """
    kind = kind or detect_kind(path)
    if kind is None:
        return Loaded(None, (_not_a_package(display),))
    if kind == "mcp":
        model, diags = mcp.load(path, display)
        return Loaded(model, (*diags, *files.check(path, display)))
    return _load_markdown(
        path, display, kind, folder_name if folder_name is not None else path.name
    )


def _not_a_package(display: str) -> Diagnostic:
    return error(
        "layout",
        display,
        "not a package: expected a folder with SKILL.md or AGENTS.md, or an MCP .json file",
    )


def _load_markdown(folder: Path, display: str, kind: Kind, folder_name: str) -> Loaded:
    filename = MANIFEST_FILES[kind]
    shown = f"{display}/{filename}"
    try:
        text = (folder / filename).read_bytes().decode("utf-8")
    except FileNotFoundError:
        return Loaded(None, (error("layout", display, f"{filename} is missing"),))
    except UnicodeDecodeError:
        return Loaded(None, (error("frontmatter", shown, f"{filename} is not UTF-8 text"),))
    diags: list[Diagnostic] = [*files.check(folder, display), *unicode.check(text, shown)]
    try:
        fm = parse(text)
    except FrontmatterProblem as exc:
        diags.append(error("frontmatter", shown, exc.message, exc.line))
        return Loaded(None, tuple(diags))
    diags.extend(fields.check_name(fm, shown, folder_name))
    diags.extend(fields.check_scope(fm, shown))
    diags.extend(fields.check_description(fm, shown))
    diags.extend(fields.check_version(fm, shown))
    diags.extend(fields.check_prereqs(fm, shown, kind))
    deps, dep_diags = parse_dependencies(
        fm.fields.get("dependencies"), fm.line, DependencyContext(shown)
    )
    diags.extend(dep_diags)
    entries, changelog_diags = changelog.check(folder, display, fm.fields.get("version"))
    diags.extend(changelog_diags)
    name, scope = fm.fields.get("name"), fm.fields.get("scope")
    version, description = fm.fields.get("version"), fm.fields.get("description")
    if not isinstance(name, str):
        return Loaded(None, tuple(diags))
    # What could be read is kept even when a rule failed: check reports every finding,
    # and install stops on the errors anyway.
    scope = scope if isinstance(scope, str) else None
    version = version if isinstance(version, str) else None
    description = description if isinstance(description, str) else ""
    if kind == "agent":
        agent = Agent("agent", name, scope, version, description, deps, folder, entries)
        return Loaded(agent, tuple(diags))
    diags.extend(fields.check_body(fm, shown))
    program, program_diags = metaskill.check(fm, folder, shown)
    diags.extend(program_diags)
    prereqs = fm.fields.get("prereqs")
    skill = Skill(
        "skill",
        name,
        scope,
        version,
        description,
        deps,
        folder,
        prereqs=prereqs if isinstance(prereqs, str) else None,
        metaskill=program,
        changelog=entries,
    )
    return Loaded(skill, tuple(diags))
