"""``run_metaskill`` by name in a project: look up, gate, check, execute. Shared by
``metapkg run`` and ``metapkg mcp``; every refusal is an ``error:`` string, as the spec's
tool contract requires."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from metapkg import manifest as manifest_file
from metapkg.diagnostics import MetapkgError, capped
from metapkg.manifest import Manifest
from metapkg.metaskills.calls import Services
from metapkg.metaskills.host import Program, execute
from metapkg.metaskills.inputs import problem_in
from metapkg.metaskills.installed import (
    MAX_INSTRUCTIONS,
    InstalledSkill,
    SkillProgram,
    drift_problem,
    inspect_skill,
    provisioned_skills,
    read_lock,
    trust_problem,
)


@dataclass(frozen=True)
class Entry:
    skill: InstalledSkill
    program: SkillProgram
    untrusted: str | None  # why it may not run here, when it may not

    @property
    def runnable(self) -> bool:
        return self.program.runnable and self.untrusted is None

    def catalog_line(self) -> str:
        line = f"- {self.skill.name}: {self.program.description}"
        if self.runnable:
            return f"{line} (metaskill: {self.program.language})"
        return f"{line} (not runnable: {self.program.problem or self.untrusted})"


@dataclass(frozen=True)
class Project:
    root: Path
    manifest: Manifest
    entries: dict[str, Entry]  # every provisioned skill, static ones included

    @property
    def metaskills(self) -> list[Entry]:
        return [e for e in self.entries.values() if e.program.path is not None]

    @property
    def runnable(self) -> list[str]:
        return sorted(e.skill.name for e in self.metaskills if e.runnable)

    def run(self, name: str, input: Any, services: Services, require_input: bool = False) -> str:
        entry = self.entries.get(name)
        if entry is None:
            known = ", ".join(self.runnable) or "none"
            return f"error: unknown metaskill {name!r}; runnable metaskills here: {known}"
        if entry.program.path is None:
            return (
                f"error: skill {name!r} is a static skill, not a metaskill (it has no "
                f"program); use its SKILL.md instructions instead"
            )
        if entry.program.problem is not None:
            return f"error: metaskill {name!r} cannot run: {entry.program.problem}"
        if entry.untrusted is not None:
            return f"error: {entry.untrusted}"
        if not isinstance(input, dict):
            return "error: input must be a JSON object"
        problem = problem_in(input)
        if problem is not None:
            return f"error: input is not usable: {problem}"
        if require_input and not input:
            return _input_required(name, entry.program.instructions)
        drift = drift_problem(entry.skill)
        if drift is not None:
            return f"error: {drift}"
        path = entry.program.path
        try:
            source = (entry.skill.folder / path).read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            return f"error: cannot read the program {entry.skill.shown}/{path}: {exc}"
        language = entry.program.language or "starlark"
        return execute(Program(name, language, path, source), input, services)


def load_project(root: Path) -> Project:
    """Raises MetapkgError when metapkg.yaml or metapkg.lock cannot be read."""
    manifest = manifest_file.read(root)
    lock = read_lock(root)
    entries: dict[str, Entry] = {}
    for skill in provisioned_skills(root, lock):
        program = inspect_skill(skill.folder, skill.shown)
        untrusted = trust_problem(skill, root, manifest) if program.path else None
        entries.setdefault(skill.name, Entry(skill, program, untrusted))
    return Project(root, manifest, entries)


def as_error(exc: MetapkgError) -> str:
    return "error: " + "; ".join(d.render() for d in capped(exc.diagnostics))


def _input_required(name: str, instructions: str) -> str:
    body = instructions.strip()[:MAX_INSTRUCTIONS]
    return (
        f"error: input is required: call run_metaskill again with the input keys that "
        f"{name}'s instructions below document (a metaskill that takes none accepts any "
        f'non-empty object, e.g. {{"go": true}}).\n\nInstructions of {name}:\n\n{body}'
    )
