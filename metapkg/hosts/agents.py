"""The shared ``.agents/skills`` folder of the Agent Skills standard.

Not a program but a place: ``.agents/skills/<name>/`` is read by Codex, Cursor, GitHub
Copilot (VS Code), Gemini CLI and OpenCode (their modules say so and cite their docs), so
every host whose ``skills`` is ``.agents/skills`` shares this one copy. No host is known to
read ``.agents/agents/``: agents are written only where a host reads them.

Sources: https://agentskills.io, https://developers.openai.com/codex/skills,
https://code.visualstudio.com/docs/agent-customization/agent-skills,
https://opencode.ai/docs/skills.
"""

from __future__ import annotations

from metapkg.hosts.model import HostSpec, UserScope

HOST = HostSpec(
    name="agents",
    title="shared Agent Skills folder",
    skills=".agents/skills",
    reads_skills=(".agents/skills",),
    user=UserScope(skills="~/.agents/skills"),
    markers=(".agents",),
    sources=("https://agentskills.io",),
)
