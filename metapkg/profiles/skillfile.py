"""Read a SKILL.md for a profile: its text and frontmatter, or why it cannot be read."""

from __future__ import annotations

from dataclasses import dataclass

from metapkg.diagnostics import Diagnostic, error
from metapkg.packages.frontmatter import Frontmatter, FrontmatterProblem, parse
from metapkg.profiles.base import Target

FILENAME = "SKILL.md"


@dataclass(frozen=True)
class SkillFile:
    text: str
    fm: Frontmatter
    shown: str  # how findings name the file


def read(target: Target, rule: str) -> tuple[SkillFile | None, list[Diagnostic]]:
    """The parsed SKILL.md, or a ``rule`` error that says why there is none."""
    shown = f"{target.display}/{FILENAME}"
    try:
        text = (target.path / FILENAME).read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        return None, [error(rule, shown, f"{FILENAME} is not UTF-8 text")]
    except OSError as exc:
        return None, [error(rule, shown, f"cannot read {FILENAME}: {exc.strerror}")]
    try:
        fm = parse(text)
    except FrontmatterProblem as exc:
        return None, [error(rule, shown, exc.message, exc.line)]
    return SkillFile(text, fm, shown), []
