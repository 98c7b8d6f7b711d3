"""Each active host's own rules, applied to the packages provisioned into it.

A host module may name the check profile of its loader (``HostSpec.profile``; Metis:
profiles/metis.py). At install every package that host takes is judged by that profile,
as ``metapkg check --profile`` would judge it, and each finding names the host and the
path the host reads. A finding is a warning (the package still works there) unless the
host would refuse the package (Metis skips a skill whose SKILL.md fails its checks, with
only a line in its log). A consumer's install then leaves the package out of that host
only, and says so (the other targets still get it); with ``--strict`` the refusal is an
error and the install changes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from metapkg.diagnostics import Diagnostic
from metapkg.hosts.model import Host
from metapkg.packages.models import Key
from metapkg.provision.plan import Item


@dataclass(frozen=True)
class Judged:
    findings: tuple[tuple[Key, Diagnostic], ...] = ()
    # package -> the hosts that would not load it (left out of their folders)
    refused: Mapping[Key, frozenset[str]] = field(default_factory=dict)


def judge(items: Sequence[Item], hosts: Sequence[Host], strict: bool = False) -> Judged:
    findings: list[tuple[Key, Diagnostic]] = []
    refused: dict[Key, set[str]] = {}
    for host in hosts:
        if host.profile is None:
            continue
        from metapkg.profiles import registry  # 7 ms of imports, for hosts with a profile only

        for item in items:
            package = item.package
            folder = host.skills if package.kind == "skill" else None
            if folder is None:
                continue  # hosts with a profile take skills only, today
            shown = f"{folder}/{package.provision_name}"
            who = f"{host.title} (target {host.name})"
            for finding in registry.host_findings(package, host.profile, shown):
                if finding.severity != "error":
                    message = f"{who} warns about {package.label}: {finding.message}"
                elif strict:
                    message = (
                        f"{who} would not load {package.label}: {finding.message}. metapkg "
                        f"installs nothing rather than a skill the host skips (--strict): fix "
                        f"the skill, or leave {host.name} out of targets"
                    )
                else:
                    refused.setdefault(package.key, set()).add(host.name)
                    message = (
                        f"{who} would not load {package.label}: {finding.message}; it is not "
                        f"provisioned for {host.title} (the other targets get it)"
                    )
                    finding = replace(finding, severity="warning", tolerated=True)
                findings.append((package.key, replace(finding, message=message)))
    return Judged(tuple(findings), {key: frozenset(names) for key, names in refused.items()})


def host_findings(items: Sequence[Item], hosts: Sequence[Host]) -> list[Diagnostic]:
    """What the hosts' own rules say, a refusal as an error (``--strict``'s reading)."""
    return [d for _, d in judge(items, hosts, strict=True).findings]
