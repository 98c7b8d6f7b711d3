"""Program languages a metaskill may be written in: one registry entry per language.

The spec defines ``starlark`` only; a future ``metaskill_language`` is a new entry here
(its static checks for ``metapkg check`` and its ``execute`` for the runner child), not a
branch elsewhere. Runtimes import their interpreter lazily: ``metapkg check`` and the
child process pay for it, nothing else does.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol

# The host API a program sees, already bound to the parent process (see child.py).
HostFunctions = Mapping[str, Callable[..., Any]]
FailureKind = Literal["unavailable", "syntax", "no-run", "runtime", "invalid-return", "memory"]


@dataclass(frozen=True)
class Problem:
    """A static finding about a program: ``syntax`` or ``run`` (no ``def run(input)``)."""

    kind: Literal["syntax", "run"]
    message: str
    line: int | None = None


class ProgramFailure(Exception):
    """Running the program failed before it returned; ``kind`` says at which stage."""

    def __init__(self, kind: FailureKind, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


class HostCallError(Exception):
    """The parent refused a host call (bad arguments); the program sees a runtime error."""


class Runtime(Protocol):
    language: str

    def check(self, source: str, filename: str) -> list[Problem]:
        """Static problems (parse, missing run); [] when the interpreter is not installed."""
        ...

    def execute(
        self, source: str, filename: str, input: Mapping[str, Any], host: HostFunctions
    ) -> Any:
        """Load the program with only ``host`` and ``input`` as globals, call run(input)
        once, return its value as JSON-like data; raise ProgramFailure otherwise."""
        ...


# language -> (module, attribute); imported on first use.
_REGISTRY: dict[str, tuple[str, str]] = {
    "starlark": ("metapkg.metaskills.starlark_runtime", "STARLARK"),
}
LANGUAGES = tuple(_REGISTRY)


def get(language: str) -> Runtime | None:
    entry = _REGISTRY.get(language)
    if entry is None:
        return None
    runtime: Runtime = getattr(importlib.import_module(entry[0]), entry[1])
    return runtime
