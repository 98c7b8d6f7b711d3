"""``metapkg mcp``: an MCP stdio server that gives any agent host ``run_metaskill``.

Built on the official MCP Python SDK (low-level ``Server``, so the tool schema is exactly
the spec's, with the project's runnable metaskill names as the ``name`` enum). Tools:

* ``run_metaskill`` - specs/metaskills.txt section 10. Returns the envelope or an
  ``error:`` string (as text content; ``isError`` is set for ``error:``).
* ``list_metaskills`` - the compact catalog of section 4, with why a metaskill cannot run.

``ask`` becomes an MCP sampling request (``sampling/createMessage``) to the client, when
the client advertised sampling; otherwise each ask gets an ``error:`` answer. The
project is re-read on every call, so a new ``metapkg install`` is picked up at once. The
program runs in a worker thread (the host blocks on its child process); an ask hops back
to the event loop for the sampling round trip.

The SDK is imported only here and in mcpwire.py (the stdio transport, which checks every
message before the SDK sees it), when the command runs: it is heavy (about 1.5 s).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio
import anyio.from_thread
import anyio.to_thread
from mcp import types
from mcp.server import Server, ServerRequestContext

from metapkg import __version__
from metapkg.diagnostics import MetapkgError
from metapkg.metaskills.askers import AskReply, AskRequest, unanswered
from metapkg.metaskills.calls import Services
from metapkg.metaskills.commands import CommandPolicy
from metapkg.metaskills.limits import LimitError, Limits
from metapkg.metaskills.mcpwire import require_stdio, stdio_wire
from metapkg.metaskills.runner import Project, as_error, load_project

MAX_TOKENS = 8192  # per sampled answer; the host cuts answers at 20,000 characters
RUN_TOOL = "run_metaskill"
LIST_TOOL = "list_metaskills"


def run_schema(names: Sequence[str]) -> dict[str, Any]:
    """The spec's run_metaskill parameters; ``name`` gets an enum when names are known."""
    name: dict[str, Any] = {"type": "string", "description": "The metaskill name to execute."}
    if names:
        name["enum"] = list(names)
    return {
        "type": "object",
        "properties": {
            "name": name,
            "input": {
                "type": "object",
                "description": "Input data passed to the metaskill program.",
            },
            "max_ask_calls": {
                "type": "integer",
                "minimum": 1,
                "description": "Maximum nested model calls.",
            },
            "max_command_calls": {
                "type": "integer",
                "minimum": 0,
                "description": "Maximum command calls.",
            },
        },
        "required": ["name", "input"],
    }


class SamplingAsker:
    """Answers ask() through the MCP client's model (sampling/createMessage)."""

    def __init__(self, ctx: ServerRequestContext[Any], supported: bool) -> None:
        self.ctx = ctx
        self.supported = supported

    def __call__(self, request: AskRequest) -> AskReply:
        if not self.supported:
            return unanswered(
                "the MCP client did not advertise sampling (sampling/createMessage), so "
                "ask() has no model to ask; use a client with sampling, or run the "
                "metaskill with `metapkg run --answers FILE`"
            )
        try:
            return anyio.from_thread.run(self._sample, request)
        except Exception as exc:  # an MCPError, a refusal, a timeout: the program decides
            return unanswered(f"sampling failed: {exc}")

    async def _sample(self, request: AskRequest) -> AskReply:
        system = "You are answering one step of a metaskill workflow. Answer the request directly."
        if request.purpose:
            system += f" Purpose of this step: {request.purpose}."
        message = types.SamplingMessage(
            role="user", content=types.TextContent(type="text", text=request.prompt)
        )
        params = types.CreateMessageRequestParams(
            messages=[message],
            max_tokens=MAX_TOKENS,
            system_prompt=system,
            metadata={"purpose": request.purpose} if request.purpose else None,
        )
        result = await self.ctx.session.send_request(
            types.CreateMessageRequest(params=params),
            types.CreateMessageResult,
            request_read_timeout_seconds=max(request.time_left, 1.0),
        )
        content = result.content
        if not isinstance(content, types.TextContent):
            return unanswered(f"the client's model answered with {content.type}, not text")
        return AskReply(content.text, exhausted=result.stop_reason == "maxTokens", turns=1)


class MetaskillServer:
    def __init__(self, root: Path, extra_commands: Sequence[str]) -> None:
        self.root = root
        self.extra_commands = tuple(extra_commands)

    def project(self) -> Project | str:
        try:
            return load_project(self.root)
        except MetapkgError as exc:
            return as_error(exc)

    async def list_tools(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        project = self.project()
        names = project.runnable if isinstance(project, Project) else []
        return types.ListToolsResult(
            tools=[
                types.Tool(
                    name=RUN_TOOL,
                    description="Run a dynamic skill workflow by name.",
                    input_schema=run_schema(names),
                ),
                types.Tool(
                    name=LIST_TOOL,
                    description="List this project's metaskills: name, what each is for, "
                    "and whether it can run here. Read a skill's SKILL.md for its input keys.",
                    input_schema={"type": "object", "properties": {}},
                ),
            ]
        )

    async def call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        arguments = params.arguments or {}
        if params.name == RUN_TOOL:
            text = await self.run(ctx, arguments)
        elif params.name == LIST_TOOL:
            text = self.catalog()
        else:
            text = f"error: unknown tool {params.name!r}; this server has {RUN_TOOL}, {LIST_TOOL}"
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)],
            is_error=text.startswith("error:"),
        )

    def catalog(self) -> str:
        project = self.project()
        if not isinstance(project, Project):
            return project
        lines = [entry.catalog_line() for entry in project.metaskills]
        return "\n".join(lines) if lines else "This project has no metaskills installed."

    async def run(self, ctx: ServerRequestContext[Any], arguments: dict[str, Any]) -> str:
        name = arguments.get("name")
        if not isinstance(name, str):
            return "error: 'name' must be the name of a metaskill (see list_metaskills)"
        try:
            limits = Limits().with_overrides(
                arguments.get("max_ask_calls"), arguments.get("max_command_calls")
            )
        except LimitError as exc:
            return f"error: {exc}"
        project = self.project()
        if not isinstance(project, Project):
            return project
        sampling = types.ClientCapabilities(sampling=types.SamplingCapability())
        cancel = threading.Event()
        services = Services(
            SamplingAsker(ctx, ctx.session.check_client_capability(sampling)),
            CommandPolicy.of(
                [*project.manifest.allowed_commands, *self.extra_commands],
                self.root,
                project.manifest.command_rules,
            ),
            limits,
            cancel=cancel,
        )
        run_input = arguments.get("input") or {}
        try:
            return await anyio.to_thread.run_sync(
                lambda: project.run(name, run_input, services, require_input=True),
                abandon_on_cancel=True,
            )
        finally:
            cancel.set()  # a cancelled call stops its program (no-op after a normal end)


def serve(root: Path, extra_commands: Sequence[str]) -> int:
    """Serve until the client closes stdin (exit 0) or a SIGINT/SIGTERM (130/143)."""
    handlers = MetaskillServer(root, extra_commands)
    server: Server[Any] = Server(
        "metapkg",
        version=__version__,
        instructions="Runs this project's installed metaskills (SKILL.star workflows). "
        "Call list_metaskills to see them, then run_metaskill with the input keys the "
        "skill's SKILL.md documents.",
        on_list_tools=handlers.list_tools,
        on_call_tool=handlers.call_tool,
    )
    stopped_by: list[int] = []
    require_stdio()

    async def main() -> None:
        async with anyio.create_task_group() as tasks:
            if sys.platform != "win32":  # there Ctrl-C raises KeyboardInterrupt: exit 130
                tasks.start_soon(_stop_on_signal, tasks.cancel_scope, stopped_by)
            async with stdio_wire() as (read, write):
                await server.run(read, write, server.create_initialization_options())
            tasks.cancel_scope.cancel()

    anyio.run(main)
    if not stopped_by:
        return 0
    print(f"metapkg mcp: stopped by {signal.Signals(stopped_by[0]).name}", file=sys.stderr)
    return 128 + stopped_by[0]


async def _stop_on_signal(scope: anyio.CancelScope, stopped_by: list[int]) -> None:
    with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async for signum in signals:
            stopped_by.append(signum)
            _exit_soon(128 + signum)
            scope.cancel()
            return


def _exit_soon(code: int, grace: float = 2.0) -> None:
    """A metaskill's worker thread, told to stop, normally ends at once; if it does not
    within ``grace`` seconds, the process ends anyway (a stop must not wait on it)."""

    def force() -> None:
        print("metapkg mcp: a metaskill did not stop in time; ending anyway", file=sys.stderr)
        sys.stderr.flush()
        os._exit(code)

    timer = threading.Timer(grace, force)
    timer.daemon = True
    timer.start()
