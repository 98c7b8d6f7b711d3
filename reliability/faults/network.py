"""Network faults from the loopback fake GitHub, one case per fault.

Each case gets its own server (same catalog, so the same SHAs) that requires the token
the CLI is given, injects one fault, and runs ``install`` towards state B (a ref lookup
and an archive download). Whatever the fault:

* ``ok`` cases (a fault the client must ride out: a few 5xx, a short rate limit, one cut
  or slow download) end in a successful install that ``verify`` accepts;
* ``fail`` cases end in a clear error (exit 1, ``error[...]``, no traceback) with the
  project exactly as it was;
* no URL is asked more than ``METAPKG_HTTP_ATTEMPTS`` times;
* the token never appears in the output, in any file of the project, cache or config,
  or in any request to the download host (there not even an ``Authorization`` header);
* once the fault is gone, ``install`` and ``verify`` succeed and reach state B.
"""

from __future__ import annotations

import contextlib
import socket
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from fixture_server import FixtureGitHub
from reliability.faults import checks, cli, kills, state, world
from reliability.faults.lab import Lab, Outcome

ATTEMPTS = 3  # METAPKG_HTTP_ATTEMPTS in world.environment
ARCHIVE = r"legacy\.tar\.gz"
LOOKUP = r"/commits/v2"
TARBALL = r"/tarball/"
RATE_LIMITED = b'{"message": "API rate limit exceeded for 127.0.0.1."}'

Fault = Callable[[FixtureGitHub, str], None]  # (server, a URL nothing listens on)


@dataclass(frozen=True)
class Case:
    name: str
    group: str
    fault: Fault
    expect: Literal["ok", "fail", "either"]
    env: dict[str, str] = field(default_factory=dict)
    token: str = world.TOKEN  # what GITHUB_TOKEN holds
    secret: str = world.TOKEN  # what must never be seen
    max_asks: int = ATTEMPTS  # requests of one URL (a redirect loop is one attempt)


def _fail(pattern: str, status: int, times: int = 99, **headers: str) -> Fault:
    def fault(server: FixtureGitHub, dead: str) -> None:
        fixed = {k.replace("_", "-"): v.replace("{dead}", dead) for k, v in headers.items()}
        body = RATE_LIMITED if status in (403, 429) else b""
        server.fail(pattern, status, times=times, headers=fixed, body=body)

    return fault


def _rate_limit(kind: Literal["403", "429"], reset_after: float, times: int = 1) -> Fault:
    return lambda server, dead: server.rate_limit(LOOKUP, times, kind, reset_after)


def _truncate(times: int) -> Fault:
    return lambda server, dead: server.truncate_archive(ARCHIVE, times)


def _slow(times: int) -> Fault:
    return lambda server, dead: server.slow_body(ARCHIVE, seconds=1.6, times=times, chunks=2)


def _require(token: str) -> Fault:
    return lambda server, dead: server.require_token(token)


def _nothing(server: FixtureGitHub, dead: str) -> None:
    pass


_FAST_TIMEOUT = {"METAPKG_HTTP_TIMEOUT": "0.4"}

CASES = (
    Case("lookup 502 twice", "network: 5xx", _fail(LOOKUP, 502, times=2), "ok"),
    Case("archive 503 once", "network: 5xx", _fail(ARCHIVE, 503, times=1), "ok"),
    Case("lookup 500 always", "network: 5xx", _fail(LOOKUP, 500), "fail"),
    Case("archive 503 always", "network: 5xx", _fail(ARCHIVE, 503), "fail"),
    Case("403 reset in 1s", "network: rate limits", _rate_limit("403", 1), "ok"),
    Case("429 retry after 1s", "network: rate limits", _rate_limit("429", 1), "ok"),
    Case("403 reset in an hour", "network: rate limits", _rate_limit("403", 3600, 99), "fail"),
    Case(
        "403 reset 10^40", "network: rate limits",
        _fail(LOOKUP, 403, X_RateLimit_Remaining="0", X_RateLimit_Reset="1" + "0" * 40),
        "fail",
    ),
    Case("429 retry after nan", "network: rate limits", _fail(LOOKUP, 429, Retry_After="nan"),
         "either"),
    Case("archive cut once", "network: truncated archive", _truncate(1), "either"),
    Case("archive cut always", "network: truncated archive", _truncate(99), "fail"),
    Case("archive slow once", "network: slow archive", _slow(1), "ok", _FAST_TIMEOUT),
    Case("archive slow always", "network: slow archive", _slow(99), "fail", _FAST_TIMEOUT),
    Case(
        "archive host refuses", "network: connection refused",
        _fail(TARBALL, 302, Location="{dead}/acme/catalog/legacy.tar.gz/x"), "fail",
    ),
    Case(
        "lookup moved to a dead host", "network: connection refused",
        _fail(LOOKUP, 301, Location="{dead}/repos/acme/catalog/commits/v2"), "fail",
    ),
    Case(
        "API refuses", "network: connection refused", _nothing, "fail",
        {"METAPKG_GITHUB_API_URL": "{dead}"},
    ),
    Case(
        "archive redirect loop", "network: connection refused",
        _fail(ARCHIVE, 302, Location="/acme/catalog/legacy.tar.gz/loop"), "fail",
        max_asks=ATTEMPTS * 20,  # httpx follows 20 redirects per attempt
    ),
    Case("wrong token", "network: token", _require("ghp_someoneElse"), "fail"),
    Case(
        "token with a newline", "network: token", _nothing, "fail",
        token=world.TOKEN + "\nsecond-line-secret", secret="second-line-secret",
    ),
    Case("non-ASCII token", "network: token", _nothing, "fail", token="ghp_tökén-secret",
         secret="tökén-secret"),
)  # fmt: skip

GROUPS = tuple(dict.fromkeys(case.group for case in CASES))


def cases(group: str) -> list[Case]:
    return [case for case in CASES if case.group == group]


def named(name: str) -> Case:
    return next(case for case in CASES if case.name == name)


@contextlib.contextmanager
def dead_url() -> Iterator[str]:
    """A loopback URL nothing listens on: its port stays bound (so no other server gets
    it) but never listens, so every connection is refused."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        yield f"http://127.0.0.1:{holder.getsockname()[1]}"


def trial(lab: Lab, case: Case, recover: bool = True) -> Outcome:
    outcome = Outcome()
    new = kills.reference(lab, kills.OPERATIONS[0]).states["new"]
    sandbox = lab.clone(lab.installed(), "network")
    project = sandbox / "project"
    server = world.serve(lab.commits, main="c2")
    with contextlib.ExitStack() as stack:
        stack.callback(server.stop)
        dead = stack.enter_context(dead_url())
        server.require_token(world.TOKEN)
        kills.OPERATIONS[0].prepare(project)
        case.fault(server, dead)
        env = world.environment(server, sandbox, token=case.token)
        env.update({k: v.replace("{dead}", dead) for k, v in case.env.items()})
        runs = _install(case, project, env, outcome)
        _check_attempts(server, case, outcome)
        _check_token(case, runs, sandbox, server, outcome)
    if recover:
        checks.recovers(lab, sandbox, new, case.name, outcome)
    return outcome


def _install(case: Case, project: Path, env: dict[str, str], outcome: Outcome) -> list[cli.Result]:
    """Run ``install`` (and ``verify`` after a success) and judge it; returns the runs."""
    before, old = world.user_data(project), state.snapshot(project)
    result = cli.metapkg(["install"], project, env)
    if result.code == 0 and case.expect != "fail":
        outcome.saw(result, case.name)
        verified = outcome.saw(cli.metapkg(["verify"], project, env), f"verify ({case.name})")
        if verified.code != 0:
            outcome.fail(f"{case.name}: verify failed after a successful install")
        if world.user_data(project) != before:
            outcome.lost = True
            outcome.fail(f"{case.name}: the user's own things changed")
        return [result, verified]
    if case.expect == "ok":
        outcome.saw(result, case.name)
        outcome.fail(f"{case.name}: the client should have ridden this out\n{result.show()}")
    else:
        checks.clear_failure(result, case.name, outcome)
        checks.unchanged(project, old, before, case.name, outcome)
    return [result]


def _check_attempts(server: FixtureGitHub, case: Case, outcome: Outcome) -> None:
    asked = Counter(record.path for record in server.requests)
    over = {path: n for path, n in asked.items() if n > case.max_asks}
    if over:
        outcome.fail(f"{case.name}: asked more than {case.max_asks} times: {over}")


def _check_token(
    case: Case, runs: list[cli.Result], sandbox: Path, server: FixtureGitHub, outcome: Outcome
) -> None:
    secrets = {case.secret, world.TOKEN} if case.token == world.TOKEN else {case.secret}
    for run in runs:
        if any(s in run.out + run.err for s in secrets):
            outcome.fail(f"{case.name}: the token is printed\n{run.show()}")
    encoded = [s.encode() for s in secrets]
    for path in sorted(sandbox.rglob("*")):
        if path.is_file() and not path.is_symlink():
            try:
                data = path.read_bytes()
            except OSError:
                continue
            if any(s in data for s in encoded):
                outcome.fail(f"{case.name}: the token is written to {path.relative_to(sandbox)}")
    for record in server.requests:
        if record.host != "download":
            continue
        seen = record.path + "".join(f"{k}: {v}\n" for k, v in record.headers.items())
        if "authorization" in record.headers or any(s in seen for s in secrets):
            outcome.fail(f"{case.name}: the token went to the download host ({record.path})")
