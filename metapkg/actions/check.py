"""``metapkg check``: judge packages, catalogs and repositories in one or more profiles."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from metapkg.diagnostics import Diagnostic, UsageError, error
from metapkg.packages.discover import discover
from metapkg.packages.load import MANIFEST_FILES
from metapkg.packages.models import Kind
from metapkg.profiles import registry
from metapkg.profiles.base import Target

NOTHING_FOUND = (
    "no package found: metapkg looks for <name>/SKILL.md folders (under skills/ and its "
    "category and dot folders, .claude/skills/ and the other hosts' skill folders, "
    "plugins/<plugin>/skills/, or at the top level), agents/<name>/AGENTS.md, "
    "mcps/<namespace>_<short>.json, or a SKILL.md / AGENTS.md in this folder"
)


@dataclass(frozen=True)
class CheckReport:
    diagnostics: tuple[Diagnostic, ...]
    packages: int
    notes: tuple[str, ...] = ()  # what discovery passed over (shown with -v)

    @property
    def errors(self) -> int:
        return sum(d.severity == "error" for d in self.diagnostics)

    @property
    def warnings(self) -> int:
        return sum(d.severity == "warning" for d in self.diagnostics)


def check(paths: list[str], profiles: Sequence[str] = (registry.DEFAULT,)) -> CheckReport:
    """Run every profile in ``profiles`` over the packages found at each path."""
    names = list(dict.fromkeys(profiles))
    runners = [registry.profile(name) for name in names]
    diagnostics: list[Diagnostic] = []
    notes: list[str] = []
    packages = 0
    for raw in paths:
        path = Path(raw)
        display = raw.rstrip("/\\") or raw
        if not path.exists():
            raise UsageError.single("usage", display, "no such file or folder")
        # -- agent.3md: a lone .3md file is checked as a document (metapkg/agent3md) --------
        if path.is_file() and path.suffix == ".3md":
            from metapkg.agent3md.package import check_document

            diagnostics.extend(check_document(path, display))
            packages += 1
            continue
        # -- end agent.3md ------------------------------------------------------------------
        targets, layout, passed_over = _targets(path, display)
        notes.extend(passed_over)
        packages += len(targets)
        if registry.DEFAULT in names:
            diagnostics.extend(layout)
        if not targets and not (layout and registry.DEFAULT in names):
            diagnostics.append(error("layout", display, NOTHING_FOUND))
        for target in targets:
            for runner in runners:
                diagnostics.extend(runner.check(target))
        for runner in runners:
            diagnostics.extend(runner.check_set(targets))
        if registry.DEFAULT in names:  # a local git checkout whose HEAD is tagged
            from metapkg.profiles.gittags import tag_findings

            diagnostics.extend(tag_findings(targets))
    return CheckReport(tuple(diagnostics), packages, tuple(notes))


def _targets(path: Path, display: str) -> tuple[list[Target], list[Diagnostic], list[str]]:
    if path.is_file():
        if path.name in MANIFEST_FILES.values():
            kind: Kind = "skill" if path.name == MANIFEST_FILES["skill"] else "agent"
            folder = path.parent
            return [Target(folder, str(Path(display).parent), kind, folder.name)], [], []
        if path.suffix == ".json":
            return [Target(path, display, "mcp", path.stem)], [], []
        return [], [], []
    found = discover(path, display)
    # A publisher's root agent beside other packages is judged too (add passes it over).
    every = [*found.set_aside, *found.packages]
    targets = [Target(f.path, f.display, f.kind, f.path.name) for f in every]
    return targets, found.layout, found.notes
