"""The ``metis`` profile: what the Metis skill loader accepts (shared/specs/metis-skills.txt).

Metis reads ``<root>/<name>/SKILL.md`` and skips, with a logged warning, any skill whose
SKILL.md fails its validation; the rest of the library still loads. So every error here
means "Metis will not load this skill". Metis follows the Agent Skills fields, except
that names are ASCII only and scalar metadata values are coerced to strings.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from metapkg.diagnostics import Diagnostic, error, warning
from metapkg.packages.rules import agentskills as fields
from metapkg.profiles import skillfile
from metapkg.profiles.agentskills import OPTIONAL_RULES
from metapkg.profiles.base import Rule, Target

P = "metis"
NAME = re.compile(r"^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$")
MAX_NAME = 64
BODY_TOKEN_WARNING = 5000  # Metis: max(1, len(body) // 4) above this logs a WARNING

RULES: tuple[Rule, ...] = (
    Rule(
        "metis/start",
        P,
        "error",
        "SKILL.md begins with exactly '---' and a newline: no byte-order mark, no CRLF",
        "save the file as UTF-8 without BOM, with LF line endings",
    ),
    Rule(
        "metis/name",
        P,
        "error",
        "name matches ^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$, no '--', at most 64, equals the folder",
        "use ASCII lowercase letters, digits and single hyphens; name the folder the same",
    ),
    Rule(
        "metis/body-size",
        P,
        "warning",
        "the body stays under about 5000 tokens (Metis estimates 4 characters a token)",
        "move detail into references/ files the body points to",
    ),
)


class Metis:
    name = P
    summary = "the Metis skill loader (shared/specs/metis-skills.txt): what it skips"
    rules = (
        *(rule.id for rule in RULES),
        "agentskills/frontmatter",
        "agentskills/description",
        *OPTIONAL_RULES,
    )

    def check(self, target: Target) -> list[Diagnostic]:
        if target.kind != "skill":
            return []
        skill, diags = skillfile.read(target, "agentskills/frontmatter")
        if skill is None:
            return diags
        if not skill.text.startswith("---\n"):
            diags.append(
                error(
                    "metis/start",
                    skill.shown,
                    "Metis requires the file to begin with '---' and a newline (it found a "
                    "byte-order mark, CRLF line endings or leading text); save it as UTF-8 "
                    "without BOM, with LF line endings",
                    1,
                )
            )
        diags.extend(_name(skill, target.folder_name))
        diags.extend(fields.check_description(skill.fm, skill.shown))
        diags.extend(fields.check_optional(skill.fm, skill.shown))
        tokens = max(1, len(skill.fm.body.lstrip("\n")) // 4)
        if tokens > BODY_TOKEN_WARNING:
            diags.append(
                warning(
                    "metis/body-size",
                    skill.shown,
                    f"the body is about {tokens} tokens; Metis warns above "
                    f"{BODY_TOKEN_WARNING}. Move detail into references/ files",
                    skill.fm.body_line,
                )
            )
        return diags

    def check_set(self, targets: Sequence[Target]) -> list[Diagnostic]:
        return []

    def refuses(self, diagnostic: Diagnostic) -> bool:
        return diagnostic.severity == "error"


def _name(skill: skillfile.SkillFile, folder: str) -> Iterator[Diagnostic]:
    name = skill.fm.fields.get("name")
    line = skill.fm.line("name")
    if not isinstance(name, str):
        yield error("metis/name", skill.shown, "'name' is required and must be a string", line)
        return
    if not NAME.match(name) or "--" in name:
        yield error(
            "metis/name",
            skill.shown,
            f"name {name!r} must be ASCII lowercase letters and digits with single inner "
            f"hyphens (Metis: ^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$, no '--')",
            line,
        )
    elif len(name) > MAX_NAME:
        yield error("metis/name", skill.shown, f"name is {len(name)} characters (at most 64)", line)
    if name != folder:
        yield error(
            "metis/name",
            skill.shown,
            f"name {name!r} must equal its folder {folder!r}: Metis finds a skill by folder "
            f"name and skips it otherwise",
            line,
        )
