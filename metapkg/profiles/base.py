"""What every profile shares: the rule record, the package it judges, the Protocol."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

from metapkg.diagnostics import Diagnostic, Severity
from metapkg.packages.models import Kind

# "check": `metapkg check` reports it, so fixtures must show it failing and passing.
# "install": reported while adding, resolving, fetching, locking or provisioning.
When = Literal["check", "install"]


@dataclass(frozen=True)
class Rule:
    """One rule id. ``summary`` says what the rule wants; ``hint`` what to do about it."""

    id: str
    profile: str
    severity: Severity
    summary: str
    hint: str
    when: When = "check"


@dataclass(frozen=True)
class Target:
    """One package on disk as a profile sees it: a folder, or an MCP .json file."""

    path: Path
    display: str  # how findings name it
    kind: Kind
    folder_name: str  # what the name must equal (the folder, or the archive's folder)


class Profile(Protocol):
    """A dialect: a name, the rules it runs, and how a host that uses it treats findings."""

    @property
    def name(self) -> str: ...

    @property
    def summary(self) -> str: ...

    @property
    def rules(self) -> tuple[str, ...]:
        """Every rule id this profile can report (its own and those it inherits)."""
        ...

    def check(self, target: Target) -> list[Diagnostic]:
        """The findings for one package (nothing for kinds the dialect does not cover)."""
        ...

    def check_set(self, targets: Sequence[Target]) -> list[Diagnostic]:
        """Findings about packages taken together (host limits on how many, and so on)."""
        ...

    def refuses(self, diagnostic: Diagnostic) -> bool:
        """Whether a host of this dialect would not load the package over this finding."""
        ...
