"""Find the packages in a folder the way people lay repositories out.

Looked at, in order:

* a folder with SKILL.md is one skill (everything under it, scripts/, references/ and
  even folders of its own with SKILL.md, is its files), and a folder with ``<name>.3md``
  (or ``agent.3md``) and no AGENTS.md one agent (at a repository's root, such a file is
  the folder's own agent, last below);
* a folder named ``agents``, ``skills`` or ``mcps`` is that bucket of a catalog;
* the catalog buckets ``agents/<name>/AGENTS.md``, ``skills/<name>/SKILL.md`` and
  ``mcps/<file>.json``, with group folders inside a bucket: dot-folders such as
  ``skills/.curated/<name>/`` and category folders (``skills/<category>/<name>/``, down
  to ``MAX_GROUPS`` levels); files beside the packages of a group are its own;
* the skill folders agent hosts read in a repository: ``.agents/skills/``,
  ``.claude/skills/``, ``.github/skills/`` and the like (``HOST_HOMES``);
* Claude plugin repositories: ``<folder>/skills/`` and ``<folder>/<plugin>/skills/``
  (``plugins/<plugin>/skills/<name>/SKILL.md``, ``external_plugins/...``);
* skills at the top level (``<name>/SKILL.md``); and when none of the folders above
  exists, skills in group folders below the top (``<group>/<name>/SKILL.md``, deeper
  too, within ``MAX_GROUPS``);
* an MCP Registry ``server.json`` at the top, when nothing above was found: the
  repository of an MCP server publishes it there (``_server_json``);
* the folder's own AGENTS.md (a file or a link) or ``.3md`` agent, last
  (``_own_agent``). It is an agent package only when nothing else was found, and then,
  at the root of a repository (``repository=True``, how ``add`` looks at one), only a
  ``.3md`` or an AGENTS.md that opens with MetaAgents frontmatter (``name`` and
  ``description``); any other AGENTS.md there is the repository's instructions for
  agents working on it (AGENTS.md, ``CLAUDE.md -> AGENTS.md``), noted and passed over,
  never a package that could stand in the way of the others. A MetaAgents AGENTS.md or a
  ``.3md`` beside other packages is ``set_aside``: ``check`` judges it, ``add`` takes it
  only by its own URL (a blob URL of the AGENTS.md, or its folder's with ``--kind
  agent``).

A package reachable two ways (``.claude/skills`` a link to ``skills``, an identical copy
in two host folders) is found once. Two different packages with one name are both kept
and listed by :meth:`Discovery.same_names`: ``add`` makes the user choose by path.

Folders named like ``.git`` or ``node_modules`` are never entered, nor links that lead
out of the folder. Layout problems inside the catalog buckets (a stray file, a folder
without its manifest) are findings of the ``metaagents`` profile, for ``check``; ``add``
never stops on them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from metapkg.diagnostics import Diagnostic, error
from metapkg.packages import declared
from metapkg.packages.load import MANIFEST_FILES, detect_kind
from metapkg.packages.models import Kind

BUCKETS: dict[str, Kind] = {"agents": "agent", "skills": "skill", "mcps": "mcp"}
NEVER_ENTERED = frozenset({".git", "node_modules", "__pycache__", "venv", "dist", "build"})
HOST_HOMES = (
    ".agents/skills",
    ".agent/skills",
    ".claude/skills",
    ".codex/skills",
    ".cursor/skills",
    ".gemini/skills",
    ".github/skills",
)
MAX_GROUPS = 3  # category folders between a skills folder and a skill


@dataclass(frozen=True)
class Found:
    path: Path
    display: str
    kind: Kind
    name: str = ""  # the name it declares (or its folder's): what --skill NAME matches

    @property
    def label(self) -> str:
        return self.name or self.path.name


@dataclass
class Discovery:
    packages: list[Found] = field(default_factory=list)
    layout: list[Diagnostic] = field(default_factory=list)  # metaagents findings
    notes: list[str] = field(default_factory=list)  # what was passed over, for -v
    set_aside: list[Found] = field(default_factory=list)  # a root agent beside packages

    def same_names(self) -> dict[str, list[Found]]:
        """Names that more than one (different) package declares, with every one; and
        folder names several packages share (install puts a package whose name differs
        from its folder under the folder's name: they would land in one folder)."""
        groups: dict[str, list[Found]] = {}
        for found in self.packages:
            groups.setdefault(f"{found.kind}:{found.label}", []).append(found)
        for found in self.packages:
            if found.path.name != found.label:
                groups.setdefault(f"{found.kind}:{found.path.name}", []).append(found)
        return {key.split(":", 1)[1]: f for key, f in groups.items() if len(f) > 1}


def discover(
    root: Path, display: str, *, repository: bool = False, whole_plugin: bool = True
) -> Discovery:
    """Every package under ``root`` (a folder), named relative to ``display``.
    ``repository``: ``root`` is a repository's root, where an AGENTS.md without MetaAgents
    frontmatter is the repository's instructions even when nothing else is there.
    ``whole_plugin=False``: ``root`` is a plugin that cannot install as one package (its
    download held a link the cache left out); its parts are found one by one."""
    walk = _Walk(root)
    result = walk.result
    if detect_kind(root) == "plugin":  # a plugin is one package: its parts are not listed
        link = _a_link_in(root) if whole_plugin else "an entry of its download"
        if link is None:
            walk.add(root, display, "plugin")
            return result
        # A package holds regular files only, so this plugin cannot install whole (the
        # repository obra/superpowers is a plugin with AGENTS.md -> CLAUDE.md): its parts
        # are found as in any repository instead.
        result.notes.append(
            f"{display}: a plugin, but {link} is a symbolic link and a package holds "
            f"regular files only; its skills and agents are added one by one"
        )
    if (root / MANIFEST_FILES["skill"]).is_file():
        walk.add(root, display, "skill")
        return result
    alone = not repository and not (root / MANIFEST_FILES["agent"]).exists()
    if alone and detect_kind(root) == "agent":
        walk.add(root, display, "agent")  # a <name>.3md agent folder
        return result
    if not repository and root.resolve().name in BUCKETS:  # `check skills/`: the bucket
        kind = BUCKETS[root.resolve().name]
        walk.bucket(root, display, kind, _depth(kind), findings=True)
        return result
    homes = walk.homes(root, display)
    walk.top_level(root, display, groups=0 if homes else MAX_GROUPS)
    _collapse_copies(result)
    _server_json(root, display, result)
    _own_agent(root, display, result, repository)
    return result


def _server_json(root: Path, display: str, result: Discovery) -> None:
    """A server's own ``server.json`` at the top of a folder holding no other package."""
    path = root / "server.json"
    if result.packages or path.is_symlink() or not path.is_file():
        return
    from metapkg.packages.serverjson import name_in

    name = name_in(path)
    if name is not None:
        result.packages.append(Found(path, _join(display, path.name), "mcp", name))


def _depth(kind: Kind) -> int:
    return MAX_GROUPS if kind == "skill" else 1


def _a_link_in(root: Path) -> str | None:
    """The first symbolic link under ``root`` (``.git`` left out), relative to it."""
    import os

    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = sorted(d for d in dirs if d != ".git")
        for name in sorted(files) + dirs:
            path = Path(folder, name)
            if path.is_symlink():
                return path.relative_to(root).as_posix()
    return None


def _join(display: str, name: str) -> str:
    return name if display in (".", "") else f"{display}/{name}"


class _Walk:
    """One walk of a folder: what it found, and the real paths already seen (a package
    or a folder reachable twice, through a link, is taken once)."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self.result = Discovery()
        self.seen: set[Path] = set()

    def add(self, path: Path, display: str, kind: Kind) -> None:
        real = path.resolve()
        if real in self.seen:
            return
        if not real.is_relative_to(self.root):
            self.result.notes.append(f"{display}: a link out of the folder; not followed")
            return
        self.seen.add(real)
        self.result.packages.append(Found(path, display, kind, _name(path, kind)))

    def enter(self, folder: Path) -> bool:
        """A folder to look inside: new, not excluded, not a link out of the root."""
        if folder.name in NEVER_ENTERED or not folder.is_dir():
            return False
        real = folder.resolve()
        if real in self.seen or not real.is_relative_to(self.root):
            return False
        self.seen.add(real)
        return True

    def homes(self, root: Path, display: str) -> bool:
        """The catalog buckets, the hosts' skill folders and plugin skill folders; True
        when there was any."""
        before = len(self.result.packages)
        buckets = [bucket for bucket in BUCKETS if (root / bucket).is_dir()]
        for bucket in buckets:
            if self.enter(root / bucket):
                kind = BUCKETS[bucket]
                self.bucket(root / bucket, _join(display, bucket), kind, _depth(kind), True)
        for home in HOST_HOMES:
            if self.enter(root / home):
                self.bucket(root / home, _join(display, home), "skill", MAX_GROUPS, False)
        for top in self.folders(root):
            if top.name in BUCKETS or detect_kind(top) not in (None, "plugin"):
                continue
            for plugin in (top, *self.folders(top)):
                skills = plugin / "skills"
                found = detect_kind(plugin)
                if found == "plugin":  # the plugin is the unit, with its skills inside
                    self.add(plugin, _join(display, plugin.relative_to(root).as_posix()), found)
                    if plugin is top:
                        break
                elif found is None and self.enter(skills):
                    shown = _join(display, skills.relative_to(root).as_posix())
                    self.bucket(skills, shown, "skill", MAX_GROUPS, False)
        return bool(buckets) or len(self.result.packages) > before

    def bucket(self, folder: Path, display: str, kind: Kind, depth: int, findings: bool) -> None:
        """The packages of a bucket, through group folders up to ``depth`` levels deep;
        ``findings``: report what does not belong (a catalog's own bucket, top level)."""
        for entry in _entries(folder):
            shown = _join(display, entry.name)
            found = detect_kind(entry)
            if found == kind:
                self.add(entry, shown, kind)
            elif entry.is_dir() and found is None and depth > 0 and self.holds(entry, kind, depth):
                if self.enter(entry):
                    self.bucket(entry, shown, kind, depth - 1, False)
            elif entry.name.startswith(".") or not findings:
                continue  # a dot-file, or a group's README and the like
            else:
                self.result.layout.append(error("layout", shown, _problem(entry, kind, found)))

    def holds(self, folder: Path, kind: Kind, depth: int) -> bool:
        """Whether a group folder holds a package of ``kind`` within ``depth`` levels."""
        if folder.name in NEVER_ENTERED:
            return False
        for child in _entries(folder):
            found = detect_kind(child) if child.is_dir() or kind == "mcp" else None
            if found == kind:
                return True
            deeper = found is None and depth > 1 and child.is_dir()
            if deeper and self.holds(child, kind, depth - 1):
                return True
        return False

    def top_level(self, root: Path, display: str, groups: int) -> None:
        """Skills at the top level, and in group folders down to ``groups`` levels."""
        for entry in self.folders(root):
            shown = _join(display, entry.name)
            if (entry / MANIFEST_FILES["skill"]).is_file():
                self.add(entry, shown, "skill")
            elif groups > 0 and detect_kind(entry) is None and self.enter(entry):
                self.top_level(entry, shown, groups - 1)

    def folders(self, folder: Path) -> list[Path]:
        """Sub-folders to look in for skills: not hidden, excluded or a link out."""
        return [
            entry
            for entry in _entries(folder)
            if entry.is_dir()
            and not entry.name.startswith(".")
            and entry.name not in NEVER_ENTERED
            and entry.resolve().is_relative_to(self.root)
        ]


def _entries(folder: Path) -> list[Path]:
    try:
        return sorted(folder.iterdir(), key=lambda p: p.name)
    except OSError:  # unreadable, or gone: nothing to find there
        return []


def _name(path: Path, kind: Kind) -> str:
    if kind == "plugin":
        return declared.plugin_name(path) or path.name
    if kind == "mcp":
        return path.stem
    if kind == "skill":
        return declared.declared_name(path / MANIFEST_FILES["skill"]) or path.name
    return path.name


def _problem(entry: Path, kind: Kind, found: Kind | None) -> str:
    bucket = f"{kind}s"
    if kind == "mcp":
        return "mcps/ holds only <namespace>_<short>.json files; move this entry out"
    if entry.is_file():
        return f"{bucket}/ holds only package folders; move this file out"
    if found is None:
        expected = MANIFEST_FILES[kind] + (" (or <name>.3md)" if kind == "agent" else "")
        return f"{bucket}/<name>/ must contain {expected}; add it or move this entry out"

    def a(word: str) -> str:
        return f"an {word}" if word == "agent" else f"a {word}"

    return f"this is {a(found)}, not {a(kind)}; move it to {found}s/"


def _collapse_copies(result: Discovery) -> None:
    """One skill kept in several places with the same files is one package (the first)."""
    for name, founds in result.same_names().items():
        kept: dict[str, Found] = {}
        for found in founds:
            first = kept.setdefault(declared.fingerprint(found.path), found)
            if first is not found:
                result.packages.remove(found)
                result.notes.append(
                    f"{found.display}: the same files as {first.display} ({name}); "
                    f"found once, as {first.display}"
                )


def _own_agent(root: Path, display: str, result: Discovery, repository: bool) -> None:
    """The folder's own AGENTS.md and .3md agent, after everything else (see the module
    docstring): a package, set aside, or the repository's instructions."""
    from metapkg.agent3md.package import find_document

    agents_md = root / MANIFEST_FILES["agent"]
    shown = _join(display, agents_md.name)
    document = find_document(root)
    if document is None and not agents_md.is_file():
        return
    declares = document is not None or declared.metaagents_agent(agents_md) is not None
    if not result.packages and (declares or not repository):
        result.packages.append(Found(root, display, "agent", root.name))
    elif declares:
        result.set_aside.append(Found(root, display, "agent", root.name))
        what = document.name if document is not None else agents_md.name
        others = len(result.packages)
        result.notes.append(
            f"{_join(display, what)}: an agent beside {others} other "
            f"package{'s' if others > 1 else ''}, not added with them; add it by its own "
            f"URL (.../blob/<ref>/AGENTS.md), or its folder's with --kind agent"
        )
    elif agents_md.is_file():
        result.notes.append(
            f"{shown}: the repository's instructions for agents (no MetaAgents frontmatter: "
            f"name and description), not a package; passed over"
        )
