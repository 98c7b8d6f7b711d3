"""The agent hosts metapkg provisions: one module per host, one registry (registry.py).

Below provisioning and above packages: nothing here imports provision, lock, resolve,
fetch or actions. A host says where its skills and agents go and how its agent files and
MCP entries look (model.py, render.py, servers.py); config/ merges server entries into the
host's own config file, keeping the user's entries and comments; paths.py is the path
allowlist the lock reader, the install state and the journal check against.
"""
