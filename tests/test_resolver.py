"""The resolver in process, over an in-memory forge (tests/fakeforge.py): version ranges
over tags, prereleases, backtracking, explained failures, pin reuse, update in range."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Mapping
from pathlib import Path

import pytest
from fakeforge import FakeForge, FakeSource
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from metapkg.actions.resolution import Resolution, resolve_project
from metapkg.diagnostics import ResolutionError
from metapkg.fetch.source import Fetched
from metapkg.fetch.sources import REGISTRY, FetchOptions, SourceFactory, Sources
from metapkg.lock import format as lockfmt
from metapkg.origins import Origin, parse_origin
from metapkg.packages.semver import Range
from metapkg.resolve.candidates import Candidates
from metapkg.resolve.discovery import Discovery


def url(repo: str, name: str, ref: str = "main", spec: str | None = None) -> str:
    text = f"https://github.com/{repo}/tree/{ref}/skills/{name}"
    return f"{text}#{spec}" if spec else text


def resolve(
    forge: FakeForge, project: Path, skills: list[object], fresh: frozenset[str] | None = None
) -> Resolution:
    project.mkdir(exist_ok=True)
    lines = ["dependencies:", "  skills:"] + [f"    - {json.dumps(s)}" for s in skills]
    (project / "metapkg.yaml").write_text("\n".join(lines) + "\n")
    return resolve_project(project, FetchOptions(workers=4), fresh=fresh, registry=forge.registry)


def locked(resolution: Resolution) -> dict[str, str | None]:
    return {p.fqn: p.version for p in resolution.lock.packages}


def keep(project: Path, resolution: Resolution) -> None:
    (project / lockfmt.FILENAME).write_text(resolution.lock_text)


@pytest.fixture
def forge(tmp_path: Path) -> FakeForge:
    return FakeForge(tmp_path / "forge")


def test_a_range_picks_the_newest_tag_in_it(forge: FakeForge, tmp_path: Path) -> None:
    for version in ("1.0.0", "1.2.0", "1.3.0", "2.0.0"):
        forge.release("acme/x", "x", version)
    resolution = resolve(forge, tmp_path / "p", [url("acme/x", "x", spec="^1.2")])
    assert locked(resolution) == {"acme/x": "1.3.0"}
    [package] = resolution.lock.packages
    assert package.origin == "https://github.com/acme/x/tree/v1.3.0/skills/x"
    [requirement] = resolution.lock.requires
    assert requirement.version == "^1.2"
    assert requirement.origin == "https://github.com/acme/x/tree/main/skills/x"
    assert len(forge.fetches) == 1  # only the candidate it took was downloaded


def test_the_object_form_and_the_fragment_form_are_one_requirement(
    forge: FakeForge, tmp_path: Path
) -> None:
    for version in ("1.0.0", "1.4.0"):
        forge.release("acme/x", "x", version)
    fragment = resolve(forge, tmp_path / "a", [url("acme/x", "x", spec="~1.0")])
    obj = resolve(forge, tmp_path / "b", [{"origin": url("acme/x", "x"), "version": "~1.0"}])
    assert locked(fragment) == locked(obj) == {"acme/x": "1.0.0"}
    assert fragment.lock.packages == obj.lock.packages


def test_prereleases_only_when_the_range_names_one(forge: FakeForge, tmp_path: Path) -> None:
    for version in ("1.3.0", "1.4.0-beta.1"):
        forge.release("acme/x", "x", version)
    assert locked(resolve(forge, tmp_path / "a", [url("acme/x", "x", spec="^1.2")])) == {
        "acme/x": "1.3.0"
    }
    wanted = [url("acme/x", "x", spec=">=1.4.0-beta.0 <2")]
    assert locked(resolve(forge, tmp_path / "b", wanted)) == {"acme/x": "1.4.0-beta.1"}


def test_monorepo_tags_are_per_package(forge: FakeForge, tmp_path: Path) -> None:
    forge.release("acme/cat", "x", "1.2.0", tag="x@1.2.0")
    forge.release("acme/cat", "x", "1.3.0", tag="x/v1.3.0")
    forge.release("acme/cat", "y", "9.0.0", tag="y@9.0.0")
    forge.release("acme/cat", "x", "9.9.9", tag="v9.9.9")  # a plain tag: not x's
    resolution = resolve(forge, tmp_path / "p", [url("acme/cat", "x", spec="^1")])
    assert locked(resolution) == {"acme/x": "1.3.0"}
    assert "/tree/x/v1.3.0/skills/x" in resolution.lock.packages[0].origin


def test_a_tag_that_disagrees_with_its_version_is_no_candidate(
    forge: FakeForge, tmp_path: Path
) -> None:
    forge.release("acme/x", "x", "1.4.0")
    sha = forge.commit("acme/x", {"skills": {"x": {"version": "1.4.0"}}})
    forge.tag("acme/x", "v1.5.0", sha)  # tagged 1.5.0, says 1.4.0
    resolution = resolve(forge, tmp_path / "p", [url("acme/x", "x", spec="^1")])
    assert locked(resolution) == {"acme/x": "1.4.0"}
    assert "/tree/v1.4.0/" in resolution.lock.packages[0].origin


def _backtracking_catalog(forge: FakeForge) -> None:
    """a 1.1.0 needs x ^2; a 1.0.0 needs x ^1; b needs x ~1.4: a must go back to 1.0.0."""
    for version in ("1.4.0", "1.4.2", "2.0.0"):
        forge.release("acme/x", "x", version)
    forge.release("acme/a", "a", "1.0.0", skills=[url("acme/x", "x", spec="^1")])
    forge.release("acme/a", "a", "1.1.0", skills=[url("acme/x", "x", spec="^2")])
    forge.release("acme/b", "b", "1.0.0", skills=[url("acme/x", "x", spec="~1.4")])


def test_backtracking_finds_the_versions_that_fit_together(
    forge: FakeForge, tmp_path: Path
) -> None:
    _backtracking_catalog(forge)
    wanted = [url("acme/a", "a", spec="^1"), url("acme/b", "b", spec="^1")]
    resolution = resolve(forge, tmp_path / "p", wanted)
    assert locked(resolution) == {"acme/a": "1.0.0", "acme/b": "1.0.0", "acme/x": "1.4.2"}


def test_nothing_fits_and_the_error_names_every_range_and_who_asked(
    forge: FakeForge, tmp_path: Path
) -> None:
    for version in ("1.4.3", "2.1.0"):
        forge.release("acme/x", "x", version)
    forge.release("acme/a", "a", "2.1.0", skills=[url("acme/x", "x", spec="^2")])
    forge.release("acme/b", "b", "1.0.0", skills=[url("acme/x", "x", spec="~1.4")])
    with pytest.raises(ResolutionError) as caught:
        resolve(forge, tmp_path / "p", [url("acme/a", "a"), url("acme/b", "b")])
    [diagnostic] = caught.value.diagnostics
    assert diagnostic.rule == "constraint"
    message = diagnostic.message
    assert "skill acme/x" in message
    assert "skill acme/a 2.1.0 wants ^2 (from https://github.com/acme/x/" in message
    assert "skill acme/b 1.0.0 wants ~1.4 (from" in message
    assert "newest tags: 2.1.0, 1.4.3" in message


def test_no_tag_in_range_is_a_clear_error(forge: FakeForge, tmp_path: Path) -> None:
    forge.release("acme/x", "x", "1.0.0")
    with pytest.raises(ResolutionError) as caught:
        resolve(forge, tmp_path / "p", [url("acme/x", "x", spec="^3")])
    [diagnostic] = caught.value.diagnostics
    assert diagnostic.rule == "constraint" and "newest tags: 1.0.0" in diagnostic.message


def test_a_lock_keeps_its_pins_until_update_moves_them(forge: FakeForge, tmp_path: Path) -> None:
    project = tmp_path / "p"
    forge.release("acme/x", "x", "1.2.0")
    forge.release("acme/y", "y", "1.0.0")
    wanted = [url("acme/x", "x", spec="^1"), url("acme/y", "y", spec="^1")]
    first = resolve(forge, project, wanted)
    keep(project, first)
    forge.release("acme/x", "x", "1.3.0")
    forge.release("acme/y", "y", "1.1.0")
    forge.listings.clear()
    again = resolve(forge, project, wanted)
    assert again.lock_text == first.lock_text  # nothing moved ...
    assert forge.listings == {}  # ... and no tag list was even asked for
    only_x = resolve(forge, project, wanted, fresh=frozenset({"acme/x"}))
    assert locked(only_x) == {"acme/x": "1.3.0", "acme/y": "1.0.0"}
    everything = resolve(forge, project, wanted, fresh=frozenset())
    assert locked(everything) == {"acme/x": "1.3.0", "acme/y": "1.1.0"}


def test_a_narrower_range_moves_the_pin_only_as_far_as_needed(
    forge: FakeForge, tmp_path: Path
) -> None:
    project = tmp_path / "p"
    for version in ("1.2.0", "1.3.0", "2.0.0"):
        forge.release("acme/x", "x", version)
    keep(project, resolve(forge, project, [url("acme/x", "x", spec="^1")]))
    moved = resolve(forge, project, [url("acme/x", "x", spec="^2")])
    assert locked(moved) == {"acme/x": "2.0.0"}


# -- property: any lock satisfies every range, and is byte-stable ------------------------------

VERSIONS = ["1.0.0", "1.1.0", "1.2.0", "2.0.0", "2.1.0"]
RANGES = ["^1", "^2", "~1.1", ">=1.1.0", "*", "1.x || 2.0.x"]


@st.composite
def catalogs(
    draw: st.DrawFn,
) -> tuple[dict[str, dict[str, list[tuple[str, str]]]], list[tuple[str, str]]]:
    """Packages p0..pN, each released at some versions; each release depends on some
    later packages with ranges (acyclic: only on higher numbers)."""
    count = draw(st.integers(2, 5))
    releases: dict[str, dict[str, list[tuple[str, str]]]] = {}
    for index in range(count):
        name = f"p{index}"
        versions = draw(st.lists(st.sampled_from(VERSIONS), min_size=1, max_size=3, unique=True))
        releases[name] = {}
        for version in versions:
            later = [f"p{j}" for j in range(index + 1, count)]
            deps = draw(st.lists(st.sampled_from(later), max_size=2, unique=True)) if later else []
            releases[name][version] = [(dep, draw(st.sampled_from(RANGES))) for dep in deps]
    roots = [("p0", draw(st.sampled_from(RANGES)))]
    return releases, roots


@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(catalogs())
def test_any_lock_satisfies_every_range_and_is_byte_stable(
    tmp_path_factory: pytest.TempPathFactory,
    catalog: tuple[dict[str, dict[str, list[tuple[str, str]]]], list[tuple[str, str]]],
) -> None:
    releases, roots = catalog
    root = tmp_path_factory.mktemp("graph")
    forge = FakeForge(root / "forge")
    for name, versions in releases.items():
        for version, deps in sorted(versions.items()):
            skills = [url(f"acme/{d}", d, spec=r) for d, r in deps]
            forge.release(f"acme/{name}", name, version, skills=skills)
    project = root / "project"
    wanted = [url(f"acme/{name}", name, spec=spec) for name, spec in roots]
    try:
        resolution = resolve(forge, project, wanted)
    except ResolutionError as exc:
        assert {d.rule for d in exc.diagnostics} <= {"constraint", "conflict", "missing"}
        return
    versions = locked(resolution)
    for package in resolution.lock.packages:
        name = package.fqn.split("/")[1]
        for dep, spec in releases[name][package.version or ""]:
            assert Range.parse(spec).contains(versions[f"acme/{dep}"] or ""), (package, dep)
    for name, spec in roots:
        assert Range.parse(spec).contains(versions[f"acme/{name}"] or "")
    keep(project, resolution)
    assert resolve(forge, project, wanted).lock_text == resolution.lock_text


class _HeldForge(FakeForge):
    """A forge whose repository ``acme/held`` answers no fetch until ``release`` is set."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.release = threading.Event()

    @property
    def registry(self) -> Mapping[str, SourceFactory]:
        forge = self

        class Held(FakeSource):
            def fetch(self, origin: Origin) -> Fetched:
                if "acme/held" in str(origin):
                    forge.release.wait(timeout=10)
                return super().fetch(origin)

        return {**REGISTRY, "github": lambda options: Held(forge, options)}


def _discovery(forge: FakeForge) -> Discovery:
    sources = Sources(FetchOptions(workers=1), forge.registry)
    return Discovery(sources, Candidates(sources), workers=1)


def test_a_lock_s_packages_load_as_their_download_lands_not_behind_another_download(
    tmp_path: Path,
) -> None:
    # warm() loads a lock's packages ahead of need: each download's first on the pool, the
    # others by one loader thread once that first is in. Loaded in the lock's order (or
    # with the loader queued behind the first packages), acme/free's second package would
    # wait for acme/held's download, which is still out.
    forge = _HeldForge(tmp_path / "forge")
    forge.commit("acme/held", {"skills": {"a0": {}, "a1": {}}})
    forge.commit("acme/free", {"skills": {"b0": {}, "b1": {}}})
    discovery = _discovery(forge)
    held = ("acme/held", forge.repos["acme/held"].refs["main"])
    free = ("acme/free", forge.repos["acme/free"].refs["main"])
    try:
        lock_order = [("acme/held", "a0"), ("acme/held", "a1"), ("acme/free", "b0")]
        lock_order.append(("acme/free", "b1"))
        discovery.warm(parse_origin(url(repo, name)) for repo, name in lock_order)
        free_loaded = _fetched_within(forge, free, 2)
        held_loaded = forge.fetches[held]
        forge.release.set()
        assert (free_loaded, held_loaded) == (2, 0)  # both of acme/free's, while held is out
        assert _fetched_within(forge, held, 2) == 2  # then acme/held's, once it is in
    finally:
        forge.release.set()
        discovery.close()


def _fetched_within(forge: FakeForge, key: tuple[str, str], count: int) -> int:
    """How often ``key`` was fetched, once that reaches ``count`` or 5 seconds pass."""
    deadline = time.monotonic() + 5
    while forge.fetches[key] < count and time.monotonic() < deadline:
        time.sleep(0.01)
    return forge.fetches[key]


def test_closing_a_discovery_wakes_a_loader_waiting_for_packages_that_never_come(
    forge: FakeForge,
) -> None:
    # warm() cut short between its submits (Ctrl-C) leaves its loader waiting for more
    # downloads' packages than were ever handed on; close() waits for the pool's threads,
    # so it must wake the loader, or the install would hang instead of ending.
    discovery = _discovery(forge)
    discovery._executor().submit(discovery._load_as_ready, 2)
    closing = threading.Thread(target=discovery.close, daemon=True)
    closing.start()
    closing.join(timeout=10)
    assert not closing.is_alive(), "close() waited for ever"
