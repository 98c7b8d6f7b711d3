"""Plain packages grouped by the repository they come from: a box per repository.

A project that adds whole repositories of skills (``metapkg add <repo> --all``) locks
hundreds of packages without a single dependency between them. Laid out one by one they
make a column thousands of pixels tall; grouped, they read as what they are: "these 50
come from anthropics/skills". A package is *plain* here when the picture has no edge to or
from it; everything else stays in the layered drawing, where its edges are.

Groups are ordered by their title (case-insensitively: GitHub matches owner and repository
that way), their members in the view's order, so the same lock gives the same groups.
"""

from __future__ import annotations

from dataclasses import dataclass

from metapkg.graph.model import Node, View
from metapkg.origins import OriginSyntaxError, parse_origin

LOCAL = "file: origins"
UNLOCKED = "not in the lock"


@dataclass(frozen=True)
class Group:
    title: str  # "owner/repo" as the lock writes it, or LOCAL
    members: tuple[int, ...]  # indices into the view's nodes

    @property
    def label(self) -> str:
        """What the box is titled with, in every format (escaped by each renderer)."""
        count = len(self.members)
        return f"{self.title} · {count} package{'' if count == 1 else 's'}"


def plain_groups(view: View) -> tuple[Group, ...]:
    """The view's packages without any edge, grouped by repository."""
    linked = {edge.source for edge in view.edges} | {edge.target for edge in view.edges}
    found: dict[str, tuple[str, list[int]]] = {}
    for index, node in enumerate(view.nodes):
        if node.key in linked:
            continue
        title = repository(node)
        found.setdefault(title.casefold(), (title, []))[1].append(index)
    return tuple(Group(title, tuple(members)) for _, (title, members) in sorted(found.items()))


def repository(node: Node) -> str:
    """The repository a node's package comes from, for its group's title: ``owner/repo``
    with the case the origin was written in."""
    if node.entry is None:
        return UNLOCKED
    origin = node.entry.origin
    if origin.startswith("file:"):
        return LOCAL
    try:
        parsed = parse_origin(origin)
    except OriginSyntaxError:
        return origin  # a hand-edited lock: shown as written (escaped by each renderer)
    return parsed.display_repository(origin)
