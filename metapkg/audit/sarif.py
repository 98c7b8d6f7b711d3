"""Findings as SARIF 2.1.0, the format code scanning reads (GitHub, GitLab, Azure).

One result per finding, with its rule id, a level (high: error, medium: warning, low:
note) and a location: the provisioned file when the package is installed (the path a
user opens), else the file inside the package, relative to the project.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from metapkg import __version__
from metapkg.audit.findings import DESCRIPTIONS, Finding

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {"high": "error", "medium": "warning", "low": "note"}
POLICY_RULES = {
    "policy-origin": "a package's origin is not allowed by the policy",
    "policy-pinning": "a package's ref or range breaks the policy's pinning rules",
    "policy-content": "a package holds content the policy forbids",
    "policy-mcp-command": "an MCP server runs a program the policy does not allow",
    "policy-max-alert": "a finding is above the policy's max-alert level",
}


def render(findings: Sequence[Finding], locate: Callable[[Finding], str | None]) -> str:
    """``locate`` gives the project-relative file a finding points at (None: none)."""
    rules = sorted({f.rule for f in findings})
    payload = {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "metapkg",
                        "version": __version__,
                        "rules": [_rule(rule) for rule in rules],
                    }
                },
                "results": [_result(f, rules.index(f.rule), locate(f)) for f in findings],
            }
        ],
    }
    return json.dumps(payload, indent=2, ensure_ascii=False) + "\n"


def _rule(rule: str) -> dict[str, Any]:
    text = DESCRIPTIONS.get(rule) or POLICY_RULES.get(rule, rule)
    return {"id": rule, "name": rule, "shortDescription": {"text": text}}


def _result(finding: Finding, index: int, uri: str | None) -> dict[str, Any]:
    result: dict[str, Any] = {
        "ruleId": finding.rule,
        "ruleIndex": index,
        "level": _LEVEL[finding.level],
        "message": {"text": finding.message},
        "properties": {"package": finding.label, "severity": finding.level},
    }
    if uri is not None:
        location: dict[str, Any] = {"artifactLocation": {"uri": uri}}
        if finding.line:
            location["region"] = {"startLine": finding.line}
        result["locations"] = [{"physicalLocation": location}]
    return result
