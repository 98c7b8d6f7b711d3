"""What the sources given to ``metapkg add`` offer, which of it is taken, and what
``--all`` leaves out.

A source is one package, or a folder holding many (a repository, a catalog).
``--skill NAME`` and ``--all`` apply to every source, wherever they are written on the
command line (``add A --skill x B`` is ``add A B --skill x``), as uv's and npm's options
do: each NAME is looked for in every source and must be found in one, and a source
holding many packages gives the ones named, all of them with ``--all``, or its only one;
a source that would give none is an error, not a silent no-op. Within one folder,
choosing.py decides (declared names, folder names, same-named packages).

With ``--all``, each package is first read as install reads it (the consumer's rules,
packages/load.py): one that does not load is *skipped* and reported with its finding,
so one bad package does not stop a repository of hundreds; one whose finding is unsafe
is *refused* (reported as an error, and the command fails after adding the rest).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from metapkg.actions.choosing import Choice, choose, listing
from metapkg.diagnostics import Diagnostic, UsageError, error, warning
from metapkg.origins import Origin
from metapkg.packages.models import Kind

if TYPE_CHECKING:
    from metapkg.packages.discover import Discovery, Found

# Findings that make a package unsafe to install, whatever else it holds (issue 9): links
# and special files, MCP commands, arguments and environments that could run or hide
# something else, a metaskill program outside its folder. Any other error only skips it.
UNSAFE = frozenset(
    {"link", "mcp-command", "mcp-args", "mcp-env", "mcp-control-char", "metaskill-path"}
)


@dataclass(frozen=True)
class Candidate:
    kind: Kind
    origin: Origin
    name: str  # how the tally and the skipped lines name it
    entry: str  # what metapkg.yaml records for it (sources_input.canonical)
    files: Path | None = None  # its files on disk, read by --all's screening
    note: str = ""  # where it was listed (a marketplace), a comment beside its entry


@dataclass(frozen=True)
class Offer:
    """What one source holds: one package (``one``), or the packages a folder holds
    (``found``, each made a candidate by ``make``)."""

    label: str  # how messages name the source
    one: Candidate | None = None
    found: Discovery | None = None
    make: Callable[[Found], Candidate] | None = field(default=None, compare=False)

    def names(self) -> set[str]:
        """What --skill NAME matches here: declared names and folder names."""
        if self.found is None:
            return {self.one.name} if self.one is not None else set()
        return {f.label for f in self.found.packages} | {f.path.name for f in self.found.packages}


def pick(
    offers: Sequence[Offer], choice: Choice, skip: Callable[[Diagnostic], None]
) -> list[Candidate]:
    """The candidates ``choice`` takes from ``offers``, in the order given; ``skip`` is
    told what ``--all`` passes over in a folder (same-named packages: choosing.py)."""
    held = [offer.names() for offer in offers]
    unknown = [n for n in dict.fromkeys(choice.names) if not any(n in h for h in held)]
    folders = [offer for offer in offers if offer.found is not None]
    if unknown and folders:
        holding = "; ".join(f"{o.label} holds {listing(_packages(o))}" for o in folders)
        raise UsageError.single(
            "usage", offers[0].label, f"no package {', '.join(unknown)} here: {holding}"
        )
    chosen: list[Candidate] = []
    for offer, names in zip(offers, held, strict=True):
        if offer.one is not None:
            chosen.append(offer.one)
            continue
        own = tuple(n for n in choice.names if n in names)
        if choice.names and not own and not choice.every:
            raise UsageError.single(
                "usage",
                offer.label,
                f"holds none of {', '.join(choice.names)}: it holds "
                f"{listing(_packages(offer))}; add it in a command of its own, or name what "
                f"to take from it with --skill",
            )
        assert offer.found is not None and offer.make is not None
        make = offer.make
        taken = choose(offer.label, offer.found, Choice(own, choice.every), _where(make), skip)
        chosen += [make(f) for f in taken]
    return chosen


def _packages(offer: Offer) -> list[Found]:
    return offer.found.packages if offer.found is not None else []


def _where(make: Callable[[Found], Candidate]) -> Callable[[Found], str]:
    return lambda found: str(make(found).origin)


@dataclass(frozen=True)
class Passed:
    """A package ``--all`` did not add, and the errors install's reading found in it."""

    candidate: Candidate
    errors: tuple[Diagnostic, ...]

    @property
    def unsafe(self) -> bool:
        return any(d.rule in UNSAFE for d in self.errors)


def screen(candidates: Iterable[Candidate]) -> tuple[list[Candidate], list[Passed]]:
    """Read each candidate that has files on disk as install will (consumer rules): the
    ones that load, and the ones that do not with their errors."""
    from metapkg.packages.load import load_package

    loading: list[Candidate] = []
    passed: list[Passed] = []
    for candidate in candidates:
        if candidate.files is None:
            loading.append(candidate)
            continue
        loaded = load_package(candidate.files, str(candidate.origin), candidate.kind, consumer=True)
        if loaded.ok:
            loading.append(candidate)
        else:
            errors = tuple(d for d in loaded.diagnostics if d.severity == "error")
            passed.append(Passed(candidate, errors))
    return loading, passed


def reported(passed: Iterable[Passed]) -> list[Diagnostic]:
    """One line per package ``--all`` left out: what install's reading found (its first
    error, and how many more), and what the user can do about it."""
    lines = []
    for p in passed:
        name = p.candidate.name
        worst = next((d for d in p.errors if d.rule in UNSAFE), p.errors[0]) if p.errors else None
        if worst is None:  # not even a name could be read, and no finding says why
            lines.append(warning("skipped", str(p.candidate.origin), f"{name} not added"))
            continue
        more = len(p.errors) - 1
        found = f"{worst.message} [{worst.rule}]" + (f" (and {more} more)" if more else "")
        if p.unsafe:
            message = f"{name} refused: {found}; nothing of it was installed"
            lines.append(error("unsafe", worst.path, message, worst.line))
            continue
        message = (
            f"{name} not added: {found}; only its publisher can fix it (`metapkg check` lists "
            f"every finding): to use it now, copy its folder into this project, fix it and "
            f"`metapkg add ./{name}`"
        )
        lines.append(warning("skipped", worst.path, message, worst.line))
    return lines
