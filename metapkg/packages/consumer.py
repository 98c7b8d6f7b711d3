"""Install's policy: which findings stop a consumer's install, and which it tolerates.

``check`` is for publishers: every rule of the spec they write to is an error there.
``add`` and ``install`` are for consumers, who cannot edit what someone else published:
a package installs whenever it is safe and its hosts would load it. A finding of the
package's own rules stops an install only when

* it is unsafe (links, traversal, limits, control characters, bad MCP strings: every rule
  not named below stays an error, so a new rule is strict until it is listed here);
* it breaks the graph (a dependency that cannot be read: ``dependencies``, ``origin``);
* the package takes part in resolution (it declares ``dependencies``, or another package
  depends on it: metapkg/actions/resolution.py) and its version or CHANGELOG.md is not
  one its dependents can rely on (``version``, ``changelog-*``).

Every other error of the spec is *tolerated*: reported as a warning marked
``tolerated``, and ``--strict`` (or ``strict: true``) turns it back into an error. The
package is then read the way hosts read it: a name that is not a package name installs
under its folder name, a version that is not SemVer is ignored (the lock pins the
commit and integrity anyway).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Iterator

from metapkg.diagnostics import Diagnostic
from metapkg.packages.frontmatter import Frontmatter, FrontmatterProblem, parse
from metapkg.packages.names import MAX_NAME, NAME

# Rules of the spec a consumer's install tolerates in any package.
TOLERATED = frozenset(
    {
        "name",  # not kebab-case, too long, a template placeholder: the folder name is used
        "name-dir",  # provisioned under its folder name
        "scope",  # an unusable scope is left out of the package's name
        "description",  # too long or missing: hosts truncate, or list the name only
        "prereqs",  # not a string: left out
        "prereqs-agent",
        "template-placeholder",
        "mcp-filename",  # the file's name, not the server's
        "mcp-format",  # indentation and the final newline
    }
)
TOLERATED_PREFIXES = ("agentskills/",)  # the Agent Skills optional fields' types and sizes
# Rules its dependents rely on: tolerated only in a package outside resolution (no
# dependencies of its own, and none on it: a leaf the manifest asks for, pinned by commit
# and integrity; its version, when SemVer, is still recorded).
RESOLUTION = frozenset(
    {"version", "changelog-missing", "changelog-header", "changelog-version", "changelog-order"}
)
# ``{{project_name}}``: a template's placeholder, meant to be filled in by whoever copies it.
PLACEHOLDER = re.compile(r"\{\{[^{}\n]*\}\}")
# A top-level ``key: {{placeholder}}`` line that YAML reads as a broken flow mapping.
_UNQUOTED = re.compile(r"^([A-Za-z_][\w-]*:[ \t]+)(\{\{.*\}\})[ \t]*$", re.MULTILINE)


def takes_part(fm: Frontmatter) -> bool:
    """Whether the package takes part in resolution: it declares dependencies."""
    return "dependencies" in fm.fields


def is_tolerated(diagnostic: Diagnostic, resolution: bool) -> bool:
    if diagnostic.severity != "error":
        return False
    if diagnostic.rule in RESOLUTION:
        return not resolution
    return diagnostic.rule in TOLERATED or diagnostic.rule.startswith(TOLERATED_PREFIXES)


def tolerate(diagnostics: Iterable[Diagnostic], resolution: bool) -> Iterator[Diagnostic]:
    """The findings as install reports them: tolerated errors become warnings. Their
    messages stay the spec's (``--strict`` shows them as errors); what install does
    instead is said once per rule in the grouped summary (metapkg/actions/findings.py)."""
    found = list(diagnostics)
    renamed = any(d.rule == "name" and is_tolerated(d, resolution) for d in found)
    for d in found:
        if renamed and d.rule == "name-dir":
            continue  # one finding for a name that is no package name: it installs as its folder
        if is_tolerated(d, resolution):
            yield dataclasses.replace(d, severity="warning", tolerated=True)
        else:
            yield d


def strict(diagnostic: Diagnostic) -> Diagnostic:
    """``--strict``: a tolerated finding is the error the spec says it is."""
    if not diagnostic.tolerated:
        return diagnostic
    return dataclasses.replace(diagnostic, severity="error")


def quoted_placeholders(text: str) -> Frontmatter | None:
    """A template's frontmatter (``name: {{project_name}}``) as hosts that repair YAML
    read it: each unquoted placeholder value quoted. None when that does not help."""
    repaired, count = _UNQUOTED.subn(lambda m: m.group(1) + _quote(m.group(2)), text)
    if count == 0:
        return None
    try:
        return parse(repaired)
    except FrontmatterProblem:
        return None


def _quote(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def placeholders(fm: Frontmatter) -> list[str]:
    """The template placeholders in the name and description hosts show."""
    found: list[str] = []
    for key in ("name", "description"):
        value = fm.fields.get(key)
        if isinstance(value, str):
            found += PLACEHOLDER.findall(value)
    return list(dict.fromkeys(found))


def install_name(name: object, folder_name: str) -> str | None:
    """The name a package installs under: its own when it is a package name, else its
    folder's (as Claude Code and Codex do), else its name made one; None if none works."""
    if isinstance(name, str) and _usable(name):
        return name
    candidates = [folder_name, _slug(folder_name)]
    if isinstance(name, str) and not PLACEHOLDER.search(name):
        candidates.append(_slug(name))
    return next((c for c in candidates if _usable(c)), None)


def _usable(name: str) -> bool:
    return bool(NAME.match(name)) and len(name) <= MAX_NAME


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
