"""metapkg.lock: its format (read, write, byte-stable) and the integrity hash."""
