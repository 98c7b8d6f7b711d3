"""One folder of a big repository at a commit, through git's partial clone.

A 52 KB skill inside a 1.7 GB repository costs the whole repository as an archive. git
can instead fetch the commit and its trees without any file content (``--filter=
blob:none``, protocol v2, depth 1), list the package's folder from those trees, and then
fetch exactly the blobs of that folder in one more request. That is what
:func:`fetch_subtree` does, with the ``git`` binary when it is there (2.29 or newer):

    git init --bare; git remote add origin <web>/<owner>/<repo>.git
    git fetch --depth=1 --filter=blob:none origin <commit>        commit + trees
    git ls-tree -r -z <commit> -- <path>                          the folder's entries
    git fetch --filter=blob:none --stdin origin  <- blob ids       the folder's files
    git cat-file --batch  <- blob ids                             read, checked, written

The files are written by this module, not by a git checkout, with the same rules as
archive extraction (``archive.py``): a symbolic link, an entry that is not a file, a
path with ``..`` or an empty component, or sizes over the caps are refused and nothing is
kept; nothing is written through a link; files are sealed like extracted ones. The
result is the same record ``archive.extract`` returns (repository-relative path ->
size, exec bit, SHA-256), so the cache checks both the same way. Submodules (gitlinks)
are skipped: an archive has only an empty folder for them.

A token reaches git only through the environment of the git process
(``GIT_CONFIG_COUNT``/``GIT_CONFIG_KEY_n``: ``http.<web origin>/.extraHeader``), so it
is never on a command line or in a config file on disk, and only for the web host.
The user's credential helpers are switched off and git never prompts.

When to use it (:func:`is_large`): codeload sends archives chunked, without a
Content-Length, and a size the REST API reports would cost a REST request. So the signal
is the archive itself: its Content-Length when there is one, else the bytes received so
far, past ``LARGE_ARCHIVE_BYTES``: the caller stops that download and fetches the
package's folder instead (and may remember the repository as large).
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO

from metapkg.diagnostics import FetchError, error
from metapkg.fetch.archive import MAX_ENTRIES, MAX_ENTRY_BYTES, MAX_TOTAL_BYTES, ArchiveError
from metapkg.integrity import SEALED_MTIME_NS

# An archive past this is a big repository: fetch the package's folder instead. Typical
# catalogs are well under 1 MB; the repositories this is for are hundreds of MB.
LARGE_ARCHIVE_BYTES = 32 * 1024 * 1024
MIN_GIT_VERSION = (2, 29)  # `git fetch --stdin`, `--no-write-fetch-head`
GIT_TIMEOUT = 600.0

Record = dict[str, tuple[int, bool, str]]
_SHA = re.compile(r"[0-9a-f]{40}")
_VERSION = re.compile(r"git version (\d+)\.(\d+)")
# `git rev-parse --local-env-vars`: they would redirect our commands to another repository.
_LOCAL_ENV = frozenset(
    {
        "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_CONFIG", "GIT_CONFIG_PARAMETERS",
        "GIT_CONFIG_COUNT", "GIT_OBJECT_DIRECTORY", "GIT_DIR", "GIT_WORK_TREE",
        "GIT_IMPLICIT_WORK_TREE", "GIT_GRAFT_FILE", "GIT_INDEX_FILE", "GIT_NO_REPLACE_OBJECTS",
        "GIT_REPLACE_REF_BASE", "GIT_PREFIX", "GIT_SHALLOW_FILE", "GIT_COMMON_DIR",
    }
)  # fmt: skip


class SparseError(FetchError):
    """The folder could not be fetched with git (the caller may use the archive)."""


def is_large(
    content_length: int | None, received: int, threshold: int = LARGE_ARCHIVE_BYTES
) -> bool:
    """Whether an archive download shows a repository too big to download whole: its
    announced length, or what has arrived so far, is past ``threshold`` bytes."""
    return (content_length is not None and content_length > threshold) or received > threshold


@functools.cache
def find_git() -> str | None:
    """The ``git`` executable, if there is one new enough (asked once per process)."""
    git = shutil.which("git")
    if git is None:
        return None
    try:
        done = subprocess.run([git, "--version"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    found = _VERSION.search(done.stdout)
    if found is None or (int(found[1]), int(found[2])) < MIN_GIT_VERSION:
        return None
    return git


@dataclass(frozen=True)
class TreeEntry:
    """One line of `git ls-tree -r`: mode, object id, repository-relative path."""

    mode: str
    oid: str
    path: str


def fetch_subtree(
    clone_url: str,
    commit: str,
    path: str,
    destination: Path,
    source: str,
    authorization: str | None = None,
    ssh: bool = False,
) -> Record:
    """Write the files under ``path`` (a folder or one file; "" for all) of the repository
    at ``clone_url`` at ``commit`` into ``destination`` (an empty folder), at their
    repository-relative paths; return their record. ``authorization`` is an HTTP
    Authorization header value for the web host (``webhost.basic_authorization``).
    Raises :class:`SparseError` when git is missing or fails, and ``archive.ArchiveError``
    for an unsafe entry; in both cases ``destination`` may hold partial output for the
    caller to throw away, as with an archive."""
    git = find_git()
    if git is None:
        raise SparseError([error("fetch", source, "git 2.29 or newer is not installed")])
    if not _SHA.fullmatch(commit):
        raise SparseError([error("fetch", source, f"not a full commit SHA: {commit!r}")])
    with tempfile.TemporaryDirectory(prefix="metapkg-git-") as scratch:
        run = _Git(
            git,
            Path(scratch) / "repo.git",
            git_environment(clone_url, authorization, ssh),
            source,
        )
        run("init", "--bare", "--quiet", str(run.git_dir), bare=True)
        run("remote", "add", "origin", clone_url)
        run("fetch", "--quiet", "--no-tags", "--depth=1", "--filter=blob:none", "origin", commit)
        pathspec = ["--", path] if path else []
        entries = list(_entries(run("ls-tree", "-r", "-z", commit, *pathspec), path))
        check_entries(entries, source)
        files = [entry for entry in entries if entry.mode != "160000"]
        wanted = sorted({entry.oid for entry in files})
        if wanted:
            run(
                "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--filter=blob:none",
                "--recurse-submodules=no", "--stdin", "origin",
                stdin="".join(f"{oid}\n" for oid in wanted),
            )  # fmt: skip
        return _write_all(run, files, destination, source)


def git_environment(clone_url: str, authorization: str | None, ssh: bool = False) -> dict[str, str]:
    """git's environment: never prompt, no credential helper, http(s) only, the user's own
    config files otherwise (proxies, CA bundles); the Authorization header, if any, scoped
    to the web host through GIT_CONFIG_*. Variables that point git at another repository (set when
    metapkg runs inside a git hook, say) are dropped."""
    env = {name: value for name, value in os.environ.items() if name not in _LOCAL_ENV}
    env.update(
        {
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_ASKPASS": "",
            "SSH_ASKPASS": "",
            "GCM_INTERACTIVE": "never",
            "GIT_LITERAL_PATHSPECS": "1",
            "LC_ALL": "C",
        }
    )
    config = [
        ("credential.helper", ""),
        ("protocol.version", "2"),
        # http(s) only: not ssh (a user's `insteadOf` may rewrite github.com to it, where
        # keys could prompt), file or ext; git fails, and the caller uses the archive.
        ("protocol.allow", "never"),
        ("protocol.https.allow", "always"),
        ("protocol.http.allow", "always"),
    ]
    if ssh:  # an ssh origin (git+ssh://, git@host:): the user's keys and agent, no prompt
        config.append(("protocol.ssh.allow", "always"))
        if "GIT_SSH_COMMAND" not in env and "GIT_SSH" not in env:
            env["GIT_SSH_COMMAND"] = "ssh -o BatchMode=yes"
    if authorization is not None:
        config.append(
            (f"http.{_origin(clone_url)}/.extraHeader", f"Authorization: {authorization}")
        )
    for index, (key, value) in enumerate(config):
        env[f"GIT_CONFIG_KEY_{index}"] = key
        env[f"GIT_CONFIG_VALUE_{index}"] = value
    env["GIT_CONFIG_COUNT"] = str(len(config))
    return env


def _origin(url: str) -> str:
    scheme, _, rest = url.partition("://")
    return f"{scheme}://{rest.split('/', 1)[0]}"


class _Git:
    """Runs git commands on one scratch repository; a failure is a SparseError carrying
    git's last words (which hold URLs, never the token: that is only in a header)."""

    def __init__(self, git: str, git_dir: Path, env: Mapping[str, str], source: str) -> None:
        self.git = git
        self.git_dir = git_dir
        self.env = dict(env)
        self.source = source

    def command(self, *args: str, bare: bool = False) -> list[str]:
        return [self.git, *args] if bare else [self.git, f"--git-dir={self.git_dir}", *args]

    def __call__(self, *args: str, bare: bool = False, stdin: str = "") -> bytes:
        try:
            done = subprocess.run(
                self.command(*args, bare=bare),
                input=stdin.encode(),
                capture_output=True,
                env=self.env,
                timeout=GIT_TIMEOUT,
            )
        except subprocess.TimeoutExpired:
            raise self.failure(args[0], f"no answer within {int(GIT_TIMEOUT)} s") from None
        except OSError as exc:
            raise self.failure(args[0], str(exc)) from None
        if done.returncode != 0:
            lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
            why = lines[-1] if lines else f"exit code {done.returncode}"
            if "could not read Username" in why or "Authentication failed" in why:
                why = (
                    "the web host asked for credentials (a private repository without a "
                    "token or with a wrong one, or no such repository)"
                )
            raise self.failure(args[0], why)
        return done.stdout

    def failure(self, step: str, why: str) -> SparseError:
        return SparseError([error("fetch", self.source, f"git {step} failed: {why}")])


def _entries(output: bytes, path: str) -> Iterator[TreeEntry]:
    """``ls-tree -r -z`` lines: ``<mode> SP <type> SP <oid> TAB <path> NUL``."""
    for line in output.split(b"\0"):
        if not line:
            continue
        meta, _, name = line.partition(b"\t")
        mode, _, rest = meta.decode("ascii", "replace").partition(" ")
        oid = rest.partition(" ")[2]
        text = name.decode("utf-8", "surrogateescape")
        # A pathspec matches whole components, but make sure: nothing outside `path`.
        if not path or text == path or text.startswith(path.rstrip("/") + "/"):
            yield TreeEntry(mode, oid, text)


def check_entries(entries: list[TreeEntry], source: str) -> None:
    """Refuse what archive extraction refuses, before anything is fetched or written."""

    def reject(entry: TreeEntry, why: str) -> ArchiveError:
        message = f"unsafe repository entry {entry.path!r}: {why}; nothing was installed"
        return ArchiveError([error("archive", source, message)])

    if len(entries) > MAX_ENTRIES:
        raise reject(entries[MAX_ENTRIES], f"more than {MAX_ENTRIES} entries")
    seen: set[str] = set()
    for entry in entries:
        if entry.path in seen:
            raise reject(entry, "the same path twice")
        seen.add(entry.path)
        parts = entry.path.replace("\\", "/").split("/")
        if entry.path.startswith(("/", "\\")) or any(p in ("", ".", "..") for p in parts):
            raise reject(entry, "not a plain relative path")
        if entry.mode == "120000":
            raise reject(entry, "symbolic link")
        if entry.mode not in ("100644", "100755", "160000") or not _SHA.fullmatch(entry.oid):
            raise reject(entry, f"not a regular file (mode {entry.mode})")


def _write_all(run: _Git, files: list[TreeEntry], destination: Path, source: str) -> Record:
    """Read every blob with one ``cat-file --batch`` and write it out, checked."""
    record: Record = {}
    total = 0
    process = subprocess.Popen(
        run.command("cat-file", "--batch"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=run.env,
    )
    assert process.stdin is not None and process.stdout is not None
    # Fed from a thread: git answers as it reads, and both pipes would fill up otherwise.
    feeder = threading.Thread(target=_feed, args=(process.stdin, files), daemon=True)
    feeder.start()
    try:
        for entry in files:
            size = _blob_header(process.stdout, entry, run)
            total += size
            if size > MAX_ENTRY_BYTES or total > MAX_TOTAL_BYTES:
                why = f"{size} bytes is over the cap" if size > MAX_ENTRY_BYTES else "too big"
                message = f"unsafe repository entry {entry.path!r}: {why}; nothing was installed"
                raise ArchiveError([error("archive", source, message)])
            record[entry.path] = _write_file(process.stdout, size, entry, destination, source)
    finally:
        process.kill()
        process.wait()
        feeder.join()
    return record


def _feed(stdin: IO[bytes], files: list[TreeEntry]) -> None:
    try:
        for entry in files:
            stdin.write(f"{entry.oid}\n".encode())
        stdin.close()
    except OSError:  # git was stopped early (a rejected entry)
        pass


def _blob_header(stdout: IO[bytes], entry: TreeEntry, run: _Git) -> int:
    header = stdout.readline().decode("ascii", "replace").split()
    if len(header) != 3 or header[0] != entry.oid or header[1] != "blob" or not header[2].isdigit():
        raise run.failure("cat-file", f"no blob {entry.oid} for {entry.path!r}")
    return int(header[2])


def _write_file(
    stdout: IO[bytes], size: int, entry: TreeEntry, destination: Path, source: str
) -> tuple[int, bool, str]:
    target = destination.joinpath(*PurePosixPath(entry.path).parts)
    digest = hashlib.sha256()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(target, "xb") as out:  # exclusive: never through an existing link
            left = size
            while left:
                chunk = stdout.read(min(left, 1 << 20))
                if not chunk:
                    raise SparseError([error("fetch", source, "git cat-file stopped early")])
                digest.update(chunk)
                out.write(chunk)
                left -= len(chunk)
    except (FileExistsError, NotADirectoryError, IsADirectoryError):
        message = f"unsafe repository entry {entry.path!r}: a file and a folder at one path"
        raise ArchiveError([error("archive", source, message)]) from None
    stdout.read(1)  # the newline after each object
    # Sealed like an extracted file (archive.py): read-only, fixed mtime.
    executable = entry.mode == "100755"
    os.chmod(target, 0o555 if executable else 0o444)
    os.utime(target, ns=(SEALED_MTIME_NS, SEALED_MTIME_NS))
    return size, executable, digest.hexdigest()
