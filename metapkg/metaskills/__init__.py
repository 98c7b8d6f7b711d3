"""Running metaSKILLs (specs/metaskills.txt): a hermetic Starlark host.

    installed.py         which skills the lock provisioned; trust; drift from the lock
    runner.py            run_metaskill by name: look up, gate, check, execute
    host.py              the parent: start the child, serve host calls, enforce the clock
    child.py             the child process: the interpreter, with ask/command/trace stubs
    calls.py             ask, command, trace as the parent serves them, with budgets
    commands.py          the command allowlist and running an allowed command
    argrules.py          the argument rule of each allowed program (git, rg, pytest...)
    environment.py       the allow-listed environment an allowed command gets
    guard.py             runs one command; ends its process group when metapkg dies
    inputs.py            input and scripted answers: plain, bounded JSON only
    askers.py            who answers ask(): scripted file, terminal, nobody
    envelope.py          return normalisation, the result envelope, truncation
    limits.py            budgets and their bounds
    runtimes.py          language registry; starlark_runtime.py is the one entry
    mcpserver.py         `metapkg mcp`: the tools (with mcpwire.py, the only modules that
                         import the MCP SDK)
    mcpwire.py           its stdio transport: bounded lines, signals, fd 0/1 moved aside
    jsonrpc.py           each incoming line checked; the JSON-RPC error for a bad one

The interpreter is starlark-pyo3; starlark_runtime.py says why. Nothing here is imported
unless a metaskill is run or checked.
"""
