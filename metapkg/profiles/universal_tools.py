"""Tool contracts of the Universal Agent Skill spec: ``tools`` in SKILL.md, ``tools.json``.

Rules from shared/specs/universal-agent-skill.md sections 4-7 and Appendix B: each tool
has a portable name, a description, an ``input_schema`` of ``type: object`` and an
``implementation`` whose runtime is python, node or bash and whose entrypoint is a file
of the skill with that runtime's extension.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from metapkg.diagnostics import Diagnostic, error, warning
from metapkg.profiles.skillfile import SkillFile

TOOL_NAME = re.compile(r"^(?!.*--)[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$")
TOOL_KEYS = ("name", "description", "input_schema", "output_schema", "confirmation")
TOOL_REQUIRED = ("name", "description", "input_schema", "implementation")
IMPLEMENTATION_KEYS = ("runtime", "entrypoint", "handler", "timeout_seconds", "dependencies")
DEPENDENCY_KEYS = ("pip", "npm", "system", "notes")
EXTENSIONS = {"python": (".py",), "node": (".js", ".mjs"), "bash": (".sh",)}
TOOLS_JSON = "tools.json"
Bad = Callable[[str, str], Diagnostic]  # (rule suffix, message) -> a finding


def check_tools(skill: SkillFile, folder: Path) -> Iterator[Diagnostic]:
    if "tools" not in skill.fm.fields:
        return
    tools = skill.fm.fields["tools"]
    line = skill.fm.line("tools")
    if not isinstance(tools, list):
        yield error("universal/tools", skill.shown, "'tools' must be a list of tools", line)
        return
    seen: set[str] = set()
    for index, tool in enumerate(tools):
        where = f"tools[{index}]"
        yield from _tool(tool, where, skill.shown, skill.fm.line("tools", index), folder)
        name = tool.get("name") if isinstance(tool, dict) else None
        if isinstance(name, str) and name in seen:
            yield error(
                "universal/tools",
                skill.shown,
                f"{where}: tool name {name!r} is used twice; tool names are unique",
                skill.fm.line("tools", index),
            )
        if isinstance(name, str):
            seen.add(name)


def _tool(
    tool: object, where: str, shown: str, line: int | None, folder: Path
) -> Iterator[Diagnostic]:
    def bad(rule: str, message: str) -> Diagnostic:
        return error(f"universal/{rule}", shown, f"{where}: {message}", line)

    if not isinstance(tool, dict):
        yield bad("tools", "each tool is a mapping with name, description, input_schema, ...")
        return
    missing = [key for key in TOOL_REQUIRED if key not in tool]
    unknown = [key for key in tool if key not in (*TOOL_KEYS, "implementation")]
    if missing:
        yield bad("tools", f"missing {', '.join(missing)}")
    if unknown:
        yield bad("tools", f"unknown keys {', '.join(map(str, unknown))}")
    name = tool.get("name")
    if "name" in tool and not (isinstance(name, str) and TOOL_NAME.match(name)):
        yield bad(
            "tools",
            f"tool name {name!r} must be 1-64 lowercase letters, digits and single inner hyphens",
        )
    description = tool.get("description")
    if "description" in tool and not (
        isinstance(description, str) and 1 <= len(description) <= 1024
    ):
        yield bad("tools", "the description must be a string of 1 to 1024 characters")
    yield from _schemas(tool, bad)
    if "implementation" in tool:
        yield from _implementation(tool["implementation"], bad, folder)


def _schemas(tool: dict[Any, Any], bad: Bad) -> Iterator[Diagnostic]:
    if "input_schema" in tool:
        schema = tool["input_schema"]
        if not isinstance(schema, dict) or schema.get("type") != "object":
            yield bad("input-schema", "input_schema must be a JSON Schema with type: object")
    if "output_schema" in tool and not isinstance(tool["output_schema"], dict):
        yield bad("input-schema", "output_schema must be a JSON Schema object")


def _implementation(value: object, bad: Bad, folder: Path) -> Iterator[Diagnostic]:
    if not isinstance(value, dict):
        yield bad("runtime", "implementation must be a mapping with runtime and entrypoint")
        return
    unknown = [key for key in value if key not in IMPLEMENTATION_KEYS]
    if unknown:
        yield bad("runtime", f"implementation has unknown keys {', '.join(map(str, unknown))}")
    runtime = value.get("runtime")
    if runtime not in EXTENSIONS:
        yield bad("runtime", f"runtime {runtime!r} must be one of python, node, bash")
    timeout = value.get("timeout_seconds")
    if "timeout_seconds" in value and (
        isinstance(timeout, bool) or not isinstance(timeout, int) or timeout < 1
    ):
        yield bad("runtime", "timeout_seconds must be a whole number of at least 1")
    if "handler" in value and not isinstance(value["handler"], str):
        yield bad("runtime", "handler must be a string")
    yield from _dependencies(value.get("dependencies"), bad)
    entrypoint = value.get("entrypoint")
    problem = entrypoint_problem(entrypoint, runtime, folder)
    if problem:
        yield bad("entrypoint", problem)


def _dependencies(value: object, bad: Bad) -> Iterator[Diagnostic]:
    if value is None:
        return
    if not isinstance(value, dict) or any(key not in DEPENDENCY_KEYS for key in value):
        yield bad("runtime", "implementation.dependencies has only pip, npm, system and notes")
        return
    for key in ("pip", "npm", "system"):
        items = value.get(key, [])
        if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
            yield bad("runtime", f"implementation.dependencies.{key} must be a list of strings")


def entrypoint_problem(entrypoint: object, runtime: object, folder: Path) -> str | None:
    if not isinstance(entrypoint, str) or not entrypoint:
        return "implementation.entrypoint is required: a path relative to the skill folder"
    if "\\" in entrypoint or entrypoint.startswith("/") or re.match(r"^[A-Za-z]:", entrypoint):
        return f"entrypoint {entrypoint!r} must be a relative path with '/' separators"
    normal = posixpath.normpath(entrypoint)
    if normal == ".." or normal.startswith("../"):
        return f"entrypoint {entrypoint!r} points outside the skill folder"
    extensions = EXTENSIONS.get(runtime) if isinstance(runtime, str) else None
    if extensions and not entrypoint.endswith(extensions):
        ext = " or ".join(extensions)
        return f"a {runtime} entrypoint ends in {ext}; {entrypoint!r} does not"
    if not (folder / normal).is_file():
        return f"entrypoint {entrypoint!r} does not exist in the skill folder"
    return None


def check_tools_json(skill: SkillFile, folder: Path, display: str) -> Iterator[Diagnostic]:
    path = folder / TOOLS_JSON
    if not path.is_file():
        return
    shown = f"{display}/{TOOLS_JSON}"
    try:
        listed = json.loads(path.read_bytes().decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        yield error("universal/tools-json", shown, f"{TOOLS_JSON} is not valid JSON ({exc})")
        return
    if not isinstance(listed, list):
        yield error(
            "universal/tools-json", shown, f"{TOOLS_JSON} must be a JSON array of tool objects"
        )
        return
    for index, tool in enumerate(listed):
        for found in _tool(tool, f"tools.json[{index}]", shown, None, folder):
            yield error("universal/tools-json", found.path, found.message, found.line)
    declared = skill.fm.fields.get("tools")
    if listed != declared:
        yield warning(
            "universal/tools-json",
            shown,
            f"{TOOLS_JSON} disagrees with the tools in SKILL.md, so adapters treat it as stale "
            f"and use SKILL.md; regenerate it from SKILL.md",
        )
