"""metapkg audit [--path DIR] [--format text|json|sarif|cyclonedx] [-o FILE] [--policy FILE|URL]
[--fail-on LEVEL]"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from metapkg.cli import options
from metapkg.cli.base import BaseCommand, Option

if TYPE_CHECKING:
    from metapkg.actions.audit import AuditResult


class AuditCommand(BaseCommand):
    arguments: ClassVar[tuple[Option, ...]] = (options.OFFLINE, options.OUTPUT, options.POLICY)
    examples: ClassVar = (
        ("metapkg audit", "what the locked packages hold that runs code or reaches out"),
        ("metapkg audit --format sarif -o audit.sarif", "for code scanning"),
        ("metapkg audit --format cyclonedx -o sbom.json", "a CycloneDX SBOM of the lock"),
        ("metapkg audit --path ./vendor/skills", "a folder, before adding it"),
        ("metapkg audit --fail-on high", "CI: exit 1 on any high finding"),
    )

    def uses_project(self, args: argparse.Namespace) -> bool:
        return args.path is None

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "--path", type=Path, metavar="DIR", help="audit a folder instead of the lock"
        )
        parser.add_argument(
            "--format", choices=("text", "json", "sarif", "cyclonedx"), default="text"
        )
        options.JSON_FORMAT.add_to(parser)
        parser.add_argument(
            "--fail-on",
            choices=("high", "medium", "low", "never"),
            default="never",
            help="exit 1 when a finding of this level or above is found (default never; "
            "policy violations always exit 1)",
        )

    def handle(self, args: argparse.Namespace) -> int:
        from metapkg.actions.audit import audit_lock, audit_path
        from metapkg.cli.base import given_path, policy_argument
        from metapkg.cli.progress import reporting
        from metapkg.diagnostics import UsageError

        if args.format == "cyclonedx" and args.path is not None:
            raise UsageError.single("usage", "--format", "an SBOM describes the lock: drop --path")
        policy = policy_argument(args)
        with reporting(args.quiet, args.verbose):  # trees may be fetched
            if args.path is not None:
                folder = given_path(args, str(args.path))
                result = audit_path(folder, Path.cwd(), args.offline, policy)
            else:
                result = audit_lock(Path.cwd(), args.offline, policy)
        _write(args, _render(args.format, result))
        failing = {"high": 0, "medium": 1, "low": 2}.get(args.fail_on)
        hit = failing is not None and any(f.rank <= failing for f in result.findings)
        return 1 if result.violations or hit else 0


def _render(form: str, result: AuditResult) -> str:
    if form == "sarif":
        from metapkg.audit import sarif

        return sarif.render([*result.violations, *result.findings], result.locate)
    if form == "cyclonedx":
        from metapkg.audit import sbom

        assert result.lock is not None
        return sbom.render(result.lock, result.items)
    if form == "json":
        return json.dumps(_as_json(result), indent=2, ensure_ascii=False) + "\n"
    return _text(result)


def _as_json(result: AuditResult) -> dict[str, object]:
    def one(finding: object) -> dict[str, object]:
        from metapkg.audit.findings import Finding

        assert isinstance(finding, Finding)
        return {
            "rule": finding.rule,
            "severity": finding.level,
            "package": finding.label,
            "path": finding.path,
            "line": finding.line,
            "location": result.locate(finding),
            "message": finding.message,
        }

    return {
        "ok": not result.violations,
        "packages": len(result.items),
        "unavailable": {i.label: i.unavailable for i in result.items if i.unavailable},
        "violations": [one(v) for v in result.violations],
        "findings": [one(f) for f in result.findings],
    }


def _text(result: AuditResult) -> str:
    from metapkg.untrusted import printable

    lines = []
    for finding in [*result.violations, *result.findings]:
        where = result.locate(finding)
        at = f"{where}:{finding.line}" if where and finding.line else where or finding.label
        lines.append(f"{finding.level:<6} [{finding.rule}] {at}: {finding.message}")
    for item in result.items:
        if item.unavailable:
            lines.append(f"note: {item.label} was not audited: {item.unavailable}")
    counts = {
        level: sum(1 for f in result.findings if f.level == level)
        for level in ("high", "medium", "low")
    }
    summary = ", ".join(f"{n} {level}" for level, n in counts.items())
    lines.append(
        f"Audited {len(result.items)} package(s): {summary}; "
        f"{len(result.violations)} policy violation(s)"
    )
    return "".join(printable(line) + "\n" for line in lines)


def _write(args: argparse.Namespace, text: str) -> None:
    if not args.output:
        sys.stdout.write(text)
        return
    from metapkg.cli.base import given_path
    from metapkg.cli.output import write_file

    write_file(given_path(args, args.output), text, "the audit")


COMMAND = AuditCommand()
