"""The command line: one thin module per command over metapkg.actions."""
