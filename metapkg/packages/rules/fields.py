"""Frontmatter field rules (name, scope, description, version, prereqs) and the body size."""

from __future__ import annotations

import re
from collections.abc import Iterator

from metapkg.diagnostics import Diagnostic, error, warning
from metapkg.packages.frontmatter import Frontmatter
from metapkg.packages.models import Kind
from metapkg.packages.names import MAX_NAME, NAME, SCOPE
from metapkg.packages.semver import digits_hint, is_semver, too_many_digits

MAX_DESCRIPTION = 1024
MAX_BODY = 20_000  # specs/metaskills.txt: hosts may truncate longer skill bodies
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)


def check_name(fm: Frontmatter, path: str, folder: str) -> Iterator[Diagnostic]:
    name = fm.fields.get("name")
    line = fm.line("name")
    if name is None:
        yield error("name", path, "missing required field 'name'; add name: <kebab-case>", 1)
        return
    if not isinstance(name, str):
        yield error("name", path, f"'name' must be a string, got {name!r}", line)
        return
    if "/" in name:
        yield error(
            "name",
            path,
            f"name {name!r} contains '/'; write the scope in its own field "
            f"(scope: {name.split('/')[0]}, name: {name.split('/')[-1]})",
            line,
        )
        return
    if not NAME.match(name):
        yield error(
            "name",
            path,
            f"name {name!r} must be kebab-case: lowercase letters and digits in groups "
            f"joined by single hyphens (^[a-z0-9]+(-[a-z0-9]+)*$)",
            line,
        )
    elif len(name) > MAX_NAME:
        yield error("name", path, f"name is {len(name)} characters; the limit is 64", line)
    if folder and name != folder:
        yield error(
            "name-dir",
            path,
            f"name {name!r} does not match its folder {folder!r}; rename one so they are equal",
            line,
        )


def check_scope(fm: Frontmatter, path: str) -> Iterator[Diagnostic]:
    if "scope" not in fm.fields:
        return
    scope = fm.fields["scope"]
    line = fm.line("scope")
    if not isinstance(scope, str):
        yield error("scope", path, f"'scope' must be a string, got {scope!r}", line)
    elif not SCOPE.match(scope):
        yield error(
            "scope",
            path,
            f"scope {scope!r} must be lowercase kebab-case segments joined by dots "
            f"(e.g. acme or io.example)",
            line,
        )
    elif len(scope) > MAX_NAME:
        yield error("scope", path, f"scope is {len(scope)} characters; the limit is 64", line)


def check_description(fm: Frontmatter, path: str) -> Iterator[Diagnostic]:
    description = fm.fields.get("description")
    line = fm.line("description")
    if description is None:
        yield error(
            "description", path, "missing required field 'description'; add one short sentence", 1
        )
    elif not isinstance(description, str):
        yield error("description", path, "'description' must be a string", line)
    elif not _COMMENT.sub("", description).strip():
        yield error("description", path, "'description' is empty; add one short sentence", line)
    elif len(description) > MAX_DESCRIPTION:
        yield error(
            "description",
            path,
            f"description is {len(description)} characters; the limit is 1024",
            line,
        )


def check_version(fm: Frontmatter, path: str) -> Iterator[Diagnostic]:
    version = fm.fields.get("version")
    line = fm.line("version")
    if version is None:
        yield error(
            "version",
            path,
            "missing required field 'version'; add a semver such as 1.0.0 (a plain Agent "
            "Skills file? judge it with `metapkg check --profile agentskills`)",
            1,
        )
    elif isinstance(version, bool) or not isinstance(version, str):
        yield error(
            "version",
            path,
            f"version {version} was read by YAML as a {type(version).__name__}; write a "
            f'3-segment version such as "{_three_segments(version)}" (quoted if in doubt)',
            line,
        )
    elif too_many_digits(version):
        yield error("version", path, f"version is not usable: {digits_hint()}", line)
    elif not is_semver(version):
        yield error(
            "version",
            path,
            f"version {version!r} is not 3-segment semver (MAJOR.MINOR.PATCH, e.g. 1.0.0)",
            line,
        )


def _three_segments(value: object) -> str:
    parts = str(value).split(".") if not isinstance(value, bool) else ["1"]
    parts = [p for p in parts if p.isdigit()] or ["1"]
    return ".".join(([*parts, "0", "0"])[:3])


def check_prereqs(fm: Frontmatter, path: str, kind: Kind) -> Iterator[Diagnostic]:
    if "prereqs" not in fm.fields:
        return
    line = fm.line("prereqs")
    if kind == "agent":
        yield error(
            "prereqs-agent",
            path,
            "agents cannot declare 'prereqs'; move setup steps into a '## Setup' section "
            "of the body",
            line,
        )
    elif not isinstance(fm.fields["prereqs"], str):
        yield error(
            "prereqs",
            path,
            "'prereqs' must be a string (a YAML literal block: 'prereqs: |' then indented lines)",
            line,
        )


def check_body(fm: Frontmatter, path: str) -> Iterator[Diagnostic]:
    if len(fm.body) > MAX_BODY:
        yield warning(
            "body-length",
            path,
            f"the body is {len(fm.body)} characters; hosts may truncate skill bodies over "
            f"{MAX_BODY}: move detail into reference files next to SKILL.md",
            fm.body_line,
        )
