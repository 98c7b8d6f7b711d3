"""``metapkg init``, ``add`` and ``remove``: edit metapkg.yaml, then install.

An edit that leads to a failed install is undone: metapkg.yaml goes back to its exact
previous bytes, so a bad origin never leaves the manifest half-changed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from metapkg import manifest
from metapkg.actions import marketplace
from metapkg.actions.choosing import Choice
from metapkg.actions.market_offers import Listed
from metapkg.actions.offers import Candidate, Offer, Passed, pick, reported, screen
from metapkg.diagnostics import (
    Diagnostic,
    ManifestError,
    MetapkgError,
    PackageError,
    UsageError,
    error,
)
from metapkg.lock import format as lockfmt
from metapkg.origins import McpRegistryOrigin, Origin, parse_origin
from metapkg.packages.models import Kind
from metapkg.redact import redact
from metapkg.sources_input import Source, SourceError, canonical, parse_source
from metapkg.textio import read_utf8, write_atomic

if TYPE_CHECKING:
    from metapkg.fetch.source import Fetched
    from metapkg.manifest import Manifest
    from metapkg.packages.discover import Discovery, Found


def init(project: Path) -> tuple[list[str], tuple[str, ...]]:
    """Write a starter metapkg.yaml (its targets: the hosts the project already uses, if
    any) and the managed .gitignore block; return what was written and the hosts found.

    Everything is read before anything is written, and each file is replaced atomically:
    an unreadable .gitignore stops init with nothing changed.
    """
    from metapkg.actions.gitignore import add_block
    from metapkg.hosts.registry import detect

    path = project / manifest.FILENAME
    if path.exists():
        raise ManifestError.single(
            "manifest",
            manifest.FILENAME,
            "metapkg.yaml already exists; edit it or use `metapkg add`",
        )
    gitignore = project / ".gitignore"
    try:
        existing = read_utf8(gitignore, "manifest", ".gitignore")
    except FileNotFoundError:
        existing = ""
    found = detect(project)
    targets = found or manifest.DEFAULT_TARGETS
    write_atomic(path, starter(targets))
    written = [manifest.FILENAME]
    new = add_block(existing)
    if new is not None:
        write_atomic(gitignore, new)
        written.append(".gitignore")
    return written, found


def starter(targets: Sequence[str]) -> str:
    """The starter metapkg.yaml with ``targets`` in place of the default ones."""
    line = f"targets: [{', '.join(targets)}]"
    return manifest.STARTER.replace("targets: [agents, claude]", line, 1)


@contextmanager
def manifest_restored_on_failure(path: Path, before: bytes) -> Iterator[None]:
    """metapkg.yaml at ``path`` back to its exact ``before`` bytes if the body fails."""
    try:
        yield
    except BaseException:
        path.write_bytes(before)
        raise


def guess_kind(origin: Origin) -> Kind | None:
    """The kind a catalog path names (…/skills/x, …/agents/x, …/mcps/x.json), if it says.

    Only the bucket right above the package counts: a `skills` folder higher up the path
    says nothing about what this origin holds.
    """
    parts = origin.path_text.split("/")
    bucket = parts[-2] if len(parts) > 1 else ""
    if origin.path_text.endswith(".json"):
        return "mcp"
    return {"skills": "skill", "agents": "agent"}.get(bucket)  # type: ignore[return-value]


@dataclass(frozen=True)
class Added:
    """What ``add`` did: the entries new in metapkg.yaml, every package chosen (new or
    already there), and what ``--all`` left out: packages that do not load or are unsafe
    (``passed``, offers.py) and same-named ones (``same_named``, choosing.py)."""

    entries: list[str]
    chosen: list[Candidate]
    passed: list[Passed]
    same_named: list[Diagnostic]

    @property
    def refused(self) -> list[Passed]:
        return [p for p in self.passed if p.unsafe]

    @property
    def skipped(self) -> int:
        return len(self.passed) - len(self.refused) + len(self.same_named)


def add(
    project: Path,
    origins: list[str],
    kind: Kind | None,
    then_install: Callable[[Manifest], object],
    offline: bool = False,
    choice: Choice | None = None,
    dry_run: bool = False,
) -> Added:
    """Add each source (any form people paste; see sources_input.py) under its kind.
    ``then_install`` gets the edited manifest once metapkg.yaml is written (with
    ``dry_run``, nothing is written). metapkg.yaml is read once and written once,
    whatever the number of packages. With ``--all``, what cannot be added is left out
    (``Added``); when nothing is left, nothing is written."""
    choice = choice or Choice()
    read = manifest.read_for_edit(project)  # a broken manifest is reported as such,
    offers: list[Offer] = []  # before any fetching
    same_named: list[Diagnostic] = []
    with _Finder(offline) as finder:
        for given in origins:
            wanted = marketplace.request(given)
            if wanted is not None:  # NAME@MARKETPLACE
                market = finder.marketplace(_parsed(wanted[1], project), wanted[1], required=True)
                assert market is not None
                offers.append(market.offer(wanted[0], kind, project))
                continue
            source = _parsed(given, project)
            market = finder.marketplace(source, given) if choice.every else None
            if market is not None:  # MARKETPLACE --all: every plugin it lists
                offers += market.every(kind, project, same_named.append)
                continue
            offers.append(finder.offer(source, kind))
    taken = pick(offers, choice, same_named.append)
    chosen, passed = screen(taken) if choice.every else (taken, [])
    if not chosen:
        left = len(passed) + len(same_named)
        why = f"none of its {left} packages can be added (see above); metapkg.yaml is unchanged"
        nothing = error("skipped", ", ".join(map(redact, origins)), why)
        raise PackageError([*same_named, *reported(passed), nothing])
    found = [(c.kind, c.entry) for c in chosen]
    notes = {c.entry: c.note for c in chosen if c.note}
    text, added = manifest.with_added(read.text, read.manifest.path, found, notes)
    _edited(read, text, then_install, dry_run)
    return Added(added, chosen, passed, same_named)


def marketplace_listing(project: Path, given: str, offline: bool) -> marketplace.Marketplace:
    """The marketplace ``given`` names (any source form ``add`` accepts), read."""
    with _Finder(offline) as finder:
        listed = finder.marketplace(_parsed(given, project), given, required=True)
        assert listed is not None
        return listed.market


def _parsed(given: str, project: Path) -> Source:
    try:
        return parse_source(given, project)
    except SourceError as exc:
        raise UsageError([error("origin", redact(given), str(exc))]) from None


def _edited(
    read: manifest.Read, text: str, then_install: Callable[[Manifest], object], dry_run: bool
) -> None:
    """Install the edited manifest ``text``: written first, and put back as it was read
    if the install fails; with ``dry_run``, not written at all."""
    path = read.manifest.path
    edited = manifest.parse(text, path)
    if dry_run:
        then_install(edited)
        return
    with manifest_restored_on_failure(path, read.data):
        write_atomic(path, text)
        then_install(edited)


class _Finder:
    """Turns a source into the packages it names, asking the host only when it must."""

    def __init__(self, offline: bool) -> None:
        from metapkg.fetch.sources import FetchOptions, Sources

        self.sources = Sources(FetchOptions(offline=offline))

    def __enter__(self) -> _Finder:
        return self

    def __exit__(self, *_: object) -> None:
        self.sources.close()

    def offer(self, source: Source, kind: Kind | None) -> Offer:
        origin = source.origin or source.at(source.ref or self._default_branch(source))
        if isinstance(origin, McpRegistryOrigin):
            if kind not in (None, "mcp"):
                raise UsageError(
                    [
                        error(
                            "origin", str(origin), f"an MCP Registry server is an mcp, not a {kind}"
                        )
                    ]
                )
            return _one(source, "mcp", self._registry_version(origin), origin.name)
        if origin.local is not None:
            _require_local(origin.local)
        kind = kind or ("agent" if source.agents_md else None)  # asked for by its own URL
        if kind is not None:
            return _one(source, kind, origin, _last_name(source, origin))
        if origin.local is not None:
            return self._from_folder(source, origin, origin.local, origin)
        guessed = guess_kind(origin)
        if guessed is not None:
            return _one(source, guessed, origin, _last_name(source, origin))
        fetched = self._look(origin)
        return self._from_folder(source, origin, fetched.path, fetched)

    def marketplace(self, source: Source, label: str, required: bool = False) -> Listed | None:
        """The marketplace file at the folder ``source`` names (None when it holds none,
        or lists no plugin, and ``required`` is false)."""
        origin = source.origin or source.at(source.ref or self._default_branch(source))
        if isinstance(origin, McpRegistryOrigin):
            return None
        fetched: Fetched | None = None
        if origin.local is not None:
            _require_local(origin.local)
            folder = origin.local
        else:
            fetched = self._look(origin)
            folder = fetched.path
        found = marketplace.read(folder, redact(label)) if folder.is_dir() else None
        if found is None or (not found.entries and not required):
            # an empty catalog says nothing: --all looks for packages in the folder
            if required:
                raise MetapkgError.single(
                    "marketplace",
                    str(origin),
                    f"holds no marketplace ({' or '.join(marketplace.FILES)})",
                )
            return None
        return Listed(self.offer, found, origin, fetched, redact(label))

    def _registry_version(self, origin: McpRegistryOrigin) -> McpRegistryOrigin:
        """``mcp:NAME`` at the version the registry calls latest (the manifest records
        an exact version, as `uv add` records what it resolved); ``mcp:NAME@V`` as is,
        once the registry has shown it exists."""
        import json

        fetched = self.sources.fetch(origin)
        if origin.version is not None:
            return origin
        return origin.at(json.loads(fetched.path.read_bytes())["version"])

    def _look(self, origin: Origin) -> Fetched:
        """The folder to look for packages in. A repository's root is no package of its
        own: what sits there beside the packages (a ``CLAUDE.md`` link, a device) is
        judged by install in the packages chosen, not here."""
        from metapkg.fetch.github import GitHubSource

        source = self.sources.source(origin)
        if isinstance(source, GitHubSource):
            return source.fetch(origin, verify=False)
        return self.sources.fetch(origin)

    def _root_plugin_refused(self, found: Discovery, folder: Path, origin: Origin) -> bool:
        """Is the folder itself a plugin that install would refuse as one package? A
        download's links are left out of the cache (obra/superpowers: AGENTS.md ->
        CLAUDE.md), so only verifying the folder as install does tells."""
        if [(f.path, f.kind) for f in found.packages] != [(folder, "plugin")]:
            return False
        if origin.local is not None:
            return False  # a local folder's links are seen by discover itself
        try:
            self.sources.fetch(origin)
        except MetapkgError:
            return True
        return False

    def _default_branch(self, source: Source) -> str:
        from metapkg.fetch.github import GitHubSource

        github = self.sources.source(source.at("HEAD"))
        assert isinstance(github, GitHubSource)  # shorthand sources are GitHub's
        return github.default_branch(source.repo_id)

    def _from_folder(self, source: Source, origin: Origin, folder: Path, fetched: object) -> Offer:
        from metapkg.packages.discover import discover
        from metapkg.packages.load import detect_kind

        if folder.is_file():  # a local .json file: an MCP server, or nothing
            found_kind = detect_kind(folder)
            if found_kind is None:
                raise MetapkgError.single("missing", str(origin), "is a file, not a package")
            return _one(source, found_kind, origin, folder.stem)
        repository = _is_repository(fetched, folder)
        found = discover(folder, ".", repository=repository)
        if self._root_plugin_refused(found, folder, origin):
            found = discover(folder, ".", repository=repository, whole_plugin=False)
        if not found.packages:
            passed = "".join(f"; {note}" for note in found.notes)
            raise MetapkgError.single(
                "missing",
                str(origin),
                f"holds no package (no SKILL.md, AGENTS.md or .json){passed}",
            )

        def make(package: Found) -> Candidate:
            inside = origin if package.path == folder else _inside(origin, fetched, package, folder)
            entry = canonical(source, inside)
            return Candidate(package.kind, inside, package.path.name, entry, package.path)

        return Offer(str(origin), found=found, make=make)


def _one(source: Source, kind: Kind, origin: Origin, name: str) -> Offer:
    """The offer of a source that is one package, added as it is."""
    return Offer(str(origin), one=Candidate(kind, origin, name, canonical(source, origin)))


def _last_name(source: Source, origin: Origin) -> str:
    """The folder name an origin ends in (a repository's root: the repository's name)."""
    if not origin.is_local and "/" not in origin.path_text:  # only a ref: the root
        return source.repo or origin.repo_id.rsplit("/", 1)[-1]
    return origin.path_text.rstrip("/").rsplit("/", 1)[-1].removesuffix(".json")


def _require_local(path: Path) -> None:
    """A local source that is not there is an error naming it (exit 1, as when install
    meets it), not a traceback."""
    try:
        is_folder = path.is_dir()
        exists = is_folder or path.exists()
    except OSError as exc:  # a name too long, a folder we may not look into
        raise MetapkgError.single("origin", str(path), f"cannot be read: {exc.strerror}") from None
    if not exists:
        raise MetapkgError.single(
            "origin",
            str(path),
            "no such folder or file; check the path (a relative path counts from the "
            "project folder; white space around a source, tabs included, is ignored)",
        )
    if not is_folder and path.suffix != ".json":
        raise MetapkgError.single(
            "origin",
            str(path),
            "is a file, not a package; give the folder that holds SKILL.md or AGENTS.md, "
            "or an MCP server's .json file",
        )


def _is_repository(fetched: object, folder: Path) -> bool:
    """Is ``folder`` a repository's root (where AGENTS.md is the repository's own)?"""
    from metapkg.fetch.source import Fetched

    if isinstance(fetched, Fetched) and fetched.place is not None:
        return not fetched.place.path
    return (folder / ".git").exists()


def _inside(origin: Origin, fetched: object, package: Found, folder: Path) -> Origin:
    """The origin of ``package``, inside the folder ``origin`` names."""
    from metapkg.fetch.source import Fetched

    relative = package.path.relative_to(folder).as_posix()
    if not isinstance(fetched, Fetched) or fetched.place is None:
        return origin.inside(relative, None, "")  # a folder on disk
    ref = fetched.pin.ref if fetched.pin is not None else None
    return origin.inside(relative, ref, fetched.place.path)


def remove(
    project: Path,
    names: list[str],
    then_install: Callable[[Manifest], object],
    dry_run: bool = False,
) -> int:
    """Remove direct dependencies named by fqn, short name, or any source form ``add``
    accepts; a name that matches none gets the closest ones suggested. ``then_install``
    as for ``add``."""
    lock = lockfmt.read(project / lockfmt.FILENAME)
    if lock is None:
        raise MetapkgError.single(
            "lock",
            lockfmt.FILENAME,
            "no metapkg.lock to find packages in; run `metapkg install` first",
        )
    origins: list[Origin] = []
    for name in names:
        direct = _direct(lock, name, project)
        if not direct:
            from metapkg.actions.inspect import suggestion

            nested = any(p.fqn == name for p in lock.packages)
            hint = " (it is a dependency of another package; see `metapkg why`)" if nested else ""
            hint = hint or suggestion(name, [r.fqn for r in lock.requires])
            raise MetapkgError.single(
                "missing", manifest.FILENAME, f"{name} is not a direct dependency{hint}"
            )
        origins.extend(parse_origin(r.origin, project) for r in direct)
    read = manifest.read_for_edit(project)
    text, removed = manifest.with_removed(read.text, read.manifest.path, origins)
    _edited(read, text, then_install, dry_run)
    return removed


def _direct(lock: lockfmt.Lockfile, name: str, project: Path) -> list[lockfmt.Requirement]:
    """The manifest's dependencies ``name`` means: an fqn, a unique short name, or a
    source naming the same repository and path (whatever the ref)."""
    exact = [r for r in lock.requires if r.fqn == name]
    if exact:
        return exact
    short = [r for r in lock.requires if r.fqn.rsplit("/", 1)[-1] == name]
    if len({r.fqn for r in short}) == 1:
        return short
    try:
        source = parse_source(name, project)
    except SourceError:
        return []
    return [r for r in lock.requires if _same_source(source, r.origin, project)]


def _same_source(source: Source, locked: str, project: Path) -> bool:
    origin = parse_origin(locked, project)
    if source.origin is not None and source.origin.local is not None:
        return origin == source.origin
    repository = source.origin.repository if source.origin else f"github.com/{source.repo_id}"
    if origin.is_local or origin.repository != repository:
        return False
    written = origin.path_text  # "<ref>/<path>", however the scheme splits it
    wanted = source.origin.path_text if source.origin is not None else source.path
    if source.origin is not None and written == wanted:
        return True
    if source.origin is None and not source.path:  # the repository itself: its root
        return "/" not in written
    path = wanted.split("/", 1)[1] if source.origin is not None and "/" in wanted else wanted
    return bool(path) and (written == path or written.endswith("/" + path))
