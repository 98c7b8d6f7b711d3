"""A .3md agent as a metapkg package, and a lone .3md file as a document to check.

Layout: an agent folder holds exactly one agent file: ``AGENTS.md``, or a .3md named after
the folder (``agents/<name>/<name>.3md``) or ``agent.3md`` (the usual name at the root of
a repository, whose folder has no name of its own). A folder with ``AGENTS.md`` and a
top-level .3md file, or with two top-level .3md files, is a ``layout`` error. Other names
are not detected, so a catalog root holding a ``docs.3md`` stays a catalog.

Loading runs the agent3md/1 validator, then the MetaAgents package rules (name, scope,
version, description, dependencies, CHANGELOG) on the flat frontmatter (see metadata.py),
and yields a plain :class:`~metapkg.packages.models.Agent` whose ``source`` is the folder.

A .3md file named on its own is checked as a document, not a package: the validator,
plus the MetaAgents rules for the MetaAgents keys it does use. The publishing rules
(required version and description, CHANGELOG, folder name) apply to its folder.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from metapkg import limits, yamlsafe
from metapkg.agent3md import metadata
from metapkg.agent3md.agent import read_agent
from metapkg.agent3md.document import Document, format_z
from metapkg.agent3md.naming import kebab, skill_names
from metapkg.agent3md.validator import Finding, Report, validate
from metapkg.diagnostics import Diagnostic, error
from metapkg.packages import changelog
from metapkg.packages.frontmatter import Frontmatter
from metapkg.packages.models import Agent
from metapkg.packages.names import MAX_NAME, NAME
from metapkg.packages.rules import fields, files, unicode
from metapkg.safefile import read_regular

SUFFIX = ".3md"


AGENT_FILE = "agent" + SUFFIX


def documents(folder: Path) -> list[Path]:
    """The top-level .3md files of a folder, sorted by name (hidden files skipped)."""
    try:
        with os.scandir(folder) as entries:
            names = sorted(
                e.name
                for e in entries
                if e.name.endswith(SUFFIX) and not e.name.startswith(".") and e.is_file()
            )
    except OSError:
        return []
    return [folder / name for name in names]


def find_document(folder: Path) -> Path | None:
    """The folder's agent file, ``<folder name>.3md`` or ``agent.3md``, or None."""
    for name in (folder.name + SUFFIX, AGENT_FILE):
        if (folder / name).is_file():
            return folder / name
    return None


def load_agent(
    folder: Path, display: str, folder_name: str
) -> tuple[Agent | None, tuple[Diagnostic, ...]]:
    """Load the .3md agent in ``folder``; ``folder_name`` is what the name must equal
    ("" when the folder has no name of its own, as at the root of an archive)."""
    found = documents(folder)
    problem = _layout_problem(folder, found)
    if problem is not None:
        return None, (error("layout", display, problem),)
    path = found[0]
    shown = f"{display}/{path.name}"
    diags: list[Diagnostic] = list(files.check(folder, display))
    if folder_name and path.name not in (folder_name + SUFFIX, AGENT_FILE):
        message = f"rename {path.name} to {folder_name}{SUFFIX} (after its folder) or {AGENT_FILE}"
        diags.append(error("layout", shown, message))
    report, read_diags = _read(path, shown)
    diags.extend(read_diags)
    document = report.document if report else None
    if document is None:
        return None, tuple(diags)
    name = metadata.agent_name(document)
    diags.extend(_name_rules(document, name, shown, folder_name))
    fm = _frontmatter_view(document, name.value)
    diags.extend(fields.check_scope(fm, shown))
    diags.extend(fields.check_version(fm, shown))
    diags.extend(_description_rules(document, fm, shown))
    deps, dep_diags = metadata.dependencies(document, shown)
    diags.extend(dep_diags)
    diags.extend(_skill_name_rules(document, shown))
    version = document.metadata.get("version")
    entries, changelog_diags = changelog.check(folder, display, version)
    diags.extend(changelog_diags)
    if not name.value:
        return None, tuple(diags)
    description, _ = metadata.description(document)
    scope = document.metadata.get("scope")
    agent = Agent(
        "agent", name.value, scope, version, description or "", deps, folder, changelog=entries
    )
    return agent, tuple(diags)


def check_document(path: Path, display: str) -> list[Diagnostic]:
    """Check a lone .3md file: agent3md/1, and the MetaAgents keys it uses."""
    report, diags = _read(path, display)
    document = report.document if report else None
    if document is None:
        return diags
    fm = _frontmatter_view(document, metadata.agent_name(document).value)
    diags.extend(fields.check_scope(fm, display))
    if "version" in document.metadata:
        diags.extend(fields.check_version(fm, display))
    diags.extend(metadata.dependencies(document, display)[1])
    return diags


def _layout_problem(folder: Path, found: list[Path]) -> str | None:
    if not found:
        return f"no {SUFFIX} file here; an agent folder holds AGENTS.md or <name>{SUFFIX}"
    if (folder / "AGENTS.md").is_file():
        return (
            f"holds both AGENTS.md and {found[0].name}; an agent folder holds one or the "
            f"other: remove one (or move the {SUFFIX} file into its own folder)"
        )
    if len(found) > 1:
        listed = ", ".join(p.name for p in found)
        return (
            f"holds {len(found)} {SUFFIX} files ({listed}); an agent folder holds exactly one "
            f"agent: give each its own folder"
        )
    return None


def _read(path: Path, shown: str) -> tuple[Report | None, list[Diagnostic]]:
    try:
        text = read_regular(path, cap=limits.AGENT_3MD_BYTES, follow=False).decode("utf-8")
    except UnicodeDecodeError:
        return None, [error("parse", shown, "not UTF-8 text; save the file as UTF-8")]
    except OSError as exc:
        return None, [error("parse", shown, f"cannot read the file: {exc.strerror}")]
    report = validate(text)
    return report, [*unicode.check(text, shown), *to_diagnostics(report.findings, shown)]


def to_diagnostics(findings: Iterable[Finding], shown: str) -> list[Diagnostic]:
    """Validator findings as metapkg diagnostics: the plane's z leads the message, and the
    line is the plane's ``@plane`` line (or the frontmatter key's)."""
    diags = []
    for finding in findings:
        where = f"plane z={format_z(finding.z)}: " if finding.z is not None else ""
        message = f"{where}{finding.message}"
        diags.append(Diagnostic(finding.level, finding.rule, shown, finding.line, message))
    return diags


def _name_rules(
    document: Document, name: metadata.Name, shown: str, folder_name: str
) -> Iterator[Diagnostic]:
    line = document.key_lines.get(name.key)
    if name.key == "title" and not name.value:
        yield error(
            "name",
            shown,
            f"title {name.written!r} has no Latin letters or digits to make the package name; "
            f"add 'agent: <kebab-case-name>'",
            line,
        )
    elif name.key == "agent" and not NAME.match(name.value):
        yield error(
            "name",
            shown,
            f"agent {name.value!r} is the package name and must be kebab-case: lowercase "
            f"letters and digits in groups joined by single hyphens (e.g. "
            f"{kebab(name.value) or 'my-agent'!r})",
            line,
        )
    if len(name.value) > MAX_NAME:
        yield error(
            "name", shown, f"the name is {len(name.value)} characters; the limit is {MAX_NAME}"
        )
    if name.value and folder_name and name.value != folder_name:
        source = "agent" if name.key == "agent" else f"title {name.written!r} gives"
        yield error(
            "name-dir",
            shown,
            f"{source} {name.value!r} does not match its folder {folder_name!r}; rename one "
            f"so they are equal",
            line,
        )


def _frontmatter_view(document: Document, name: str) -> Frontmatter:
    """The flat keys as the field rules read an AGENTS.md frontmatter, lines included."""
    values: dict[str, object] = {"name": name}
    lines: dict[yamlsafe.Key, int] = {(): document.frontmatter_line}
    for key in ("scope", "version"):
        if key in document.metadata:
            values[key] = document.metadata[key]
            lines[(key,)] = document.key_lines[key]
    text, source = metadata.description(document)
    if text is not None:
        values["description"] = text
        lines[("description",)] = document.key_lines[source]
    return Frontmatter(yamlsafe.Located(values, lines), "", document.frontmatter_line)


def _description_rules(document: Document, fm: Frontmatter, shown: str) -> Iterator[Diagnostic]:
    if "description" in fm.fields:
        yield from fields.check_description(fm, shown)
        return
    yield error(
        "description",
        shown,
        "no 'description:' (or 'persona:'); add one short sentence that says what the agent does",
        document.frontmatter_line,
    )


def _skill_name_rules(document: Document, shown: str) -> Iterator[Diagnostic]:
    _, problems = skill_names(read_agent(document))
    for z, problem in problems:
        plane = document.plane_at(z)
        line = plane.line if plane else None
        yield error("skill-name", shown, f"plane z={format_z(z)}: {problem}", line)
