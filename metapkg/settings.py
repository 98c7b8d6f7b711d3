"""Every environment variable metapkg reads, in one place (as uv keeps its one list).

Each accessor reads the environment when it is called (tests and ``-C`` change it between
calls), checks the value, and raises :class:`BadSetting` with a message that names the
variable and what it takes, instead of failing later with a traceback (``nan`` seconds,
``-1`` attempts). Standard library only: the up-to-date check reads ``shared_dir``.

| variable | meaning |
|---|---|
| METAPKG_GITHUB_API_URL | GitHub's REST API base (default https://api.github.com) |
| METAPKG_GITHUB_URL | GitHub's web base for git refs and archives (see github_web_url) |
| METAPKG_GITHUB_ARCHIVE_URL | the archive host (default: codeload for github.com; webhost.py) |
| GITHUB_TOKEN, GH_TOKEN | a GitHub token (else the OS keyring after `metapkg auth login`) |
| METAPKG_MCP_REGISTRY_URL | the MCP Registry of mcp: origins and `search` (default: official) |
| METAPKG_CACHE_DIR | the download cache (default: the platform's user cache dir) |
| METAPKG_SHARED_DIR | the value of ${sharedDir} (default: user data dir + /shared) |
| METAPKG_CONFIG_DIR | where `auth login` leaves its marker (default: user config dir) |
| METAPKG_GLOBAL_DIR | `--global`'s metapkg.yaml, lock and state (default: config dir + /global) |
| METAPKG_HOME | the home folder `--global` installs into; set, it also stands in for |
|  | XDG_CONFIG_HOME, CODEX_HOME and APPDATA (a sandbox: tests, previews) |
| HOME, XDG_CONFIG_HOME, CODEX_HOME, APPDATA | where hosts keep user-level files (--global) |
| METAPKG_OFFLINE | 1/true/yes/on: same as --offline |
| METAPKG_JOBS | parallel downloads (default 16) |
| METAPKG_HTTP_TIMEOUT | seconds per request (default 30) |
| METAPKG_HTTP_ATTEMPTS | attempts for timeouts and 5xx (default 4) |
| METAPKG_HTTP_BACKOFF | seconds before the 2nd attempt, doubling, with jitter (default 0.25) |
| METAPKG_RATE_LIMIT_WAIT | longest wait for a GitHub rate limit (default 60) |
| METAPKG_CACHE_LOCK_TIMEOUT | how long `cache clean` waits for running installs (default 30) |
| METAPKG_LARGE_REPO_BYTES | an archive past this fetches packages through git instead (32 MiB) |
| CI | set (not 0/false): plain progress lines even on a terminal |
| NO_COLOR, FORCE_COLOR | no colour / colour even when not a terminal (`--color` wins) |
| METAPKG_FAILPOINT | testing only: commit:N, commit-kill:N, enospc:N (see failpoint.py) |
"""

from __future__ import annotations

import math
import os
from pathlib import Path

DEFAULT_API = "https://api.github.com"
DEFAULT_WEB = "https://github.com"
DEFAULT_MCP_REGISTRY = "https://registry.modelcontextprotocol.io"
_TRUE = ("1", "true", "yes", "on")


class BadSetting(ValueError):
    """An environment variable holds a value metapkg cannot use; the message says which."""


def _text(name: str) -> str:
    return os.environ.get(name, "").strip()


def _number(name: str, default: float, low: float, high: float, integer: bool = False) -> float:
    raw = _text(name)
    if not raw:
        return default
    try:
        value = float(int(raw)) if integer else float(raw)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and low <= value <= high):
        kind = "a whole number" if integer else "a number"
        raise BadSetting(f"{name}={raw!r} is not {kind} from {_shown(low)} to {_shown(high)}")
    return value


def _shown(bound: float) -> str:
    return f"{bound:g}" if bound < 1e6 else f"{int(bound):,}"


def github_api_url() -> str:
    return (_text("METAPKG_GITHUB_API_URL") or DEFAULT_API).rstrip("/")


def github_web_url() -> str | None:
    """The web host for git's ref advertisement and archives, or None for REST only: an
    API URL pointed elsewhere (GitHub Enterprise, a test server) with no web URL set."""
    configured = _text("METAPKG_GITHUB_URL")
    if configured:
        return configured.rstrip("/")
    return DEFAULT_WEB if github_api_url() == DEFAULT_API else None


def github_archive_url() -> str | None:
    """Where archives by commit come from, when set (tests, mirrors); None: codeload for
    github.com, the web host's archive links otherwise (``fetch/webhost.py``)."""
    configured = _text("METAPKG_GITHUB_ARCHIVE_URL")
    return configured.rstrip("/") if configured else None


def mcp_registry_url() -> str:
    return (_text("METAPKG_MCP_REGISTRY_URL") or DEFAULT_MCP_REGISTRY).rstrip("/")


def cache_dir() -> Path:
    configured = _text("METAPKG_CACHE_DIR")
    if configured:
        return Path(configured).absolute()
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("metapkg", appauthor=False))


def shared_dir() -> str:
    """``${sharedDir}``: absolute, forward slashes."""
    configured = _text("METAPKG_SHARED_DIR")
    if configured:
        return Path(configured).absolute().as_posix()
    from platformdirs import user_data_dir

    return Path(user_data_dir("metapkg", appauthor=False)).as_posix() + "/shared"


def config_dir() -> Path:
    configured = _text("METAPKG_CONFIG_DIR")
    if configured:
        return Path(configured)
    from platformdirs import user_config_dir

    return Path(user_config_dir("metapkg", appauthor=False))


def global_dir() -> Path:
    """Where ``--global`` keeps its metapkg.yaml, metapkg.lock and .metapkg/ state."""
    configured = _text("METAPKG_GLOBAL_DIR")
    return Path(configured).absolute() if configured else config_dir().absolute() / "global"


def user_home() -> tuple[Path, dict[str, str]]:
    """The home folder ``--global`` installs into, and the environment its host paths are
    resolved with (hosts/paths.resolve_user_path). METAPKG_HOME makes a sandbox: every
    user-level path then lies under it, whatever XDG_CONFIG_HOME or CODEX_HOME say."""
    configured = _text("METAPKG_HOME")
    if configured:
        return Path(configured).absolute(), {}
    names = ("XDG_CONFIG_HOME", "CODEX_HOME", "APPDATA")
    return Path.home(), {name: os.environ[name] for name in names if os.environ.get(name)}


def offline() -> bool:
    return _text("METAPKG_OFFLINE").lower() in _TRUE


def jobs_text() -> str:
    """METAPKG_JOBS as written (``--jobs`` parses and checks it)."""
    return _text("METAPKG_JOBS") or "16"


def http_timeout() -> float:
    return _number("METAPKG_HTTP_TIMEOUT", 30.0, 0.1, 3600.0)


def http_deadline() -> float:
    """Seconds one HTTP response may take in all, before 16 s per MiB received is added
    (fetch/deadline.py): a host trickling bytes is cut off, however short each wait."""
    return _number("METAPKG_HTTP_DEADLINE", 120.0, 0.1, 24 * 3600.0)


def http_attempts() -> int:
    return int(_number("METAPKG_HTTP_ATTEMPTS", 4, 1, 100, integer=True))


def http_backoff() -> float:
    return _number("METAPKG_HTTP_BACKOFF", 0.25, 0.0, 60.0)


def rate_limit_wait() -> float:
    return _number("METAPKG_RATE_LIMIT_WAIT", 60.0, 0.0, 24 * 3600.0)


def cache_lock_timeout() -> float:
    return _number("METAPKG_CACHE_LOCK_TIMEOUT", 30.0, 0.0, 3600.0)


def large_repo_bytes() -> int:
    """Past this size a repository's archive download stops, and each package's folder
    is fetched through git's partial clone (fetch/githubtrees.py)."""
    return int(_number("METAPKG_LARGE_REPO_BYTES", 32 * 1024 * 1024, 1024, 2**40, integer=True))


def check() -> None:
    """Read every numeric setting once, so a bad value stops a command before it starts
    (BadSetting) instead of deep inside a download or a worker thread."""
    http_timeout()
    http_attempts()
    http_backoff()
    rate_limit_wait()
    cache_lock_timeout()
    large_repo_bytes()


def ci() -> bool:
    """Running in CI (most CI services set CI=true): no live progress display."""
    return _text("CI").lower() not in ("", "0", "false", "no", "off")


def failpoint() -> str:
    return _text("METAPKG_FAILPOINT")
