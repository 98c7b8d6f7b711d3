"""The ``universal`` profile: the Universal Agent Skill spec
(shared/specs/universal-agent-skill.md), an Agent Skills superset with tool contracts,
permissions, secrets and host limits.

The Agent Skills fields are judged as in the ``agentskills`` profile; fields beyond them
are the spec's extensions, checked against its Appendix A schema. Tool contracts live in
:mod:`metapkg.profiles.universal_tools`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from metapkg.diagnostics import Diagnostic, error, warning
from metapkg.packages.rules import agentskills as fields
from metapkg.packages.semver import is_semver
from metapkg.profiles import skillfile, universal_tools
from metapkg.profiles.agentskills import OPTIONAL_RULES
from metapkg.profiles.base import Rule, Target

P = "universal"
EXTENSION_FIELDS = (
    "spec_version", "version", "tags", "when_to_use", "permissions", "safety", "secrets",
    "tools", "host_overrides", "evaluation", "provenance", "depends_on", "extensions",
)  # fmt: skip
SPEC_VERSION = re.compile(r"^2\.[0-9]+$")
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
PERMISSION_KEYS = {
    "filesystem": ("read", "write"),
    "network": ("outbound",),
    "processes": ("allow_subprocess",),
}
MAX_UPLOAD_BYTES = 8 * 1024 * 1024  # Claude API: 8 MB per skill, all files combined
MAX_SKILLS_PER_REQUEST = 8  # Claude API: container.skills

RULES: tuple[Rule, ...] = (
    Rule(
        "universal/fields",
        P,
        "warning",
        "top-level fields are Agent Skills fields or the spec's documented extensions",
        "move other keys under 'metadata' or 'extensions'",
    ),
    Rule(
        "universal/spec-version",
        P,
        "error",
        "spec_version is a string '2.N'; version, when present, is semver",
        'write spec_version: "2.1" and version: "1.0.0" (quoted)',
    ),
    Rule(
        "universal/tools",
        P,
        "error",
        "tools is a list of tools with a portable name, description, input_schema, implementation",
        "give every tool name, description, input_schema and implementation",
    ),
    Rule(
        "universal/input-schema",
        P,
        "error",
        "a tool's input_schema is a JSON Schema of type: object",
        "wrap the parameters: {type: object, properties: {...}, required: [...]}",
    ),
    Rule(
        "universal/runtime",
        P,
        "error",
        "implementation.runtime is python, node or bash; its other keys are the spec's",
        "pick one of the three runtimes (compile TypeScript to .js)",
    ),
    Rule(
        "universal/entrypoint",
        P,
        "error",
        "the entrypoint is a relative file of the skill ending in .py, .js/.mjs or .sh",
        "point entrypoint at a file under scripts/ with the runtime's extension",
    ),
    Rule(
        "universal/tools-json",
        P,
        "error",
        "tools.json, when present, is a JSON array of tools equal to SKILL.md's tools",
        "regenerate tools.json from SKILL.md (or delete it)",
    ),
    Rule(
        "universal/permissions",
        P,
        "error",
        "permissions has the spec's shape; globs are relative, '/'-separated, no negation",
        "write permissions: {filesystem: {read: [...], write: [...]}, network: {outbound: []}}",
    ),
    Rule(
        "universal/secrets",
        P,
        "error",
        "secrets.required lists {name, usage: env} entries with environment variable names",
        "write secrets: {required: [{name: API_KEY, usage: env}]}",
    ),
    Rule(
        "universal/host-limits",
        P,
        "error",
        "a skill stays within host limits: at most 8 MB of files (Claude API)",
        "move large assets out of the skill; download them at run time instead",
    ),
)


class Universal:
    name = P
    summary = "the Universal Agent Skill spec: Agent Skills plus tools, permissions, secrets"
    rules = (
        *(rule.id for rule in RULES),
        "agentskills/frontmatter",
        "agentskills/name",
        "agentskills/description",
        *OPTIONAL_RULES,
    )

    def check(self, target: Target) -> list[Diagnostic]:
        if target.kind != "skill":
            return []
        skill, diags = skillfile.read(target, "agentskills/frontmatter")
        if skill is None:
            return diags
        fm, shown = skill.fm, skill.shown
        diags.extend(fields.check_name(fm, shown, target.folder_name))
        diags.extend(fields.check_description(fm, shown))
        diags.extend(fields.check_optional(fm, shown))
        diags.extend(_fields(skill))
        diags.extend(_versions(skill))
        diags.extend(universal_tools.check_tools(skill, target.path))
        diags.extend(universal_tools.check_tools_json(skill, target.path, target.display))
        diags.extend(_permissions(skill))
        diags.extend(_secrets(skill))
        diags.extend(_size(target.path, target.display))
        return diags

    def check_set(self, targets: Sequence[Target]) -> list[Diagnostic]:
        skills = [t for t in targets if t.kind == "skill"]
        if len(skills) <= MAX_SKILLS_PER_REQUEST:
            return []
        return [
            warning(
                "universal/host-limits",
                skills[0].display.rsplit("/", 1)[0] or ".",
                f"{len(skills)} skills: the Claude API attaches at most "
                f"{MAX_SKILLS_PER_REQUEST} skills to one request; pick per task",
            )
        ]

    def refuses(self, diagnostic: Diagnostic) -> bool:
        return diagnostic.severity == "error" and diagnostic.rule in (
            "agentskills/frontmatter",
            "agentskills/description",
            "universal/host-limits",
        )


def _fields(skill: skillfile.SkillFile) -> Iterator[Diagnostic]:
    unknown = [k for k in skill.fm.fields if k not in (*fields.FIELDS, *EXTENSION_FIELDS)]
    if unknown:
        yield warning(
            "universal/fields",
            skill.shown,
            f"fields outside the spec: {', '.join(map(str, unknown))}; some hosts ignore or "
            f"reject them. Move them under 'metadata' or 'extensions'",
            skill.fm.line(str(unknown[0])),
        )


def _versions(skill: skillfile.SkillFile) -> Iterator[Diagnostic]:
    fm = skill.fm.fields
    spec = fm.get("spec_version")
    if "spec_version" in fm and not (isinstance(spec, str) and SPEC_VERSION.match(spec)):
        yield error(
            "universal/spec-version",
            skill.shown,
            f'spec_version {spec!r} must be a quoted "2.N" string such as "2.1"',
            skill.fm.line("spec_version"),
        )
    version = fm.get("version")
    if "version" in fm and not (isinstance(version, str) and is_semver(version)):
        yield error(
            "universal/spec-version",
            skill.shown,
            f'version {version!r} must be a semver string such as "1.0.0"',
            skill.fm.line("version"),
        )


def _permissions(skill: skillfile.SkillFile) -> Iterator[Diagnostic]:
    if "permissions" not in skill.fm.fields:
        return
    value = skill.fm.fields["permissions"]

    def bad(message: str, *key: str) -> Diagnostic:
        return error(
            "universal/permissions", skill.shown, message, skill.fm.line("permissions", *key)
        )

    if not isinstance(value, dict):
        yield bad("'permissions' must be a mapping of filesystem, network and processes")
        return
    for group, section in value.items():
        allowed = PERMISSION_KEYS.get(str(group))
        if allowed is None:
            yield bad(f"unknown permission group {group!r}; use filesystem, network, processes")
        elif not isinstance(section, dict) or any(k not in allowed for k in section):
            yield bad(f"permissions.{group} may hold only {', '.join(allowed)}", str(group))
        else:
            yield from _permission_values(str(group), section, bad)


def _permission_values(
    group: str, section: dict[Any, Any], bad: Callable[..., Diagnostic]
) -> Iterator[Diagnostic]:
    for key, items in section.items():
        if key == "allow_subprocess":
            if not isinstance(items, bool):
                yield bad("permissions.processes.allow_subprocess must be true or false", group)
            continue
        if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
            yield bad(f"permissions.{group}.{key} must be a list of strings", group, key)
            continue
        if group != "filesystem":
            continue
        for glob in items:
            problem = _glob_problem(glob)
            if problem:
                yield bad(f"permissions.{group}.{key}: {glob!r} {problem}", group, key)


def _glob_problem(glob: str) -> str | None:
    if glob.startswith("!"):
        return "is a negation; the spec has none: list what is allowed"
    if "\\" in glob:
        return "uses '\\'; globs use '/' on every OS"
    if glob.startswith("/") or re.match(r"^[A-Za-z]:", glob) or glob.startswith("~"):
        return "is absolute; globs are relative to the workspace root"
    if ".." in glob.split("/"):
        return "climbs out with '..'; globs stay inside the root"
    return None


def _secrets(skill: skillfile.SkillFile) -> Iterator[Diagnostic]:
    if "secrets" not in skill.fm.fields:
        return
    value = skill.fm.fields["secrets"]
    line = skill.fm.line("secrets")
    required = value.get("required", []) if isinstance(value, dict) else None
    if not isinstance(value, dict) or set(value) - {"required"} or not isinstance(required, list):
        yield error(
            "universal/secrets",
            skill.shown,
            "'secrets' must be a mapping with one key, 'required': a list of secrets",
            line,
        )
        return
    for index, item in enumerate(required):
        problem = _secret_problem(item)
        if problem:
            yield error(
                "universal/secrets",
                skill.shown,
                f"secrets.required[{index}] {problem}",
                skill.fm.line("secrets", "required", index),
            )


def _secret_problem(item: object) -> str | None:
    if not isinstance(item, dict):
        return "must be a mapping with name and usage"
    unknown = set(item) - {"name", "usage", "description", "optional"}
    if unknown:
        return f"has unknown keys {', '.join(sorted(map(str, unknown)))}"
    name = item.get("name")
    if not isinstance(name, str) or not ENV_NAME.match(name):
        return f"name {name!r} must be an environment variable name (API_KEY)"
    if item.get("usage") != "env":
        return "usage must be 'env' (secrets reach tools as environment variables)"
    if "optional" in item and not isinstance(item["optional"], bool):
        return "optional must be true or false"
    return None


def _size(folder: Path, display: str) -> Iterator[Diagnostic]:
    total = 0
    for root, _, names in os.walk(folder):
        for name in names:
            path = Path(root, name)
            if not path.is_symlink():
                total += path.stat().st_size
    if total > MAX_UPLOAD_BYTES:
        yield error(
            "universal/host-limits",
            display,
            f"the skill's files add up to {total / 1024 / 1024:.1f} MB; the Claude API takes "
            f"at most 8 MB per skill",
        )
