"""Why no reading of a GitHub origin's tree names a ref: there is no such repository, or
it has no such branch or tag. The two need different fixes (the owner/name, or the
``@REF``), so the message says which, and for a missing ref lists what the repository
has (from its ref advertisement, which the failed lookup has already fetched)."""

from __future__ import annotations

from metapkg.fetch.gitrefs import Advertisement
from metapkg.fetch.source import NotFound
from metapkg.origins import GitHubOrigin

_SHOWN = 5  # branches or tags listed


def no_such_repository(origin: GitHubOrigin) -> NotFound:
    return NotFound(
        origin,
        f"no repository {origin.repo_id} on GitHub: check the owner and the name, or, for a "
        f"private repository, the token (`metapkg auth login`)",
    )


def no_such_ref(origin: GitHubOrigin, advertised: Advertisement | None) -> NotFound:
    """``origin``'s repository exists but none of its tree's readings is a ref of it;
    ``advertised``: what the repository advertised, if it was asked that way."""
    ref = origin.tree.split("/", 1)[0]
    has = f": {_listing(advertised)}" if advertised is not None else ""
    return NotFound(
        origin,
        f"{origin.repo_id} has no branch or tag {ref!r}{has}; write one after @, or leave "
        f"@REF out for the default branch",
    )


def _listing(advertised: Advertisement) -> str:
    branches = sorted(advertised.branches())
    default = (advertised.head_target or "").removeprefix("refs/heads/")
    if default in branches:
        branches = [default, *(b for b in branches if b != default)]
    listing = f"its branches are {_few(branches)}"
    tags = _newest_first(list(advertised.tags()))
    return f"{listing}, its tags {_few(tags)}" if tags else listing


def _few(names: list[str]) -> str:
    if len(names) <= _SHOWN:
        return ", ".join(names)
    return f"{', '.join(names[:_SHOWN])} and {len(names) - _SHOWN} more"


def _newest_first(tags: list[str]) -> list[str]:
    """Version tags (``v1.2.0``, ``1.2.0``) newest first, then the others by name."""
    from metapkg.packages.semver import SemVer

    versions = {t: SemVer.parse(t.removeprefix("v")) for t in tags}
    versioned = sorted((v, t) for t, v in versions.items() if v is not None)
    return [*(t for _, t in reversed(versioned)), *sorted(t for t in tags if versions[t] is None)]
