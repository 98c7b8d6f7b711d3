"""Each active host's own rules, applied to the packages provisioned into it.

A host module may name the check profile of its loader (``HostSpec.profile``; Metis:
profiles/metis.py). At install every package that host takes is judged by that profile,
as ``metapkg check --profile`` would judge it, and each finding names the host and the
path the host reads. A finding is a warning (the package still works there) unless the
host would refuse the package (Metis skips a skill whose SKILL.md fails its checks, with
only a line in its log): that is an error, and the install changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from metapkg.diagnostics import Diagnostic
from metapkg.hosts.model import Host
from metapkg.provision.plan import Item


def host_findings(items: Sequence[Item], hosts: Sequence[Host]) -> list[Diagnostic]:
    found: list[Diagnostic] = []
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
            for finding in registry.host_findings(package, host.profile, shown):
                who = f"{host.title} (target {host.name})"
                if finding.severity == "error":
                    message = (
                        f"{who} would not load {package.label}: {finding.message}. metapkg "
                        f"installs nothing rather than a skill the host skips: fix the skill, "
                        f"or leave {host.name} out of targets"
                    )
                else:
                    message = f"{who} warns about {package.label}: {finding.message}"
                found.append(replace(finding, message=message))
    return found
