"""The pipeline's packages depend downward only (issue: no cycle between fetch, resolve,
lock and provision): an import from a later layer into an earlier one fails here."""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import REPO

# Each package may import only from the packages listed before it (and leaf modules).
ORDER = ["schemes", "origins", "packages", "hosts", "fetch", "resolve", "lock", "provision"]


def _imports(package: str) -> set[str]:
    found = set()
    for path in (REPO / "metapkg" / package).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            module = node.module if isinstance(node, ast.ImportFrom) else None
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [module]
            for name in names:
                if name and name.startswith("metapkg."):
                    found.add(name.split(".")[1])
    return found - {package}


def test_each_layer_imports_only_the_layers_below_it() -> None:
    for index, package in enumerate(ORDER):
        later = set(ORDER[index + 1 :])
        assert not (_imports(package) & later), f"{package} imports {_imports(package) & later}"


def test_the_layers_exist() -> None:
    for package in ORDER:
        assert (REPO / "metapkg" / package).exists() or (
            REPO / "metapkg" / f"{package}.py"
        ).exists()
    assert Path(__file__).is_file()
