"""Metis: a skill loader with two roots, the workspace overriding the global library.

Skills in ``<workspace>/.metis/skills/<name>/SKILL.md`` (the folder name must equal the
skill's ``name``); the global root is ``~/.metis/skills/``. Metis has no agents and no MCP
config. Frontmatter it reads: name, description, license, compatibility, metadata,
allowed-tools (others are ignored).

Its loader's rules are the ``metis`` check profile (profiles/metis.py): an install runs
them on every skill provisioned here, and a skill Metis would skip fails the install.

Source: specs/metis-skills.txt (sections on the two roots and the SKILL.md schema).
"""

from __future__ import annotations

from metapkg.hosts.model import HostSpec, UserScope

HOST = HostSpec(
    name="metis",
    title="Metis",
    skills=".metis/skills",
    reads_skills=(".metis/skills",),
    user=UserScope(skills="~/.metis/skills"),
    markers=(".metis",),
    sources=("specs/metis-skills.txt",),
    profile="metis",
)
