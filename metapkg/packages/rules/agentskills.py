"""The Agent Skills frontmatter fields (agentskills.io specification).

MetaAgents extends Agent Skills, so the optional fields (``license``, ``compatibility``,
``metadata``, ``allowed-tools``) are judged whenever a skill or agent is loaded; the
``agentskills`` profile adds the specification's own name, description and field-set rules.

YAML reads ``1.0`` as a number, but the reference validator parses frontmatter with
strictyaml, where every scalar is a string. So a number, boolean or date where the spec
wants a string is a warning (quote it), while a list or mapping there is an error.

Names are judged as written, without the NFKC normalization the reference validator
applies first: a name must already be in NFKC form, so it has exactly one spelling.
"""

from __future__ import annotations

import datetime
import unicodedata
from collections.abc import Iterator

from metapkg.diagnostics import Diagnostic, error, warning
from metapkg.packages.frontmatter import Frontmatter

FIELDS = ("name", "description", "license", "compatibility", "metadata", "allowed-tools")
MAX_NAME = 64
MAX_DESCRIPTION = 1024
MAX_COMPATIBILITY = 500
_SCALARS = (bool, int, float, datetime.date)


def check_optional(fm: Frontmatter, path: str) -> Iterator[Diagnostic]:
    """license, compatibility, metadata and allowed-tools, when present."""
    yield from _string_field(fm, "license", path)
    yield from _string_field(fm, "allowed-tools", path)
    text, diags = _string_value(fm, "compatibility", path)
    yield from diags
    if text is not None and not 1 <= len(text) <= MAX_COMPATIBILITY:
        yield error(
            "agentskills/compatibility",
            path,
            f"compatibility is {len(text)} characters; it must be 1 to {MAX_COMPATIBILITY}"
            + ("" if text else " (remove the field if there is nothing to say)"),
            fm.line("compatibility"),
        )
    yield from _metadata(fm, path)


def metadata_version(fm: Frontmatter) -> str | None:
    """``metadata.version`` when it is a string (the Agent Skills way to carry a version)."""
    metadata = fm.fields.get("metadata")
    version = metadata.get("version") if isinstance(metadata, dict) else None
    if isinstance(version, str) and version.strip():
        return version.strip()
    return None


def _string_value(fm: Frontmatter, key: str, path: str) -> tuple[str | None, list[Diagnostic]]:
    """The field's text (None when absent or not text) and what is wrong with its type."""
    if key not in fm.fields:
        return None, []
    value = fm.fields[key]
    rule, line = f"agentskills/{key}", fm.line(key)
    if value is None:
        return "", []
    if isinstance(value, str):
        return value, []
    if isinstance(value, _SCALARS):
        return str(value), [
            warning(
                rule,
                path,
                f"YAML reads {key} {value!r} as a {type(value).__name__}; quote it so every "
                f"client reads the same string",
                line,
            )
        ]
    return None, [
        error(
            rule,
            path,
            f"'{key}' must be a string, not a {_yaml_type(value)}"
            + ("; list the tools space-separated on one line" if key == "allowed-tools" else ""),
            line,
        )
    ]


def _string_field(fm: Frontmatter, key: str, path: str) -> Iterator[Diagnostic]:
    yield from _string_value(fm, key, path)[1]


def _metadata(fm: Frontmatter, path: str) -> Iterator[Diagnostic]:
    if "metadata" not in fm.fields:
        return
    metadata = fm.fields["metadata"]
    if not isinstance(metadata, dict):
        yield error(
            "agentskills/metadata",
            path,
            f"'metadata' must be a mapping of string keys to string values, not a "
            f"{_yaml_type(metadata)}",
            fm.line("metadata"),
        )
        return
    for key, value in metadata.items():
        line = fm.line("metadata", key)
        if isinstance(value, dict | list):
            yield error(
                "agentskills/metadata",
                path,
                f"metadata.{key} is a {_yaml_type(value)}; metadata values are strings",
                line,
            )
        elif not isinstance(value, str) and value is not None:
            yield warning(
                "agentskills/metadata",
                path,
                f"YAML reads metadata.{key} {value!r} as a {type(value).__name__}; quote it "
                f'("{value}") so every client reads the same string',
                line,
            )


def _yaml_type(value: object) -> str:
    if isinstance(value, dict):
        return "mapping"
    if isinstance(value, list):
        return "list"
    return "null" if value is None else type(value).__name__


# -- the agentskills profile's own rules ---------------------------------------------------


def check_name(fm: Frontmatter, path: str, folder: str) -> Iterator[Diagnostic]:
    name = fm.fields.get("name")
    line = fm.line("name")
    if not isinstance(name, str) or not name.strip():
        yield error(
            "agentskills/name", path, "'name' is required and must be a non-empty string", line
        )
        return
    problems = []
    if len(name) > MAX_NAME:
        problems.append(f"is {len(name)} characters (at most {MAX_NAME})")
    if name != name.lower():
        problems.append("must be lowercase")
    if name.startswith("-") or name.endswith("-"):
        problems.append("must not start or end with a hyphen")
    if "--" in name:
        problems.append("must not contain consecutive hyphens")
    if not all(c.isalnum() or c == "-" for c in name):
        problems.append("may contain only letters, digits and hyphens")
    elif not unicodedata.is_normalized("NFKC", name):
        problems.append(f"must be written in NFKC form ({unicodedata.normalize('NFKC', name)!r})")
    for problem in problems:
        yield error("agentskills/name", path, f"name {name!r} {problem}", line)
    if folder and name != folder:
        yield error(
            "agentskills/name",
            path,
            f"name {name!r} must match its folder {folder!r}; rename one of them",
            line,
        )


def check_description(fm: Frontmatter, path: str) -> Iterator[Diagnostic]:
    description = fm.fields.get("description")
    line = fm.line("description")
    if not isinstance(description, str) or not description.strip():
        yield error(
            "agentskills/description",
            path,
            "'description' is required and must be a non-empty string: say what the skill "
            "does and when to use it",
            line,
        )
    elif len(description) > MAX_DESCRIPTION:
        yield error(
            "agentskills/description",
            path,
            f"description is {len(description)} characters; the limit is {MAX_DESCRIPTION}",
            line,
        )


def check_fields(fm: Frontmatter, path: str) -> Iterator[Diagnostic]:
    unknown = [key for key in fm.fields if key not in FIELDS]
    if unknown:
        yield error(
            "agentskills/fields",
            path,
            f"fields outside the Agent Skills specification: {', '.join(map(str, unknown))}; "
            f"move them under 'metadata' (only {', '.join(FIELDS)} are defined)",
            fm.line(str(unknown[0])),
        )
