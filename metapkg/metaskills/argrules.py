"""Argument rules: which arguments an allowed command may be given.

Allowing ``git`` must not allow what git can be told to run: ``git -c alias.x='!sh' x``,
``--upload-pack``, ``core.sshCommand``, ``--exec-path``, ``difftool``... So every allowed
program has a rule, and a program without one is refused. metapkg knows the rules of a
few common programs (KNOWN); for any other the user writes one in metapkg.yaml
(``{command: NAME, subcommands: [...], deny-options: [...]}``), which for a known program
can only narrow the built-in one. Every rule also keeps paths inside the project: an
argument, or the part of it after ``=`` or ``:``, or (for ``-xVALUE`` clusters) what
follows an option letter, may not name a place outside the project folder (through
``..``, an absolute path, ``~`` or a link) nor its ``.git`` folder.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from metapkg.manifest import CommandRuleSpec

MAX_ARGUMENTS = 1_000
MAX_CLUSTER_CHARS = 1_024  # a "-xVALUE" argument; its every tail is checked as a path


@dataclass(frozen=True)
class ArgumentRule:
    program: str
    subcommands: frozenset[str] | None = None  # the first argument must be one of these
    denied: frozenset[str] = frozenset()  # options refused anywhere ("-O", "--output")
    environment: Mapping[str, str] = field(default_factory=dict)  # set for this program
    why: str = ""  # one line for refusals: what the rule protects
    paths_inside: bool = True  # arguments may not name places outside the project


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# git: only subcommands that neither run other programs by their arguments nor reach
# the network; no global options (-c, --config-env, -C, --git-dir, --work-tree,
# --exec-path, -p come before the subcommand); no option that writes to a file of its
# choosing (--output), reads outside the index (--no-index, --contents) or starts a
# pager or tool (grep -O, --ext-diff). Config comes only from the repository itself.
GIT = ArgumentRule(
    "git",
    subcommands=_words(
        "status diff log show rev-parse rev-list ls-files ls-tree cat-file blame grep "
        "describe shortlog merge-base branch tag add rm mv restore reset commit switch "
        "checkout stash diff-tree diff-files diff-index show-ref for-each-ref name-rev "
        "check-ignore check-attr reflog count-objects whatchanged version"
    ),
    denied=_words(
        "--output --output-directory --no-index --contents --ext-diff -O "
        "--open-files-in-pager --exec --upload-pack --receive-pack"
    ),
    environment={
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_EDITOR": ":",
        "GIT_SEQUENCE_EDITOR": ":",
        "GIT_PAGER": "cat",
        "GIT_ALLOW_PROTOCOL": "none",
    },
    why="git runs only the subcommands that start no other program",
)

# Programs that read files and run nothing: only the path rule, and no option that
# follows links out of the project or starts a program.
_READERS = tuple(
    ArgumentRule(name, why=f"{name} reads files inside the project")
    for name in ("cat", "head", "tail", "wc")
)
LS = ArgumentRule(
    "ls",
    denied=_words("-L --dereference"),
    why="ls lists folders inside the project (-L would follow links out of it)",
)
GREP = ArgumentRule(
    "grep",
    denied=_words("-R --dereference-recursive"),
    why="grep reads files inside the project (-R would follow links out of it)",
)
RG = ArgumentRule(
    "rg",
    denied=_words("--pre --pre-glob -z --search-zip -L --follow --hostname-bin"),
    why="rg reads files inside the project (--pre and -z run programs, -L follows links)",
)
# pytest runs the project's own tests (that is its job); what it may not do is import
# or run anything else, upload output (--pastebin), delete a folder (--basetemp) or write
# files of the caller's choosing (--junitxml, --log-file...).
PYTEST = ArgumentRule(
    "pytest",
    denied=_words(
        "-p --pyargs -o --override-ini -W --pythonwarnings --pdbcls --basetemp --pastebin "
        "--tx --rsyncdir --rsyncignore --junitxml --junit-xml --result-log --report-log "
        "--log-file --debug"
    ),
    why="pytest runs the project's tests and imports nothing else",
)
_HARMLESS = tuple(
    ArgumentRule(name, why=f"{name} touches no file", paths_inside=False)
    for name in ("echo", "true", "false", "pwd", "sleep")
)
KNOWN: Mapping[str, ArgumentRule] = {
    rule.program: rule for rule in (GIT, GREP, RG, LS, PYTEST, *_READERS, *_HARMLESS)
}


def user_rule(spec: CommandRuleSpec) -> ArgumentRule:
    subcommands = frozenset(spec.subcommands) if spec.subcommands is not None else None
    return ArgumentRule(
        spec.command,
        subcommands=subcommands,
        denied=frozenset(spec.deny_options),
        why=f"the rule for {spec.command} in metapkg.yaml",
    )


def refusal(rules: tuple[ArgumentRule, ...], argv: list[str], project: Path) -> str | None:
    """Why ``argv`` may not run under every one of ``rules`` (all must pass), or None."""
    if len(argv) > MAX_ARGUMENTS:
        return f"{argv[0]!r} was given {len(argv):,} arguments; at most {MAX_ARGUMENTS:,}"
    for argument in argv[1:]:
        if "\0" in argument:
            return f"an argument of {argv[0]!r} holds a NUL character"
    for rule in rules:
        problem = _rule_problem(rule, argv)
        if problem is not None:
            return f"{problem} ({rule.why})"
    if any(rule.paths_inside for rule in rules):
        return _path_problem(argv, project)
    return None


def _rule_problem(rule: ArgumentRule, argv: list[str]) -> str | None:
    name = argv[0]
    if rule.subcommands is not None:
        first = argv[1] if len(argv) > 1 else None
        if first not in rule.subcommands:
            shown = "no subcommand" if first is None else f"{first!r}"
            return (
                f"{name} {shown} is not allowed: the first argument of {name} must be one "
                f"of {', '.join(sorted(rule.subcommands))}"
            )
    for argument in argv[1:]:
        option = _denied_option(argument, rule.denied)
        if option is not None:
            fix = (
                "; if it is the value of another option, pass the value as a separate argument"
                if not argument.startswith("--")
                else ""
            )
            return f"{name} may not be given {argument[:80]!r}: the option {option} is refused{fix}"
    return None


def _denied_option(argument: str, denied: frozenset[str]) -> str | None:
    for option in sorted(denied):  # exactly, or with its value: also "-exec" (find-style)
        if argument == option or argument.startswith(option + "="):
            return option
    if argument.startswith("--"):
        name = argument.split("=", 1)[0]
        for option in sorted(denied):
            # getopt and git accept unambiguous abbreviations: --outp means --output.
            if option.startswith("--") and len(name) > 2 and option.startswith(name):
                return option
        return None
    if argument.startswith("-") and len(argument) > 1:
        for option in sorted(denied):
            if len(option) == 2 and option[0] == "-" and option[1] in argument[1:]:
                return option
    return None


def _path_problem(argv: list[str], project: Path) -> str | None:
    root = os.path.normpath(project.absolute())
    real_root = os.path.realpath(root)
    for argument in argv[1:]:
        if _is_cluster(argument) and len(argument) > MAX_CLUSTER_CHARS:
            return f"an option argument of {argv[0]!r} is over {MAX_CLUSTER_CHARS} characters"
        for candidate in _candidates(argument):
            where = _place(candidate, root, real_root)
            if where is not None:
                return (
                    f"{argv[0]} may not be given {argument[:80]!r}: {candidate[:80]!r} names "
                    f"{where}; use a path relative to the project (absolute paths, URLs, '~', "
                    f"'..' out of it and the .git folder are refused)"
                )
    return None


def _candidates(argument: str) -> list[str]:
    """Every part of ``argument`` a program might take as a path."""
    found = [argument]
    found += [argument[i + 1 :] for i, char in enumerate(argument) if char in "=:"]
    if _is_cluster(argument):
        found += [argument[i:] for i in range(2, len(argument))]
    return [c for c in found if c]


def _is_cluster(argument: str) -> bool:
    """``-xyz``: short options, perhaps with a value glued on."""
    return argument.startswith("-") and not argument.startswith("--")


def _place(candidate: str, root: str, real_root: str) -> str | None:
    """What forbidden place ``candidate`` names, or None when it stays in the project."""
    if candidate.startswith("~"):
        return "a place outside the project folder"
    joined = os.path.normpath(os.path.join(root, candidate))
    if not _within(joined, root):
        return "a place outside the project folder"
    # Links anywhere along the way count, also under a folder that does not exist yet
    # (pytest --junitxml=link/new/x.xml would create it outside).
    real = os.path.realpath(joined)
    if not _within(real, real_root):
        return "a place outside the project folder"
    # git mv x .git/config (or .git/hooks/...) would hand git a config or hook of its own.
    parts = [
        *Path(os.path.relpath(joined, root)).parts,
        *Path(os.path.relpath(real, real_root)).parts,
    ]
    if any(part.lower() == ".git" for part in parts):
        return "the repository's .git folder"
    return None


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)
