"""What a marketplace offers ``metapkg add``: one named plugin (``NAME@MARKETPLACE``) or
every plugin it lists (``MARKETPLACE --all``), each through the offer its own source
makes, with a note saying which marketplace it came from (written as a comment beside
its entry in metapkg.yaml)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from metapkg.actions import marketplace
from metapkg.actions.offers import Candidate, Offer
from metapkg.diagnostics import Diagnostic, MetapkgError, UsageError, warning
from metapkg.origins import Origin
from metapkg.packages.models import Kind
from metapkg.sources_input import Source, SourceError, parse_source

if TYPE_CHECKING:
    from metapkg.fetch.source import Fetched
    from metapkg.packages.discover import Found

OfferOf = Callable[[Source, "Kind | None"], Offer]


@dataclass(frozen=True)
class Listed:
    """A marketplace read from ``origin`` (``fetched`` when it came from a forge)."""

    offer_of: OfferOf
    market: marketplace.Marketplace
    origin: Origin
    fetched: Fetched | None
    label: str  # the marketplace as the user named it

    def offer(self, name: str, kind: Kind | None, project: Path) -> Offer:
        entry = next((e for e in self.market.entries if e.name == name), None)
        if entry is None:
            raise UsageError.single(
                "usage",
                self.label,
                f"the marketplace lists no plugin {name}; it lists {_names(self.market.names())}",
            )
        if entry.skipped is not None:
            raise MetapkgError.single(
                "marketplace", self.label, f"{name} cannot be added: {entry.skipped}"
            )
        return self._offer(entry, kind, project)

    def every(
        self, kind: Kind | None, project: Path, skip: Callable[[Diagnostic], None]
    ) -> list[Offer]:
        """An offer per entry; the entries that cannot be offered are told to ``skip``."""
        offers = []
        for entry in self.market.entries:
            if entry.skipped is not None:
                skip(warning("skipped", self.label, f"{entry.name} not added: {entry.skipped}"))
                continue
            try:
                offers.append(self._offer(entry, kind, project))
            except MetapkgError as exc:
                why = "; ".join(d.message for d in exc.diagnostics)
                skip(warning("skipped", self.label, f"{entry.name} not added: {why}"))
        return offers

    def _offer(self, entry: marketplace.Entry, kind: Kind | None, project: Path) -> Offer:
        note = f"{entry.name} from marketplace {self.market.name or self.label} ({self.label}"
        commit = self.fetched.commit if self.fetched is not None else None
        note += f" at {commit})" if commit else ")"
        return _noted(self.offer_of(self._source(entry, project), kind), note)

    def _source(self, entry: marketplace.Entry, project: Path) -> Source:
        if entry.relative is not None:
            return Source(self._inside(entry.relative))
        assert entry.source is not None
        try:
            return parse_source(entry.source, project)
        except SourceError as exc:
            raise MetapkgError.single("marketplace", self.label, str(exc)) from None

    def _inside(self, relative: str) -> Origin:
        if relative == ".":
            return self.origin
        fetched = self.fetched
        if fetched is None or fetched.place is None:
            return self.origin.inside(relative, None, "")
        ref = fetched.pin.ref if fetched.pin is not None else None
        return self.origin.inside(relative, ref, fetched.place.path)


def _noted(offer: Offer, note: str) -> Offer:
    """``offer`` whose candidates carry ``note``."""
    if offer.one is not None:
        return replace(offer, one=replace(offer.one, note=note))
    make = offer.make
    assert make is not None

    def noted(found: Found) -> Candidate:
        return replace(make(found), note=note)

    return replace(offer, make=noted)


def _names(names: list[str], shown: int = 30) -> str:
    more = len(names) - shown
    return ", ".join(names[:shown]) + (f" and {more} more" if more > 0 else "")
