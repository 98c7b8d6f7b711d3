"""Diagnostics and the one exception tree every layer raises.

A :class:`Diagnostic` is a finding with a stable rule id, a path, a line when known and a
message that says what to do. Errors that stop a command carry one or more diagnostics, so
the command line prints them the same way whether they came from ``check``, resolution,
fetching or provisioning.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Diagnostic:
    severity: Severity
    rule: str
    path: str
    line: int | None
    message: str
    omitted: int = 0  # > 0: this line stands for that many findings left out (capped)
    # An error of the spec that a consumer's install reports as a warning (see
    # metapkg/packages/consumer.py); ``--strict`` makes it an error again.
    tolerated: bool = False

    def render(self) -> str:
        """One line for a terminal; control characters from packages are shown, not obeyed,
        and credentials (a URL's user:token@, a token) are masked (metapkg/redact.py)."""
        from metapkg.redact import redact
        from metapkg.untrusted import printable

        where = self.path if self.line is None else f"{self.path}:{self.line}"
        return printable(redact(f"{where}: {self.severity}[{self.rule}]: {self.message}"))

    def as_json(self) -> dict[str, object]:
        from metapkg.redact import redact

        found: dict[str, object] = {
            "severity": self.severity,
            "rule": self.rule,
            "path": redact(self.path),
            "line": self.line,
            "message": redact(self.message),
        }
        if self.omitted:
            found["omitted"] = self.omitted
        return found


def error(rule: str, path: str, message: str, line: int | None = None) -> Diagnostic:
    return Diagnostic("error", rule, path, line, message)


def warning(rule: str, path: str, message: str, line: int | None = None) -> Diagnostic:
    return Diagnostic("warning", rule, path, line, message)


SHOWN_PER_RULE_AND_FILE = 20


def capped(
    diagnostics: Iterable[Diagnostic], limit: int = SHOWN_PER_RULE_AND_FILE
) -> list[Diagnostic]:
    """At most ``limit`` findings of one rule in one file, in their order; the rest become
    one line in their place: "... and 19,980 more `dead-link` findings in FILE". A file
    with 20,000 dead links printed 20,000 lines (3.3 MB); the count is what helps."""
    shown: list[Diagnostic] = []
    seen: dict[tuple[Severity, str, str], int] = {}
    summary_at: dict[tuple[Severity, str, str], int] = {}
    for diagnostic in diagnostics:
        if diagnostic.omitted:  # already a summary (capped twice)
            shown.append(diagnostic)
            continue
        key = (diagnostic.severity, diagnostic.rule, diagnostic.path)
        count = seen[key] = seen.get(key, 0) + 1
        if count <= limit:
            shown.append(diagnostic)
        elif count == limit + 1:
            summary_at[key] = len(shown)
            shown.append(diagnostic)  # replaced below, once the count is known
    for key, index in summary_at.items():
        severity, rule, path = key
        more = seen[key] - limit
        message = f"... and {more:,} more `{rule}` findings in {path} (the first {limit} shown)"
        shown[index] = Diagnostic(severity, rule, path, None, message, omitted=more)
    return shown


class MetapkgError(Exception):
    """Base of every error metapkg raises on purpose; exit code 1 unless a subclass says."""

    exit_code = 1

    def __init__(self, diagnostics: Iterable[Diagnostic]) -> None:
        self.diagnostics = tuple(diagnostics)
        super().__init__("\n".join(d.render() for d in capped(self.diagnostics)))

    @classmethod
    def single(cls, rule: str, path: str, message: str, line: int | None = None) -> MetapkgError:
        return cls([error(rule, path, message, line)])

    def __reduce__(self) -> tuple[object, ...]:
        """Pickled by its diagnostics and attributes, whatever a subclass's ``__init__``
        takes: errors cross from worker processes (metapkg/workers.py)."""
        return _rebuilt, (type(self), self.diagnostics), self.__dict__


def _rebuilt(cls: type[MetapkgError], diagnostics: tuple[Diagnostic, ...]) -> MetapkgError:
    found = cls.__new__(cls)
    MetapkgError.__init__(found, diagnostics)
    return found


class UnreadableFile(MetapkgError):
    """The system would not let metapkg read a file (permissions, a folder or a FIFO in
    its place): nothing is known about its content, so it is not damaged either."""


class UsageError(MetapkgError):
    """The command line itself is wrong (exit code 2)."""

    exit_code = 2


class ManifestError(MetapkgError):
    """metapkg.yaml cannot be read or says something impossible."""


class PackageError(MetapkgError):
    """A fetched package breaks the format rules."""


class FetchError(MetapkgError):
    """An origin could not be fetched (network, archive, cache, offline)."""


class ResolutionError(MetapkgError):
    """The dependency graph cannot be resolved (cycle, conflict, missing, ...)."""


class LockError(MetapkgError):
    """The lockfile is missing, unreadable, stale or does not match what was fetched."""


class ProvisionError(MetapkgError):
    """Provisioning the project failed; nothing was changed."""
