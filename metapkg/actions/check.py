"""``metapkg check``: judge package folders, MCP files or whole catalogs."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from metapkg.diagnostics import Diagnostic, UsageError, error
from metapkg.packages.catalog import BUCKETS, check_catalog, is_catalog
from metapkg.packages.load import detect_kind, load_package


@dataclass(frozen=True)
class CheckReport:
    diagnostics: tuple[Diagnostic, ...]
    packages: int

    @property
    def errors(self) -> int:
        return sum(d.severity == "error" for d in self.diagnostics)

    @property
    def warnings(self) -> int:
        return sum(d.severity == "warning" for d in self.diagnostics)


def check(paths: list[str]) -> CheckReport:
    diagnostics: list[Diagnostic] = []
    packages = 0
    for raw in paths:
        path = Path(raw)
        display = raw.rstrip("/\\") or raw
        if not path.exists():
            raise UsageError.single("usage", display, "no such file or folder")
        if path.is_file() and path.name in ("SKILL.md", "AGENTS.md"):
            path, display = path.parent, str(Path(display).parent)
        # -- agent.3md: a lone .3md file is checked as a document (metapkg/agent3md) --------
        if path.is_file() and path.suffix == ".3md":
            from metapkg.agent3md.package import check_document

            diagnostics.extend(check_document(path, display))
            packages += 1
            continue
        # -- end agent.3md ------------------------------------------------------------------
        if is_catalog(path):
            found = check_catalog(path, display)
            packages += _count_entries(path)
        elif detect_kind(path) is not None:
            found = list(load_package(path, display).diagnostics)
            packages += 1
        else:
            found = [
                error(
                    "layout",
                    display,
                    "not a package or catalog: expected a folder with SKILL.md, AGENTS.md or "
                    "<name>.3md, an MCP .json file, a .3md file, or a catalog with agents/, "
                    "skills/ or mcps/",
                )
            ]
        diagnostics.extend(found)
    return CheckReport(tuple(diagnostics), packages)


def _count_entries(root: Path) -> int:
    return sum(
        1
        for bucket in BUCKETS
        if (root / bucket).is_dir()
        for entry in (root / bucket).iterdir()
        if not entry.name.startswith(".")
    )
