"""The fuzz suite: hypothesis-generated input for every parser of untrusted text, through
its public entry point. See runner.py and README.md."""
