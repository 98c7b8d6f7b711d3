"""Alerts read from the text a package now holds: what an agent would newly do or run.

Only lines a change adds are read (a whole new package is all added lines), so a review
is not re-alerted by what was already reviewed. Each alert names the file and the line
that raised it; the patterns look for the shapes that matter to a reviewer (fetch-and-run
pipelines, new hosts, wider tool grants, executables, hidden characters), not for every
possible obfuscation: they make risky changes loud, they do not prove a change safe.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from metapkg.diff.content import URL, Content, FileDelta, is_hook, is_script

Raised = tuple[str, str, str | None, int | None]  # alert id, message, path, line

# `curl … | sh`, `wget -O- … | sudo bash`, `iwr … | iex`, `… | Invoke-Expression`,
# `base64 -d … | sh`, `eval "$(curl …)"`, `bash <(curl …)`, `sh -c "$(wget …)"`.
_SHELLS = r"(?:sudo\s+)?(?:ba|z|da|k|fi)?sh\b"
# Every FETCH_AND_RUN match holds one of these words (case-insensitively): a text without
# any is passed over in C, without a regex search per line.
FETCH_WORDS = re.compile(r"curl|wget|fetch|iwr|irm|invoke-|base64|iex")
FETCH_AND_RUN = re.compile(
    r"(?:\b(?:curl|wget|fetch)\b[^|\n]*\|\s*" + _SHELLS + r")"
    r"|(?:\b(?:iwr|irm|Invoke-WebRequest|Invoke-RestMethod)\b[^|\n]*\|\s*(?:iex|Invoke-Expression)\b)"
    r"|(?:\b(?:base64\s+(?:-d|--decode|-D)|openssl\s+base64\s+-d)\b[^|\n]*\|\s*" + _SHELLS + r")"
    r"|(?:\b(?:eval|source|\.)\s+\"?\$\((?:curl|wget)\b)"
    r"|(?:\b(?:ba|z)?sh\s+(?:-c\s+\"?\$\(|<\()\s*(?:curl|wget)\b)"
    r"|(?:\bInvoke-Expression\b|\biex\s*\()",
    re.IGNORECASE,
)


def scan(content: Content, label: str, added: bool = False) -> Iterator[Raised]:
    """(alert id, message, path, line) for every risky addition in ``content``. ``added``:
    no ``new-url`` (a new package, whose hosts are all new and whose whole text is shown,
    or an MCP server, whose URLs are not instructions)."""
    yield from _field_alerts(content, label)
    old_hosts = content.old_hosts
    reported_hosts: set[str] = set()
    for delta in content.files:
        if delta.new is None:
            continue
        yield from _executable(delta, label)
        for number, line in delta.added_lines():
            if FETCH_AND_RUN.search(line):
                shown = line.strip()[:200]
                yield (
                    "fetch-and-run",
                    f"{label} {delta.path}:{number} downloads and runs code: {shown}",
                    delta.path,
                    number,
                )
            for host in [] if added else URL.findall(line):
                host = host.lower().rstrip(".")
                if host not in old_hosts and host not in reported_hosts:
                    reported_hosts.add(host)
                    yield (
                        "new-url",
                        f"{label} {delta.path}:{number} now points the agent at {host}",
                        delta.path,
                        number,
                    )
        yield from _hidden(delta, label)


def _field_alerts(content: Content, label: str) -> Iterator[Raised]:
    for change in content.fields:
        if change.field != "allowed-tools" or change.new is None:
            continue
        before = {t.strip() for t in (change.old or "").replace(",", " ").split() if t.strip()}
        added = [t for t in change.new.replace(",", " ").split() if t.strip() and t not in before]
        if added:
            yield (
                "allowed-tools-widened",
                f"{label} now grants the agent tools: {', '.join(added)}",
                None,
                None,
            )


def _executable(delta: FileDelta, label: str) -> Iterator[Raised]:
    new = delta.new
    assert new is not None
    if not (is_script(delta.path, new) or is_hook(delta.path)):
        return
    what = {"added": "new", "changed": "changed", "mode": "newly executable"}[delta.status]
    if delta.status == "mode" and not new.executable:
        return
    flags = ", ".join(
        word for word, on in (("executable", new.executable), ("shebang", new.shebang)) if on
    )
    extra = f" ({flags})" if flags else ""
    yield ("executable", f"{label}: {what} script {delta.path}{extra}", delta.path, None)


def _hidden(delta: FileDelta, label: str) -> Iterator[Raised]:
    from metapkg.packages.rules import unicode

    added = delta.added_lines()
    if not added or all(line.isascii() for _, line in added):
        return
    for number, line in added:
        for finding in unicode.check(line, delta.path):
            yield (
                "hidden-unicode",
                f"{label} {delta.path}:{number}: {finding.message.split(';')[0]}",
                delta.path,
                number,
            )
