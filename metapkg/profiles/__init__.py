"""Check profiles: the dialects of skill and agent files that ``metapkg check`` judges.

A profile is a name plus the rules it runs (``metaagents``, ``agentskills``, ``metis``,
``universal``); every rule id, whichever layer reports it, is registered once in
:mod:`metapkg.profiles.registry` with its profile, severity, summary and hint.
"""
