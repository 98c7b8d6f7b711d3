"""Pictures of the resolved graph: ``metapkg graph`` and the Mermaid section of diffs.

The lock is turned into a :class:`~metapkg.graph.model.View` (nodes and edges, nothing
drawn yet), narrowed by :mod:`~metapkg.graph.select` (a package and what it pulls in, the
chains to a package, a depth), then handed to one renderer of the registry in
:mod:`~metapkg.graph.registry` (mermaid, dot, svg, html, json). Every string a package
controls (names, versions, origins) is escaped by :mod:`~metapkg.graph.escape` for the
medium it lands in: locks arrive in pull requests.
"""
