"""A user's config file given back byte for byte once metapkg's entries leave it again.

The writers edit in place, but an edit and its removal are not always exact inverses: a
container metapkg added (``"mcpServers": {}``) stays behind, a one-line shell
(``{"servers":{}}``) comes back formatted, TOML gains a final newline. So when metapkg
first edits a file of the user's, the install state keeps a :class:`Baseline`: a hash of
the text before, a hash of the text metapkg wrote, and the few characters where the two
differ. When a later edit leaves metapkg owning nothing in the file, and the file is
still exactly what metapkg wrote (nobody edited it since), the text before is rebuilt
from those and written back, but only if it says the same as the text the writer's own
removal gives (:meth:`settings`): a state file is a claim, never a source of content a
host would read differently. A file edited by the user in between loses only metapkg's
entries, as the writer removes them; their edit stays.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from metapkg.diagnostics import MetapkgError

MAX_KEPT = 16 * 1024  # characters of the text before kept in the state; more: no baseline


@dataclass(frozen=True)
class Baseline:
    original: str  # digest of the file's text before metapkg's first edit
    written: str  # digest of the text metapkg last wrote there
    start: int  # where the part that differs starts (the same in both texts)
    tail: int  # the characters after it, the same in both texts
    text: str  # what the text before held in that part

    def restore(self, current: str) -> str | None:
        """The text before metapkg's first edit, when ``current`` is what metapkg last
        wrote; None when it is not (or the record does not add up)."""
        if digest(current) != self.written or self.start + self.tail > len(current):
            return None
        original = current[: self.start] + self.text + current[len(current) - self.tail :]
        return original if digest(original) == self.original else None

    def as_record(self) -> dict[str, object]:
        return {
            "original": self.original,
            "written": self.written,
            "start": self.start,
            "tail": self.tail,
            "text": self.text,
        }


def from_record(item: object) -> Baseline | None:
    """A baseline read back from the state; None for anything of another shape."""
    if not isinstance(item, Mapping):
        return None
    original, written = item.get("original"), item.get("written")
    start, tail, text = item.get("start"), item.get("tail"), item.get("text")
    if not (isinstance(original, str) and isinstance(written, str) and isinstance(text, str)):
        return None
    if type(start) is not int or type(tail) is not int or start < 0 or tail < 0:
        return None
    if len(text) > MAX_KEPT:
        return None
    return Baseline(original, written, start, tail, text)


def digest(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def between(original: str, written: str) -> Baseline | None:
    """The baseline that rebuilds ``original`` from ``written``; None when the two differ
    in more than :data:`MAX_KEPT` characters (a whole file re-rendered, say)."""
    start = 0
    limit = min(len(original), len(written))
    while start < limit and original[start] == written[start]:
        start += 1
    tail = 0
    limit -= start
    while tail < limit and original[-1 - tail] == written[-1 - tail]:
        tail += 1
    text = original[start : len(original) - tail]
    if len(text) > MAX_KEPT:
        return None
    return Baseline(digest(original), digest(written), start, tail, text)


def settle(
    existing: str | None,
    text: str | None,
    before: Baseline | None,
    owned_before: bool,
    owned_after: bool,
    settings: Callable[[str], Any],
) -> tuple[str | None, Baseline | None]:
    """(the text to write, the baseline to keep) for one edit of a config file from
    ``existing`` to ``text``; ``owned_before``/``after``: metapkg owned entries in it
    before/after the edit; ``settings``: what a text says (the writer's)."""
    if existing is None or text is None:
        return text, None  # a file metapkg creates or removes: nothing to give back
    pristine = existing if not owned_before else before.restore(existing) if before else None
    if not owned_after:
        if pristine is not None and pristine != text and _same(settings, pristine, text):
            return pristine, None
        return text, None
    if text == existing:
        return text, before if owned_before else None
    return text, between(pristine, text) if pristine is not None else None


def _same(settings: Callable[[str], Any], one: str, other: str) -> bool:
    try:
        return bool(settings(one) == settings(other))
    except MetapkgError:  # a text its writer cannot read is never given back
        return False


def without_empty(value: Any, path: tuple[str, ...]) -> Any:
    """``value`` without the object at ``path`` when it is empty, nor the objects on the
    way that held only it: ``{"mcp": {"servers": {}}}`` and ``{}`` say the same."""
    if not path or not isinstance(value, dict) or path[0] not in value:
        return value
    child = without_empty(value[path[0]], path[1:]) if len(path) > 1 else value[path[0]]
    rest = {key: item for key, item in value.items() if key != path[0]}
    return rest if child == {} else {**rest, path[0]: child}
