"""MCP config files: merging metapkg's server entries into a host's own config.

One writer per format, all with the same two calls: ``merge(existing, owned, wanted,
repair) -> (new text | None, now owned)`` and ``entries(text)``. Ownership (ownership.py)
is the same for every format; jsonfile.py edits JSON and JSONC in place (jsonc.py,
jsonedit.py), tomlfile.py edits TOML with tomlkit, opencode.py picks OpenCode's shape.
"""

from metapkg.hosts.config.ownership import entry_hash

__all__ = ["entry_hash"]
