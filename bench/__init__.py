"""Benchmarks: figures a script prints, never timed tests. Run `python -m bench`."""
