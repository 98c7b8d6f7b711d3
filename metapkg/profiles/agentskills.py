"""The ``agentskills`` profile: the agentskills.io specification and its reference
validator (``skills-ref validate``).

It judges skills only (agents and MCP configs are not Agent Skills). Verdicts agree with
skills-ref wherever the specification is clear; the README lists where they differ.
"""

from __future__ import annotations

from collections.abc import Sequence

from metapkg.diagnostics import Diagnostic
from metapkg.packages.rules import agentskills as fields
from metapkg.profiles import skillfile
from metapkg.profiles.base import Rule, Target

P = "agentskills"

RULES: tuple[Rule, ...] = (
    Rule(
        "agentskills/frontmatter",
        P,
        "error",
        "SKILL.md is UTF-8 and opens with YAML frontmatter that parses as a mapping",
        "start the file with '---', write 'key: value' lines, close with '---'",
    ),
    Rule(
        "agentskills/name",
        P,
        "error",
        "name: 1-64 lowercase letters, digits and single inner hyphens, equal to the folder",
        "write name: my-skill in a folder named my-skill",
    ),
    Rule(
        "agentskills/description",
        P,
        "error",
        "description is a non-empty string of at most 1024 characters",
        "say what the skill does and when to use it, in one or two sentences",
    ),
    Rule(
        "agentskills/fields",
        P,
        "error",
        "only the specification's fields at the top level of the frontmatter",
        "move other keys under 'metadata' (a map of strings)",
    ),
    Rule(
        "agentskills/license",
        P,
        "error",
        "license is a string: a license name or the name of a bundled license file",
        "write license: Apache-2.0 (or license: Proprietary. LICENSE.txt has the terms)",
    ),
    Rule(
        "agentskills/compatibility",
        P,
        "error",
        "compatibility is a string of 1 to 500 characters",
        "say in a sentence what the skill needs (product, tools, network), or drop the field",
    ),
    Rule(
        "agentskills/metadata",
        P,
        "error",
        "metadata is a map of string keys to string values",
        'quote values YAML would read as numbers (version: "1.0"); no nested lists or maps',
    ),
    Rule(
        "agentskills/allowed-tools",
        P,
        "error",
        "allowed-tools is one space-separated string",
        "write allowed-tools: Bash(git:*) Read",
    ),
)

# The optional fields: MetaAgents extends Agent Skills, so every profile runs these.
OPTIONAL_RULES = (
    "agentskills/license",
    "agentskills/compatibility",
    "agentskills/metadata",
    "agentskills/allowed-tools",
)


class AgentSkills:
    name = P
    summary = "the agentskills.io specification, as its reference validator skills-ref reads it"
    rules = tuple(rule.id for rule in RULES)

    def check(self, target: Target) -> list[Diagnostic]:
        if target.kind != "skill":
            return []
        skill, diags = skillfile.read(target, "agentskills/frontmatter")
        if skill is None:
            return diags
        fm, shown = skill.fm, skill.shown
        diags.extend(fields.check_fields(fm, shown))
        diags.extend(fields.check_name(fm, shown, target.folder_name))
        diags.extend(fields.check_description(fm, shown))
        diags.extend(fields.check_optional(fm, shown))
        return diags

    def check_set(self, targets: Sequence[Target]) -> list[Diagnostic]:
        return []

    def refuses(self, diagnostic: Diagnostic) -> bool:
        """Agent Skills clients load leniently, but skip a skill whose frontmatter cannot
        be read or that has no description (agentskills.io client guidance)."""
        return diagnostic.severity == "error" and diagnostic.rule in (
            "agentskills/frontmatter",
            "agentskills/description",
        )
