"""Origin schemes: one module per kind of place a package can come from (see base.py)."""
