"""What long work shows: a live display on a terminal, plain lines elsewhere, detail with -v."""

from __future__ import annotations

import io
from typing import Any

import pytest

from metapkg import events
from metapkg.cli import progress

WORK: list[events.Event] = [
    events.Resolving(1, 3),
    events.Request("GET", "http://127.0.0.1:1/acme/catalog.git/info/refs", 200, 0.05),
    events.Downloading("acme/catalog", "d9112191e043193cbe5ae71bf14225bc1c6019cd"),
    events.Received("http://127.0.0.1:1/acme/catalog/tar.gz/d911", 2048, 3072),
    events.Received("http://127.0.0.1:1/acme/catalog/tar.gz/d911", 1024, 3072),
    events.Extracting("acme/catalog", "d9112191e043193cbe5ae71bf14225bc1c6019cd"),
    events.CacheHit("tools-org/shared", "c2b72934b7320000000000000000000000000000"),
    events.CacheHit("tools-org/shared", "c2b72934b7320000000000000000000000000000"),
    events.Resolving(3, 3),
    events.Phase("resolving", 0.5),
    events.Provisioning(".agents/skills/git-pr", 0, 2),
    events.Provisioning(".claude/skills/git-pr", 1, 2),
]


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _shown(listener: events.Listener, work: list[events.Event] = WORK) -> None:
    with events.listening(listener):
        for event in work:
            events.emit(event)


def test_plain_lines_say_what_was_fetched_and_verbose_says_more() -> None:
    plain = io.StringIO()
    _shown(progress.Lines(plain, verbose=False))
    assert plain.getvalue() == "Fetched acme/catalog at d9112191e043 (3.0 KiB)\n"
    verbose = io.StringIO()
    _shown(progress.Lines(verbose, verbose=True))
    assert verbose.getvalue().splitlines() == [
        "  GET http://127.0.0.1:1/acme/catalog.git/info/refs -> 200 (0.05s)",
        "Fetched acme/catalog at d9112191e043 (3.0 KiB)",
        "  cache hit: tools-org/shared at c2b72934b732",  # once, however often it is asked
        "  resolving took 0.50s",
        "  provisioning .agents/skills/git-pr",
        "  provisioning .claude/skills/git-pr",
    ]


def test_the_live_display_draws_counts_bytes_and_the_repository() -> None:
    screen = Terminal()
    live = progress.Live(screen, verbose=False)
    _shown(live, [e for e in WORK if not isinstance(e, events.Extracting)])  # mid-download
    live.close()  # draws the last state, then clears it (the summary follows)
    drawn = screen.getvalue()
    assert "Resolving" in drawn and "3/3" in drawn
    assert "Fetching" in drawn and "3.0 KiB" in drawn and "acme/catalog at d9112191e043" in drawn
    assert "Provisioning" in drawn and ".claude/skills/git-pr" in drawn


@pytest.mark.parametrize(
    ("stream", "environment", "expected"),
    [
        (Terminal(), {}, progress.Live),
        (Terminal(), {"CI": "true"}, progress.Lines),
        (Terminal(), {"TERM": "dumb"}, progress.Lines),
        (io.StringIO(), {}, progress.Lines),
    ],
)
def test_a_live_display_only_on_a_terminal_outside_ci(
    monkeypatch: pytest.MonkeyPatch, stream: io.StringIO, environment: dict[str, str], expected: Any
) -> None:
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    with progress.reporting(quiet=False, verbose=False, stream=stream):
        assert isinstance(events._listener, expected)
    assert events._listener is None
    with progress.reporting(quiet=True, verbose=True, stream=stream):
        assert not events.active()


def test_sizes_read_as_people_write_them() -> None:
    assert [progress.size(n) for n in (0, 1023, 1536, 5 * 1024**2, 3 * 1024**3)] == [
        "0 B",
        "1023 B",
        "1.5 KiB",
        "5.0 MiB",
        "3.0 GiB",
    ]
