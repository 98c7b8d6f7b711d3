"""The one registry of rule ids and profiles, and the calls the rest of metapkg makes.

* :data:`RULES`: every rule id metapkg reports, with its profile, severity, summary and
  hint. ``check --list-rules`` prints it and the README's rule table is generated from it.
* :data:`PROFILES`: profile name -> a factory of the profile (profiles keep per-run state).
* :func:`findings`: run one profile over a package, as install does for each host.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from metapkg.diagnostics import Diagnostic
from metapkg.packages.models import Package
from metapkg.profiles import agentskills, metaagents, metaagents_rules, metis, universal
from metapkg.profiles.base import Profile, Rule, Target

DEFAULT = "metaagents"

RULES: dict[str, Rule] = {
    rule.id: rule
    for rule in (
        *metaagents_rules.RULES,
        *agentskills.RULES,
        *metis.RULES,
        *universal.RULES,
    )
}

# name -> factory(consumer): a fresh profile for one run.
PROFILES: dict[str, Callable[[bool], Profile]] = {
    "metaagents": lambda consumer: metaagents.MetaAgents(consumer),
    "agentskills": lambda consumer: agentskills.AgentSkills(),
    "metis": lambda consumer: metis.Metis(),
    "universal": lambda consumer: universal.Universal(),
}


def rule(rule_id: str) -> Rule | None:
    return RULES.get(rule_id)


def profile(name: str, consumer: bool = False) -> Profile:
    """A fresh profile; ``KeyError`` for an unknown name (the CLI offers the choices)."""
    return PROFILES[name](consumer)


def target_for(package: Package, display: str | None = None) -> Target:
    """How a profile sees a loaded package: its files on disk, under its folder name."""
    return Target(
        package.source, display or str(package.source), package.kind, package.provision_name
    )


def findings(package: Package, profile_name: str, display: str | None = None) -> list[Diagnostic]:
    """What ``profile_name`` finds in ``package``, with its own severities.

    For ``metaagents`` this is install's (consumer) reading: plain Agent Skills packages
    get ``not-metaagents`` instead of version and CHANGELOG errors.
    """
    return profile(profile_name, consumer=True).check(target_for(package, display))


def host_findings(
    package: Package, profile_name: str, display: str | None = None
) -> list[Diagnostic]:
    """What a host that reads ``profile_name`` would say about ``package`` at install.

    Errors only where that host would refuse to load the package; every other finding is
    a warning (the package still works there).
    """
    host = profile(profile_name, consumer=True)
    return [
        d if host.refuses(d) else replace(d, severity="warning")
        for d in host.check(target_for(package, display))
    ]
