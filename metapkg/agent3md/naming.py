"""Names for hosts: the agent's and each skill plane's, in MetaAgents kebab-case.

A skill plane becomes a host skill folder named after its label in kebab-case
(``label="Code Search"`` -> ``code-search``). Two labels that differ only in case or
punctuation would land in one folder, and a label with no Latin letters or digits has no
folder name at all: both are ``skill-name`` errors.
"""

from __future__ import annotations

import re
import unicodedata

from metapkg.agent3md.agent import AgentDocument, js_trim
from metapkg.agent3md.document import format_z
from metapkg.packages.names import MAX_NAME

_NOT_ALNUM = re.compile(r"[^a-z0-9]+")


def kebab(text: str) -> str:
    """``"Code Reviewer"`` -> ``"code-reviewer"``; accents dropped, other letters lost."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return _NOT_ALNUM.sub("-", ascii_text.lower()).strip("-")


def skill_names(agent: AgentDocument) -> tuple[dict[float, str], list[tuple[float, str]]]:
    """({skill z: folder name}, [(skill z, problem)]) for every labelled skill plane.

    Unlabelled skills are left to the validator's ``missing-label`` rule.
    """
    names: dict[float, str] = {}
    problems: list[tuple[float, str]] = []
    taken: dict[str, float] = {}
    for skill in agent.skills:
        label = js_trim(skill.plane.label or "")
        if not label:
            continue
        name = kebab(label)
        if not name:
            problems.append(
                (
                    skill.z,
                    f'label "{label}" has no Latin letters or digits to name a skill '
                    f'folder; use a kebab-case label such as "search"',
                )
            )
        elif len(name) > MAX_NAME:
            problems.append(
                (
                    skill.z,
                    f'label "{label}" makes a {len(name)}-character skill name; the '
                    f"limit is {MAX_NAME}",
                )
            )
        elif name in taken:
            problems.append(
                (
                    skill.z,
                    f'label "{label}" and the label at z={format_z(taken[name])} both '
                    f'become skill "{name}"; make the labels differ',
                )
            )
        else:
            taken[name] = skill.z
            names[skill.z] = name
    return names, problems
