"""Reliability suites for metapkg: fault injection and parser fuzzing.

Both are black-box drivers. ``reliability.faults`` runs the real CLI in subprocesses
against a loopback fake GitHub and kills it, fills its disk, takes its permissions away
and breaks its network, then checks that nothing was lost. ``reliability.fuzz`` feeds
hypothesis-generated text to every parser of untrusted input through its public entry
point. Each has a short mode (run by the test suite) and a long mode (run by hand):

    scripts/faults [--long]      scripts/fuzz [--long]      scripts/reliability

See the "Reliability suites" section of README.md.
"""
