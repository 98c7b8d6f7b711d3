"""How large each kind of untrusted text may be before metapkg parses it.

Parsing time grows with the input, and the YAML reader (ruamel, pure Python) needs tens
of microseconds per item of a flow list: a megabyte of ``[1, 1, ...]`` takes seconds.
Each cap keeps the worst parse of its kind near a second while staying far above any
real file; past it the file is refused with its size and the cap, before any parsing.
The figures left after the caps are in README.md ("Reliability suites").
"""

from __future__ import annotations

KIB = 1024
MIB = 1024 * KIB

FRONTMATTER_BYTES = 64 * KIB  # SKILL.md / AGENTS.md: name, a 1,024-character description, ...
AGENT_3MD_BYTES = 256 * KIB  # a whole .3md agent, every plane: ~64k tokens
MCP_JSON_BYTES = 256 * KIB  # one MCP server's config
CHANGELOG_BYTES = 1 * MIB  # some 30,000 entries
MANIFEST_BYTES = 2 * MIB  # 3,000 dependencies and as many overrides take ~0.5 MB
LOCK_BYTES = 8 * MIB  # a lock of 3,000 packages takes ~1.3 MB
RANGE_CHARS = 1 * KIB  # one version range: ^1.2 || >=2.1,<3 || ...


def size(text: str) -> int:
    """The UTF-8 size of ``text`` (any string, even one with lone surrogates)."""
    return len(text.encode("utf-8", "surrogatepass"))


def over(what: str, found: int, cap: int) -> str:
    """The message for a file over its cap: ``what`` is ``the frontmatter``, ``metapkg.lock``."""
    shown = f"{cap // MIB} MiB" if cap % MIB == 0 else f"{cap // KIB} KiB"
    return f"{what} is {found:,} bytes, over metapkg's cap of {shown} ({cap:,} bytes)"


def unreadable_value(exc: Exception) -> str:
    """Why a number could not be read, for a user: Python's own message for an over-long
    integer ends in advice for programmers (sys.set_int_max_str_digits)."""
    text = str(exc)
    if "integer string conversion" in text:
        return "a number has more than 4,300 digits; no real value needs that many"
    return text
