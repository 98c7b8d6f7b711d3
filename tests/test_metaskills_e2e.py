"""metaSKILLs end to end: install, then `metapkg run` and `metapkg mcp` in real processes.

One project (module-scoped, installed once) holds the spec's four example programs
(registry-fixtures/catalogs/metaskills: outside the project, so trusted by glob), a local
metaskill and a static skill.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import CATALOGS, assert_ok, git, run_cli, show

EXAMPLES = CATALOGS / "metaskills" / "skills"
TRUST = "trust:\n  metaskills: [spec/*, mine/*]\n"


def _write_skill(folder: Path, program: str | None) -> None:
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {folder.name}\nscope: mine\ndescription: The {folder.name} skill.\n"
        f"version: 1.0.0\n---\n\nInput keys: any.\n"
    )
    (folder / "CHANGELOG.md").write_text("# Changelog\n\n## 1.0.0 (2026-05-01)\n\n- First.\n")
    if program is not None:
        (folder / "SKILL.star").write_text(program)


def _manifest(project: Path, trust: str) -> None:
    skills = [f"file:{EXAMPLES / name}" for name in sorted(p.name for p in EXAMPLES.iterdir())]
    skills += ["file:./local/echo-input", "file:./local/notes"]
    lines = "".join(f"    - {origin}\n" for origin in skills)
    (project / "metapkg.yaml").write_text(
        f"dependencies:\n  skills:\n{lines}{trust}metaskills:\n  allow-commands: [git]\n"
    )


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("metaskills")
    project = root / "project"
    _write_skill(project / "local" / "echo-input", 'def run(input):\n    return {"echo": input}\n')
    _write_skill(project / "local" / "notes", None)
    _manifest(project, TRUST)
    (project / "app.py").write_text("def add(a, b):\n    return a + b\n")
    git(project, "init", "-q")
    git(project, "add", "app.py")
    git(project, "commit", "-qm", "app")
    (project / "app.py").write_text("def add(a, b):\n    return a - b\n")
    env = {"METAPKG_CACHE_DIR": str(root / "cache"), "METAPKG_SHARED_DIR": str(root / "shared")}
    assert_ok(run_cli("install", cwd=project, env=env))
    return project


def metaskill(project: Path, *args: str, answers: list[str] | None = None) -> Any:
    """`metapkg run` in the project; returns (exit code, envelope dict or error text)."""
    extra: list[str] = []
    if answers is not None:
        path = project.parent / "answers.jsonl"
        path.write_text("".join(json.dumps(a) + "\n" for a in answers))
        extra = ["--answers", str(path)]
    result = run_cli("run", *args, *extra, cwd=project)
    head, _, text = result.out.partition("\n")
    if head.startswith("[Metaskill: "):
        assert result.code == 0, show(result)
        return json.loads(text)
    assert result.code == 1 and head.startswith("error:"), show(result)
    return result.out.strip()


def test_spec_examples_run_with_scripted_answers(project: Path) -> None:
    heading = metaskill(
        project,
        "require-heading",
        "--input",
        '{"task": "Write a plan.", "heading": "## Risks"}',
        answers=["# Plan\nNo risks.", "# Plan\n## Risks\nNone known."],
    )
    assert heading["status"] == "accepted" and heading["attempts"] == 2
    assert heading["answer"].endswith("## Risks\nNone known.")
    assert heading["trace"] == [
        {"kind": "missing-heading", "data": {"attempt": 1, "heading": "## Risks"}}
    ]

    checklist = metaskill(
        project,
        "require-checklist",
        "--input",
        '{"task": "Deployment checklist."}',
        answers=["1. install\n2. test", "1. Install\n2. Test\n3. Rollback"],
    )
    assert checklist["status"] == "accepted" and checklist["attempts"] == 2
    assert checklist["trace"][0]["data"]["missing"] == ["rollback"]

    passing = metaskill(
        project, "test-fix", "--input", '{"test_command": ["true"]}', "--allow-command", "true"
    )
    assert passing == {
        "status": "accepted",
        "answer": "Tests passed.",
        "attempts": 1,
        "trace": [{"kind": "test-run", "data": {"attempt": 1, "ok": True}}],
    }
    failing = metaskill(
        project,
        "test-fix",
        "--input",
        '{"test_command": ["false"]}',
        "--allow-command",
        "false",
        answers=["Fixed it."] * 3,
    )
    assert failing["status"] == "exhausted" and len(failing["trace"]) == 3

    review = metaskill(project, "review-diff", answers=["The change turns + into -: a bug."])
    assert review == {"status": "ok", "answer": "The change turns + into -: a bug."}


def in_process(project: Path, name: str, input: dict[str, Any] | None = None) -> str:
    """The same lookup, gates and host as `metapkg run`, without a process per call."""
    from metapkg.metaskills.askers import NoAsker
    from metapkg.metaskills.calls import Services
    from metapkg.metaskills.commands import CommandPolicy
    from metapkg.metaskills.runner import load_project

    loaded = load_project(project)
    services = Services(
        NoAsker("no model"), CommandPolicy.of(loaded.manifest.allowed_commands, project)
    )
    return loaded.run(name, input or {}, services)


def test_refusals_are_error_results(project: Path) -> None:
    assert in_process(project, "no-such").startswith("error: unknown metaskill 'no-such'")
    assert in_process(project, "notes").startswith("error: skill 'notes' is a static skill")
    blocked = json.loads(in_process(project, "test-fix", {"test_command": ["ls"]}).split("\n")[1])
    assert blocked["status"] == "exhausted"
    assert blocked["answer"].startswith("error: command 'ls' is not allowed")


def test_trust_and_drift(project: Path, tmp_path: Path) -> None:
    copy = tmp_path / "project"
    shutil.copytree(project, copy)
    _manifest(copy, "")  # nothing trusted: only the local metaskill may run
    untrusted = in_process(copy, "require-heading", {"task": "x", "heading": "y"})
    assert untrusted.startswith("error: metaskill spec/require-heading comes from file:")
    assert "add 'spec/require-heading' (or 'spec/*') to trust.metaskills" in untrusted
    assert in_process(copy, "echo-input", {"a": 1}).endswith(
        '{"status":"ok","answer":"","echo":{"a":1}}'
    )

    program = copy / ".agents" / "skills" / "echo-input" / "SKILL.star"
    program.write_text('def run(input):\n    return "changed"\n')
    drifted = in_process(copy, "echo-input")
    assert drifted.startswith("error: .agents/skills/echo-input differs from metapkg.lock")


async def _mcp_session(project: Path) -> dict[str, Any]:
    from mcp import ClientSession, StdioServerParameters, stdio_client, types

    sampled: list[dict[str, Any]] = []

    async def sampling(
        ctx: Any, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult:
        prompt = params.messages[0].content
        assert isinstance(prompt, types.TextContent)
        sampled.append({"prompt": prompt.text, "purpose": (params.metadata or {}).get("purpose")})
        answer = f"# Draft\n## Risks\n(sampled: {prompt.text})"
        content = types.TextContent(type="text", text=answer)
        return types.CreateMessageResult(role="assistant", content=content, model="scripted")

    server = StdioServerParameters(
        command=sys.executable, args=["-m", "metapkg", "mcp"], cwd=str(project)
    )
    async with (
        stdio_client(server) as (read, write),
        ClientSession(read, write, sampling_callback=sampling) as session,
    ):
        await session.initialize()
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        schema = tools["run_metaskill"].input_schema
        task = {"task": "Write a plan.", "heading": "## Risks"}
        run = await session.call_tool("run_metaskill", {"name": "require-heading", "input": task})
        empty = await session.call_tool("run_metaskill", {"name": "require-heading", "input": {}})
        catalog = await session.call_tool("list_metaskills", {})

    def text(result: types.CallToolResult) -> str:
        content = result.content[0]
        assert isinstance(content, types.TextContent)
        return content.text

    return {
        "schema": schema,
        "run": (text(run), run.is_error),
        "empty": (text(empty), empty.is_error),
        "catalog": text(catalog),
        "sampled": sampled,
    }


def test_mcp_session_runs_a_metaskill_with_sampling(project: Path) -> None:
    """The SDK's own client talks to `metapkg mcp` over stdio and answers sampling."""
    import anyio

    report = anyio.run(_mcp_session, project)
    schema = report["schema"]
    assert schema["required"] == ["name", "input"]
    assert schema["properties"]["name"]["enum"] == [
        "echo-input", "require-checklist", "require-heading", "review-diff", "test-fix",
    ]  # fmt: skip
    text, is_error = report["run"]
    head, _, envelope = text.partition("\n")
    assert head == "[Metaskill: require-heading completed]" and not is_error
    assert json.loads(envelope) == {
        "status": "accepted",
        "answer": "# Draft\n## Risks\n(sampled: Write a plan.)",
        "attempts": 1,
    }
    assert report["sampled"] == [{"prompt": "Write a plan.", "purpose": "draft"}]
    text, is_error = report["empty"]
    assert is_error and text.startswith("error: input is required") and "`heading`" in text
    assert "- require-heading: Draft text and retry" in report["catalog"]
