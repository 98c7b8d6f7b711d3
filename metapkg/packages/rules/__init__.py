"""Format rules, one module per family of diagnostics."""
