"""Which metaskills a project has installed, whether they may run, and whether they drifted.

Discovery starts from metapkg.lock, not from a folder scan: the lock says which skills
metapkg provisioned, where, from which origin and with which content hash. The
precedence between two copies of one skill (``.agents/skills/x`` and ``.claude/skills/x``)
is the lock's target order: the first existing copy wins. ``provisioned_skills`` is the
one place that knows the provisioning layout.

Trust (specs/metaskills.txt section 12): a skill whose origin is a ``file:`` folder inside
the project may run by default; anything else needs a ``trust.metaskills`` glob match.
Before a run the provisioned folder is re-hashed and must equal the lock's integrity.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from metapkg.diagnostics import MetapkgError
from metapkg.hosts.registry import get, skill_folders
from metapkg.integrity import TreeError, tree_hash
from metapkg.lock import format as lockfmt
from metapkg.manifest import Manifest
from metapkg.origins import OriginSyntaxError, parse_origin
from metapkg.packages import metaskill
from metapkg.packages.frontmatter import FrontmatterProblem, parse

MAX_INSTRUCTIONS = 20_000  # characters of SKILL.md body shown when input is missing


@dataclass(frozen=True)
class InstalledSkill:
    name: str  # what run_metaskill is called with
    fqn: str
    origin: str  # as the lock writes it
    integrity: str
    folder: Path  # the provisioned copy
    shown: str  # project-relative, for messages


def provisioned_skills(project: Path, lock: lockfmt.Lockfile) -> list[InstalledSkill]:
    """Every skill the lock provisioned, at its first existing copy, in lock order."""
    owned = set(lock.provisioned)
    found = []
    for package in lock.packages:
        if package.kind != "skill":
            continue
        name = package.fqn.rsplit("/", 1)[-1]
        for folder in skill_folders([get(target) for target in lock.targets]):
            path = f"{folder}/{name}"
            if path in owned and (project / path).is_dir():
                found.append(
                    InstalledSkill(
                        name, package.fqn, package.origin, package.integrity, project / path, path
                    )
                )
                break
    return found


@dataclass(frozen=True)
class SkillProgram:
    """What a skill folder says about its program (specs/metaskills.txt sections 3-4)."""

    description: str
    instructions: str  # the SKILL.md body
    path: str | None  # the program, relative to the folder; None for a static skill
    language: str | None
    problem: str | None  # why the program cannot run, when it cannot

    @property
    def runnable(self) -> bool:
        return self.path is not None and self.problem is None


def inspect_skill(folder: Path, shown: str) -> SkillProgram:
    try:
        fm = parse((folder / "SKILL.md").read_bytes().decode("utf-8"))
    except (OSError, UnicodeDecodeError, FrontmatterProblem) as exc:
        return SkillProgram("", "", None, None, f"cannot read {shown}/SKILL.md: {exc}")
    description = fm.fields.get("description")
    description = description if isinstance(description, str) else ""
    program, diagnostics = metaskill.check(fm, folder, f"{shown}/SKILL.md")
    errors = [d.message for d in diagnostics if d.severity == "error"]
    oversize = [d.message for d in diagnostics if d.rule == "metaskill-file"]
    if program is None and not errors:
        return SkillProgram(description, fm.body, None, None, None)
    problem = next(iter(errors or oversize), None)
    declared = fm.fields.get("metaskill")
    path = program.path if program else str(declared or metaskill.DEFAULT_FILE)
    language = program.language if program else None
    return SkillProgram(description, fm.body, path, language, problem)


def is_local(origin: str, project: Path) -> bool:
    """A ``file:`` origin inside the project (what the lock writes as ``file:./...``)."""
    try:
        parsed = parse_origin(origin, project)
    except OriginSyntaxError:
        return False
    return parsed.local is not None and parsed.local.resolve().is_relative_to(project.resolve())


def trust_problem(skill: InstalledSkill, project: Path, manifest: Manifest) -> str | None:
    if is_local(skill.origin, project) or manifest.trusts_metaskill(skill.fqn):
        return None
    scope = skill.fqn.rsplit("/", 1)[0] + "/*" if "/" in skill.fqn else skill.fqn
    return (
        f"metaskill {skill.fqn} comes from {skill.origin}, outside this project, and is not "
        f"trusted to run; if you trust it, add '{skill.fqn}' (or '{scope}') to "
        f"trust.metaskills in metapkg.yaml"
    )


def drift_problem(skill: InstalledSkill) -> str | None:
    try:
        found = tree_hash(skill.folder)
    except (OSError, TreeError) as exc:
        return f"{skill.shown} cannot be checked against metapkg.lock: {exc}"
    if found == skill.integrity:
        return None
    return (
        f"{skill.shown} differs from metapkg.lock (locked {skill.integrity[:19]}..., found "
        f"{found[:19]}...); refusing to run changed code. Run `metapkg install --reinstall` "
        f"to restore it, or `metapkg install` after changing the package itself"
    )


def read_lock(project: Path) -> lockfmt.Lockfile:
    lock = lockfmt.read(project / lockfmt.FILENAME)
    if lock is None:
        raise MetapkgError.single(
            "lock", lockfmt.FILENAME, "there is no metapkg.lock here; run `metapkg install` first"
        )
    return lock
