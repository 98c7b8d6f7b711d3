"""metapkg.yaml: read it strictly, and edit it without losing the author's comments.

Reading uses the fast safe loader (metapkg.yamlsafe). Editing (``add``, ``remove``,
``init``) uses ruamel.yaml's round-trip mode, which keeps comments, order and quoting;
it is slower, so it is only imported for edits.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from metapkg import limits, yamlsafe
from metapkg.diagnostics import Diagnostic, ManifestError, error
from metapkg.origins import Origin, OriginSyntaxError, parse_origin, split_range
from metapkg.packages.models import PLURAL, Dependency, Kind
from metapkg.packages.rules.dependencies import DependencyContext, parse_dependencies
from metapkg.provision.linkmode import LINK_MODES
from metapkg.textio import read_utf8_and_bytes

FILENAME = "metapkg.yaml"

DEFAULT_TARGETS = ("agents", "claude")
_TOP_LEVEL = (
    "dependencies", "targets", "overrides", "trust", "metaskills", "mcp-paths", "link-mode",
    "policy",
    "strict",
    "mirrors",
    "marketplaces",
)  # fmt: skip
# A bare executable name for metaskills.allow-commands: no path, no shell syntax.
COMMAND_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._+-]*$")

STARTER = """\
# metapkg.yaml: what this project needs. Edit by hand or with `metapkg add` / `metapkg remove`.
dependencies:
  agents: []
  skills: []
  mcps: []
targets: [agents, claude]        # where skills and agents are provisioned
overrides: {}                    # fqn -> origin, to settle a conflict deliberately
trust:
  metaskills: []                 # fqn globs whose SKILL.star programs may be installed
"""


@dataclass(frozen=True)
class CommandRuleSpec:
    """``{command: NAME, subcommands: [...], deny-options: [...]}`` in allow-commands: the
    user's argument rule for a program (see metapkg/metaskills/argrules.py)."""

    command: str
    subcommands: tuple[str, ...] | None = None  # the first argument must be one of these
    deny_options: tuple[str, ...] = ()  # options refused anywhere in the arguments


@dataclass(frozen=True)
class Manifest:
    path: Path
    dependencies: tuple[Dependency, ...]
    targets: tuple[str, ...] = DEFAULT_TARGETS
    overrides: Mapping[str, Origin] = field(default_factory=dict)
    trusted_metaskills: tuple[str, ...] = ()
    allowed_commands: tuple[str, ...] = ()  # executables metaskill programs may run
    mcp_paths: str = "absolute"  # or "host-variables" (see metapkg/hosts/placeholders.py)
    serve_metaskills: bool = False  # metaskills: {serve: true}: `metapkg mcp` in host configs
    link_mode: str = "copy"  # copy, clone or hardlink (see provision/apply.py)
    # `policy:` as written; metapkg/audit/policy.py reads it where it is enforced (install,
    # audit), so a project without one never imports the audit code.
    policy: Mapping[str, Any] | None = field(default=None, hash=False, compare=False)
    command_rules: tuple[CommandRuleSpec, ...] = ()  # the mapping entries of allow-commands
    strict: bool = False  # every finding install tolerates is an error (packages/consumer.py)
    trusted_plugins: tuple[str, ...] = ()  # trust.plugins: fqn globs
    mirrors: tuple[str, ...] = ()  # oci://REGISTRY/NAMESPACE, tried first for locked packages
    marketplaces: tuple[str, ...] = ()  # plugin marketplaces `metapkg search` looks in

    @property
    def project(self) -> Path:
        return self.path.parent

    def trusts_metaskill(self, fqn: str) -> bool:
        return any(fnmatch.fnmatchcase(fqn, pattern) for pattern in self.trusted_metaskills)

    def trusts_plugin(self, fqn: str) -> bool:
        """Whether a plugin's hooks and executables may be installed (``trust.plugins``)."""
        return any(fnmatch.fnmatchcase(fqn, pattern) for pattern in self.trusted_plugins)


def read(project: Path) -> Manifest:
    return read_for_edit(project).manifest


@dataclass(frozen=True)
class Read:
    """metapkg.yaml as an edit starts from it: parsed, its text, its exact bytes."""

    manifest: Manifest
    text: str
    data: bytes  # what a failed edit puts back (a byte-order mark and all)


def read_for_edit(project: Path) -> Read:
    path = project / FILENAME
    try:
        text, data = read_utf8_and_bytes(path, "manifest")
    except FileNotFoundError:
        raise ManifestError.single(
            "manifest", FILENAME, "no metapkg.yaml here; run `metapkg init` to create one"
        ) from None
    return Read(parse(text, path), text, data)


def parse(text: str, path: Path) -> Manifest:
    display = path.name
    if (found := limits.size(text)) > limits.MANIFEST_BYTES:
        raise ManifestError.single(
            "manifest", display, limits.over(display, found, limits.MANIFEST_BYTES)
        )
    try:
        data = yamlsafe.load(text)
    except yamlsafe.YamlProblem as exc:
        raise ManifestError.single("manifest", display, exc.message, exc.line) from None
    top = data.value if data.value is not None else {}
    if not isinstance(top, dict):
        raise ManifestError.single("manifest", display, "metapkg.yaml must be a mapping", 1)
    diags: list[Diagnostic] = [
        error(
            "manifest",
            display,
            f"unknown field {key!r}; metapkg.yaml has {', '.join(_TOP_LEVEL)}",
            data.line(key),
        )
        for key in top
        if key not in _TOP_LEVEL
    ]
    ctx = DependencyContext(
        display,
        allowed=("agents", "skills", "mcps", "plugins"),
        base_dir=path.parent,
        in_package=False,
    )
    deps, dep_diags = parse_dependencies(top.get("dependencies"), data.line, ctx)
    diags.extend(dep_diags)
    targets = _targets(top.get("targets", list(DEFAULT_TARGETS)), data, display, diags)
    overrides = _overrides(top.get("overrides") or {}, data, path.parent, display, diags)
    trusted = _trust(top.get("trust") or {}, data, display, diags)
    trusted_plugins = _trust(top.get("trust") or {}, data, display, diags, "plugins")
    commands, rules = _allowed_commands(top.get("metaskills") or {}, data, display, diags)
    serve = _serve(top.get("metaskills") or {}, data, display, diags)
    mcp_paths = _mcp_paths(top.get("mcp-paths", "absolute"), data, display, diags)
    link_mode = _link_mode(top.get("link-mode", "copy"), data, display, diags)
    mirrors = _mirrors(top.get("mirrors", []), data, display, diags)
    marketplaces = top.get("marketplaces", [])
    if not isinstance(marketplaces, list) or not all(isinstance(m, str) for m in marketplaces):
        message = "'marketplaces' must be a list of sources (owner/repo, a URL, file:PATH)"
        diags.append(error("manifest", display, message, data.line("marketplaces")))
        marketplaces = []
    policy = top.get("policy")
    if policy is not None and not isinstance(policy, dict):
        message = "'policy' must be a mapping (see the README's \"Audit and policy\")"
        diags.append(error("manifest", display, message, data.line("policy")))
    strict = _strict(top.get("strict", False), data, display, diags)
    if diags:
        raise ManifestError(diags)
    return Manifest(
        path,
        deps,
        targets,
        overrides,
        trusted,
        commands,
        mcp_paths,
        serve,
        link_mode,
        policy,
        command_rules=rules,
        strict=strict,
        trusted_plugins=trusted_plugins,
        mirrors=mirrors,
        marketplaces=tuple(marketplaces),
    )


def _targets(
    value: Any, data: yamlsafe.Located, display: str, diags: list[Diagnostic]
) -> tuple[str, ...]:
    """Host names from the registry (metapkg/hosts); at least one."""
    from metapkg.hosts.registry import names

    known = names()
    line = data.line("targets")
    if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
        message = "'targets' must be a list of host names (e.g. [agents, claude]); known: "
        diags.append(error("manifest", display, message + ", ".join(known), line))
        return DEFAULT_TARGETS
    unknown = [t for t in value if t not in known]
    if unknown:
        message = f"unknown target(s) {', '.join(map(repr, unknown))}; known hosts: "
        diags.append(error("manifest", display, message + ", ".join(known), line))
        return DEFAULT_TARGETS
    if not value:
        message = "'targets' is empty, so nothing would be provisioned; name at least one of: "
        diags.append(error("manifest", display, message + ", ".join(known), line))
        return DEFAULT_TARGETS
    return tuple(dict.fromkeys(value))


def _mirrors(
    value: Any, data: yamlsafe.Located, display: str, diags: list[Diagnostic]
) -> tuple[str, ...]:
    """``mirrors: [oci://REGISTRY/NAMESPACE, ...]`` (see README, "Mirrors")."""
    from metapkg.fetch.oci.reference import BadReference, parse_namespace

    if not isinstance(value, list):
        message = "'mirrors' must be a list of oci://REGISTRY/NAMESPACE URLs"
        diags.append(error("manifest", display, message, data.line("mirrors")))
        return ()
    found = []
    for item in value:
        try:
            found.append(str(parse_namespace(str(item))))
        except BadReference as exc:
            diags.append(error("manifest", display, f"mirrors: {exc}", data.line("mirrors")))
    return tuple(found)


def _link_mode(value: Any, data: yamlsafe.Located, display: str, diags: list[Diagnostic]) -> str:
    if value not in LINK_MODES:
        message = (
            f"'link-mode' is one of {', '.join(LINK_MODES)}: copy (the default) and clone keep "
            f"the download cache safe from edits to provisioned files; hardlink is fastest"
        )
        diags.append(error("manifest", display, message, data.line("link-mode")))
        return "copy"
    return str(value)


def _mcp_paths(value: Any, data: yamlsafe.Located, display: str, diags: list[Diagnostic]) -> str:
    if value not in ("absolute", "host-variables"):
        diags.append(
            error(
                "manifest",
                display,
                "'mcp-paths' is 'absolute' (the default) or 'host-variables' (write a host's "
                "own workspace variable, such as ${workspaceFolder}, where it has one)",
                data.line("mcp-paths"),
            )
        )
        return "absolute"
    return str(value)


def _overrides(
    value: Any, data: yamlsafe.Located, base: Path, display: str, diags: list[Diagnostic]
) -> dict[str, Origin]:
    if not isinstance(value, dict):
        diags.append(
            error("manifest", display, "'overrides' must map fqn -> origin", data.line("overrides"))
        )
        return {}
    overrides: dict[str, Origin] = {}
    for fqn, text in value.items():
        try:
            overrides[str(fqn)] = parse_origin(text, base)
        except OriginSyntaxError as exc:
            diags.append(error("origin", display, str(exc), data.line("overrides", fqn)))
    return overrides


def _trust(
    value: Any,
    data: yamlsafe.Located,
    display: str,
    diags: list[Diagnostic],
    what: str = "metaskills",
) -> tuple[str, ...]:
    """``trust.metaskills`` (metaskill programs) or ``trust.plugins`` (a plugin's hooks
    and executables): fqn globs."""
    globs = value.get(what, []) if isinstance(value, dict) else None
    if not isinstance(globs, list) or not all(isinstance(g, str) for g in globs):
        if not isinstance(value, dict) and what != "metaskills":
            return ()  # reported once, for trust.metaskills
        diags.append(
            error(
                "manifest",
                display,
                f"'trust.{what}' must be a list of fqn globs such as acme/*",
                data.line("trust"),
            )
        )
        return ()
    return tuple(globs)


def _allowed_commands(
    value: Any, data: yamlsafe.Located, display: str, diags: list[Diagnostic]
) -> tuple[tuple[str, ...], tuple[CommandRuleSpec, ...]]:
    """metaskills: {allow-commands: [pytest, git, {command: make, subcommands: [test]}]}:
    what command() may start (names), and the user's argument rules (mappings)."""
    fix = "'metaskills' must be a mapping like {allow-commands: [pytest, git], serve: true}"
    if not isinstance(value, dict) or any(key not in ("allow-commands", "serve") for key in value):
        diags.append(error("manifest", display, fix, data.line("metaskills")))
        return (), ()
    entries = value.get("allow-commands") or []
    line = data.line("metaskills", "allow-commands")
    if not isinstance(entries, list):
        diags.append(error("manifest", display, _ALLOW_FIX, line))
        return (), ()
    names: list[str] = []
    rules: list[CommandRuleSpec] = []
    for entry in entries:
        rule = _command_rule(entry) if isinstance(entry, dict) else None
        if isinstance(entry, str) and COMMAND_NAME.match(entry):
            names.append(entry)
        elif rule is not None:
            names.append(rule.command)
            rules.append(rule)
        else:
            diags.append(error("manifest", display, _ALLOW_FIX, line))
            return (), ()
    return tuple(dict.fromkeys(names)), tuple(rules)


_ALLOW_FIX = (
    "'metaskills.allow-commands' must be a list of bare executable names such as pytest or "
    "git (no paths, no arguments), or argument rules for other programs such as "
    "{command: make, subcommands: [test, lint], deny-options: [-f, -C, --eval]}"
)


def _command_rule(entry: dict[str, Any]) -> CommandRuleSpec | None:
    """A mapping entry of allow-commands; None when it is malformed."""
    command = entry.get("command")
    subcommands = entry.get("subcommands")
    denied = entry.get("deny-options", [])
    if (
        any(key not in ("command", "subcommands", "deny-options") for key in entry)
        or not isinstance(command, str)
        or not COMMAND_NAME.match(command)
        or not (subcommands is None or _strings(subcommands))
        or not _strings(denied)
        or not all(option.startswith("-") and len(option) > 1 for option in denied)
    ):
        return None
    chosen = tuple(subcommands) if subcommands is not None else None
    return CommandRuleSpec(command, chosen, tuple(denied))


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) and item for item in value)


def _serve(value: Any, data: yamlsafe.Located, display: str, diags: list[Diagnostic]) -> bool:
    """metaskills: {serve: true}: register `metapkg mcp` in the hosts' MCP configs."""
    serve = value.get("serve", False) if isinstance(value, dict) else False
    if not isinstance(serve, bool):
        message = "'metaskills.serve' is true or false"
        diags.append(error("manifest", display, message, data.line("metaskills", "serve")))
        return False
    return serve


def _strict(value: Any, data: yamlsafe.Located, display: str, diags: list[Diagnostic]) -> bool:
    """strict: true: install fails on every finding it would otherwise tolerate."""
    if not isinstance(value, bool):
        message = (
            f"'strict' is true or false, not {value!r}; true makes install fail on every "
            f"finding of the packages' rules, as `metapkg check` does"
        )
        diags.append(error("manifest", display, message, data.line("strict")))
        return False
    return value


# -- editing (round-trip) ----------------------------------------------------------------


def _round_trip() -> Any:
    from ruamel.yaml import YAML

    yaml = YAML(typ="rt")
    yaml.indent(mapping=2, sequence=4, offset=2)
    yaml.preserve_quotes = True
    yaml.width = 4096
    return yaml


def with_added(
    text: str,
    path: Path,
    entries: Sequence[tuple[Kind, str]],
    notes: Mapping[str, str] | None = None,
) -> tuple[str, list[str]]:
    """``text`` (metapkg.yaml at ``path``, already read by :func:`parse`) with each
    ``(kind, origin text)`` of ``entries`` added, and the origin texts that were new.

    One round-trip load and one dump whatever the number of entries (``add --all`` of a
    repository of 800 skills adds 800): an entry is new unless its group already holds
    the same origin (compared parsed, so ``Acme/Skills`` and ``acme/skills`` are one
    repository, as on GitHub) or an earlier entry of ``entries`` added it.
    """
    if not entries:
        return text, []
    yaml = _round_trip()
    document = yaml.load(text) or {}
    present: dict[str, set[Origin]] = {}
    added = []
    for kind, origin_text in entries:
        group = _group(document, kind)
        if PLURAL[kind] not in present:
            present[PLURAL[kind]] = _origins_in(group, path.parent)
        wanted = parse_origin(split_range(origin_text)[0], path.parent)
        if wanted in present[PLURAL[kind]]:
            continue
        present[PLURAL[kind]].add(wanted)
        added.append(origin_text)
        if _moved_registry_server(group, wanted, origin_text, path.parent):
            continue
        if hasattr(group, "fa"):
            group.fa.set_block_style()
        group.append(origin_text)
        note = (notes or {}).get(origin_text)
        if note and hasattr(group, "yaml_add_eol_comment"):
            group.yaml_add_eol_comment(f"# {note}", len(group) - 1)
    return (_dumped(yaml, document) if added else text), added


def _moved_registry_server(group: Any, wanted: Origin, origin_text: str, base: Path) -> bool:
    """``add mcp:NAME@V`` where the list names that server at another version: the entry
    moves to V (two versions of one server would only conflict)."""
    from metapkg.origins import McpRegistryOrigin

    if not isinstance(wanted, McpRegistryOrigin):
        return False
    for index, item in enumerate(group):
        try:
            existing = parse_origin(str(item), base) if isinstance(item, str) else None
        except OriginSyntaxError:
            continue
        if isinstance(existing, McpRegistryOrigin) and existing.name == wanted.name:
            group[index] = origin_text
            return True
    return False


def _group(document: Any, kind: Kind) -> Any:
    """The round-trip list of ``dependencies.<kind>s``, created if missing."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    deps = document.setdefault("dependencies", CommentedMap())
    if deps is None:
        deps = document["dependencies"] = CommentedMap()
    group = deps.get(PLURAL[kind])
    if group is None:
        group = deps[PLURAL[kind]] = CommentedSeq()
    if not isinstance(group, list):
        raise ManifestError.single(
            "manifest", FILENAME, f"dependencies.{PLURAL[kind]} is not a list; fix it by hand"
        )
    return group


def _origins_in(group: list[Any], base: Path) -> set[Origin]:
    """The origins a dependency list names (entries that do not parse are left out)."""
    found = set()
    for item in group:
        entry = item.get("origin") if isinstance(item, dict) else item
        try:
            found.add(parse_origin(split_range(str(entry))[0], base))
        except OriginSyntaxError:
            continue
    return found


def with_removed(text: str, path: Path, origins: list[Origin]) -> tuple[str, int]:
    """``text`` (metapkg.yaml at ``path``, already read by :func:`parse`) without the
    dependencies whose origin is one of ``origins``, and how many."""
    yaml = _round_trip()
    document = yaml.load(text) or {}
    deps = document.get("dependencies") or {}
    unwanted = set(origins)
    removed = 0
    for group in deps.values():
        if not isinstance(group, list):
            continue
        for index in reversed(range(len(group))):
            item = group[index]
            entry = item.get("origin") if isinstance(item, dict) else item
            try:
                if parse_origin(split_range(str(entry))[0], path.parent) in unwanted:
                    del group[index]
                    removed += 1
            except OriginSyntaxError:
                continue
    return (_dumped(yaml, document) if removed else text), removed


def _dumped(yaml: Any, document: Any) -> str:
    import io

    buffer = io.StringIO()
    yaml.dump(document, buffer)
    return buffer.getvalue()
