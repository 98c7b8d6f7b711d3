"""Load one package from disk: parse it, run every per-package rule, build the model."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from metapkg.diagnostics import Diagnostic, error
from metapkg.packages import changelog, mcp, metaskill, plain
from metapkg.packages import consumer as policy
from metapkg.packages.frontmatter import Frontmatter, FrontmatterProblem, opens_frontmatter, parse
from metapkg.packages.models import Agent, ChangelogEntry, Dependency, Kind, Package, Skill
from metapkg.packages.names import MAX_NAME, SCOPE
from metapkg.packages.rules import agentskills, fields, files, unicode
from metapkg.packages.rules.dependencies import DependencyContext, parse_dependencies
from metapkg.packages.semver import is_semver
from metapkg.safefile import read_regular

TYPE_CHECKING = False
if TYPE_CHECKING:
    from metapkg.packages.formats import Registry

MANIFEST_FILES: dict[Kind, str] = {"agent": "AGENTS.md", "skill": "SKILL.md"}


@dataclass(frozen=True)
class Loaded:
    package: Package | None  # None when not even a name could be read
    diagnostics: tuple[Diagnostic, ...]

    @property
    def ok(self) -> bool:
        return self.package is not None and not any(d.severity == "error" for d in self.diagnostics)


def detect_kind(path: Path, formats: Registry | None = None) -> Kind | None:
    """What a path holds, by the first format of the registry (packages/formats.py) that
    recognises it: a plugin folder, a folder with SKILL.md, AGENTS.md or <name>.3md, or an
    MCP .json file."""
    found = (formats or _formats()).detect(path)
    return found.kind if found is not None else None


def _formats() -> Registry:
    from metapkg.packages.formats import FORMATS

    return FORMATS


def load_package(
    path: Path,
    display: str,
    kind: Kind | None = None,
    folder_name: str | None = None,
    *,
    consumer: bool = False,
) -> Loaded:
    """Load the package at ``path`` (a folder, or an MCP file); ``display`` names it.

    ``folder_name`` overrides the name the ``name-dir`` rule compares against (a package at
    the root of a downloaded archive has no meaningful folder name of its own).

    ``consumer`` is install's reading (metapkg/packages/consumer.py). A SKILL.md or
    AGENTS.md that declares neither ``version`` nor ``dependencies`` is a plain Agent
    Skills / agents.md file: it loads as a leaf package with a ``not-metaagents`` note
    instead of the version and CHANGELOG errors. In every package the spec's errors that
    a consumer cannot act on and hosts load anyway (a long description, a name that is
    not kebab-case or not its folder's, a template, a version without a CHANGELOG in a
    package with no dependencies...) are warnings marked ``tolerated``, and the package
    is read as hosts read it (under its folder name, without an unusable version).
    ``check`` (the author's reading, ``consumer=False``) keeps all of these errors.
    """
    kind = kind or detect_kind(path)
    if kind is None:
        return Loaded(None, (_not_a_package(display),))
    if kind not in MANIFEST_FILES and kind != "mcp":  # a format of its own (a plugin)
        entry = _formats().for_kind(kind)
        if entry is not None:
            name = folder_name if folder_name is not None else path.name
            return Loaded(*entry.load(path, display, name, consumer))
    if kind == "mcp":
        model, diags = mcp.load(path, display)
        found = [*diags, *files.check(path, display)]
        if consumer:  # its file name and formatting; its _meta.version stays strict
            found = list(policy.tolerate(found, resolution=True))
        return Loaded(model, tuple(found))
    # -- agent.3md: a folder with a .3md is loaded (and judged) by metapkg/agent3md ---------
    if kind == "agent":
        from metapkg.agent3md.package import documents, load_agent

        if documents(path):  # <name>.3md, or a stray .3md beside AGENTS.md (an error)
            name = folder_name if folder_name is not None else path.name
            return Loaded(*load_agent(path, display, name))
    # -- end agent.3md ----------------------------------------------------------------------
    reading = _Reading(
        path, display, kind, folder_name if folder_name is not None else path.name, consumer
    )
    return _load_markdown(reading)


def _not_a_package(display: str) -> Diagnostic:
    return error(
        "layout",
        display,
        "not a package: expected a plugin folder (plugin.json), a folder with SKILL.md, "
        "AGENTS.md or <name>.3md, or an MCP .json file",
    )


@dataclass(frozen=True)
class _Reading:
    folder: Path
    display: str
    kind: Kind
    folder_name: str
    consumer: bool

    @property
    def shown(self) -> str:
        return f"{self.display}/{MANIFEST_FILES[self.kind]}"


def _load_markdown(r: _Reading) -> Loaded:
    filename = MANIFEST_FILES[r.kind]
    try:
        text = read_regular(r.folder / filename, follow=False).decode("utf-8")
    except FileNotFoundError:
        return Loaded(None, (error("layout", r.display, f"{filename} is missing"),))
    except UnicodeDecodeError:
        return Loaded(None, (error("frontmatter", r.shown, f"{filename} is not UTF-8 text"),))
    except OSError as exc:  # a link, a FIFO, a device, too large, unreadable
        message = f"cannot read {filename}: {exc.strerror}"
        return Loaded(None, (error("layout", r.shown, message),))
    diags: list[Diagnostic] = [*files.check(r.folder, r.display), *unicode.check(text, r.shown)]
    if r.consumer and r.kind == "agent" and not opens_frontmatter(text):
        return Loaded(*plain.agent_without_frontmatter(r.folder, r.shown, r.folder_name, diags))
    try:
        fm = parse(text)
    except FrontmatterProblem as exc:
        repaired = policy.quoted_placeholders(text) if r.consumer else None
        if repaired is None:
            diags.append(error("frontmatter", r.shown, exc.message, exc.line))
            return Loaded(None, tuple(diags))
        fm = repaired
    is_plain = r.consumer and not plain.declares_metaagents(fm)
    found = [*_field_rules(fm, r, is_plain)]
    if r.consumer and (template := _template(fm, r)) is not None:
        found = [d for d in found if d.rule not in ("name", "name-dir")] + [template]
    deps, dep_diags = parse_dependencies(
        fm.fields.get("dependencies"), fm.line, DependencyContext(r.shown)
    )
    found.extend(dep_diags)
    entries: tuple[ChangelogEntry, ...] = ()
    if not is_plain:
        entries, changelog_diags = changelog.check(r.folder, r.display, fm.fields.get("version"))
        found.extend(changelog_diags)
    name = fm.fields.get("name")
    if r.consumer:  # installed under its folder name when its own is no package name
        name = policy.install_name(name, r.folder_name)
    if not isinstance(name, str):
        return Loaded(None, (*diags, *found))
    if is_plain:
        found.append(plain.not_metaagents(fm, r.folder, r.shown, r.kind, name))
    if r.consumer:
        found = list(policy.tolerate(found, policy.takes_part(fm)))
    diags.extend(found)
    # What could be read is kept even when a rule failed: check reports every finding,
    # and install stops on the errors anyway.
    common = _common_fields(fm, r, name, is_plain, deps)
    if r.kind == "agent":
        return Loaded(Agent(**common, changelog=entries), tuple(diags))
    diags.extend(fields.check_body(fm, r.shown))
    program, program_diags = metaskill.check(fm, r.folder, r.shown)
    diags.extend(program_diags)
    prereqs = fm.fields.get("prereqs")
    skill = Skill(
        **common,
        prereqs=prereqs if isinstance(prereqs, str) else None,
        metaskill=program,
        changelog=entries,
    )
    return Loaded(skill, tuple(diags))


def _field_rules(fm: Frontmatter, r: _Reading, is_plain: bool) -> Iterator[Diagnostic]:
    yield from fields.check_name(fm, r.shown, r.folder_name)
    yield from fields.check_scope(fm, r.shown)
    yield from fields.check_description(fm, r.shown)
    if not is_plain:
        yield from fields.check_version(fm, r.shown)
    yield from fields.check_prereqs(fm, r.shown, r.kind)
    yield from agentskills.check_optional(fm, r.shown)


def _template(fm: Frontmatter, r: _Reading) -> Diagnostic | None:
    """A template to fill in (``name: {{project_name}}``): said once, as one finding."""
    found = policy.placeholders(fm)
    if not found:
        return None
    return error(
        "template-placeholder",
        r.shown,
        f"this {r.kind} is a template: its frontmatter holds the placeholder(s) "
        f"{', '.join(found)}, to be filled in by whoever copies it; fill them in (or "
        f"remove the template from the catalog)",
        fm.line("name") if policy.PLACEHOLDER.search(str(fm.fields.get("name"))) else 1,
    )


def _common_fields(
    fm: Frontmatter, r: _Reading, name: str, is_plain: bool, deps: tuple[Dependency, ...]
) -> dict[str, Any]:
    scope, version = fm.fields.get("scope"), fm.fields.get("version")
    description = fm.fields.get("description")
    if r.consumer:  # what install tolerates is left out of the package's identity
        scope = scope if isinstance(scope, str) and _scope_ok(scope) else None
        version = version if isinstance(version, str) and is_semver(version) else None
    return {
        "kind": r.kind,
        "name": name,
        "scope": scope if isinstance(scope, str) else None,
        "version": version if isinstance(version, str) else None,
        "description": description if isinstance(description, str) else "",
        "dependencies": deps,
        "source": r.folder,
        "metaagents": not is_plain,
        "metadata_version": agentskills.metadata_version(fm),
        "folder_name": r.folder_name if r.consumer and r.folder_name not in ("", name) else None,
    }


def _scope_ok(scope: str) -> bool:
    return bool(SCOPE.match(scope)) and len(scope) <= MAX_NAME
