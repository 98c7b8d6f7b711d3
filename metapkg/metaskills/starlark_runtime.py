"""The ``starlark`` runtime, on starlark-pyo3 (starlark-rust).

Why starlark-pyo3, after trying the three Starlark packages on PyPI:

* ``starlark-pyo3`` wraps starlark-rust, the maintained implementation used by Buck2.
  Wheels for Linux, macOS and Windows; type stubs; values cross the boundary as JSON-like
  copies (so ``input`` and host replies are defensively copied for free); the standard
  globals have no ``print``, ``load`` needs a loader we never give, and the dialect can
  turn ``load`` off entirely. About 3 M loop iterations a second.
* ``starlark-go`` (python-starlark-go) embeds a 2023 starlark-go; calling a Python
  function with a dict argument from Starlark crashed the interpreter with a Go SIGSEGV
  in our trial, which rules it out for a host API made of such calls.
* ``starlark`` (pure Python, a port of the Java implementation) is dependency-free but
  about 50x slower (200 k loop iterations took 1.1 s), and it installs under the same
  import name, ``starlark``, as starlark-pyo3, so the two cannot coexist.

Hermetic by construction: the module's globals are the standard Starlark library
(no ``print``, no ``json``, no clock, no randomness) plus exactly ``ask``, ``command``,
``trace`` and ``input``; ``load()`` is a syntax error in our dialect. Pure computation is
bounded by the parent killing this process (host.py), not by the interpreter.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Mapping
from typing import Any

from metapkg.metaskills.runtimes import HostCallError, HostFunctions, Problem, ProgramFailure

_LOCATION = re.compile(r"^\s*-->\s*\S+?:(?P<line>\d+)(?::\d+)?\s*$", re.MULTILINE)
_MESSAGE = re.compile(r"^error: (?P<message>.*)$", re.MULTILINE)


def describe(text: str) -> tuple[str, int | None]:
    """A starlark-rust error report (multi-line, with a code excerpt): message and line."""
    message_match = _MESSAGE.search(text)
    message = message_match["message"] if message_match else text.strip().splitlines()[0]
    message = message.removeprefix(f"{HostCallError.__name__}: ").removeprefix("Parse error: ")
    location = _LOCATION.search(text)
    return message, int(location["line"]) if location else None


def one_line(text: str, filename: str) -> str:
    message, line = describe(text)
    return f"{message} ({filename}:{line})" if line is not None else message


def _dialect() -> Any:
    import starlark

    dialect = starlark.Dialect.standard()
    dialect.enable_load = False
    return dialect


def run_signature(source: str) -> tuple[int, str | None] | None:
    """(line, problem) of the top-level ``def run``; None when there is none.

    ``problem`` is None when run takes exactly one required positional parameter. Uses
    Python's tokenizer (Starlark is lexically a subset of Python) so a ``def run`` inside
    a string does not count.
    """
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return None
    for index, token in enumerate(tokens[:-2]):
        if (
            token.type == tokenize.NAME
            and token.string == "def"
            and token.start[1] == 0
            and tokens[index + 1].string == "run"
            and tokens[index + 2].string == "("
        ):
            return token.start[0], _parameter_problem(tokens[index + 3 :])
    return None


def _parameter_problem(tokens: list[tokenize.TokenInfo]) -> str | None:
    groups: list[list[str]] = [[]]
    depth = 0
    for token in tokens:
        if token.string in "([{" and token.type == tokenize.OP:
            depth += 1
        elif token.string in ")]}" and token.type == tokenize.OP:
            if depth == 0:
                break
            depth -= 1
        elif token.string == "," and depth == 0:
            groups.append([])
            continue
        if token.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT):
            groups[-1].append(token.string)
    groups = [g for g in groups if g]
    if not groups or groups[0][0] in ("*", "**") or "=" in groups[0]:
        return "run must take one parameter, input: def run(input):"
    if any("=" not in g and g[0] not in ("*", "**") for g in groups[1:]):
        return "run takes one required parameter (input); give the others defaults"
    return None


class StarlarkRuntime:
    language = "starlark"

    def check(self, source: str, filename: str) -> list[Problem]:
        try:
            import starlark
        except ImportError:
            return []
        try:
            starlark.parse(filename, source, _dialect())
        except starlark.StarlarkError as exc:
            message, line = describe(str(exc))
            return [Problem("syntax", message, line)]
        signature = run_signature(source)
        if signature is None:
            return [Problem("run", "the program does not define run(input) at the top level")]
        line, problem = signature
        return [Problem("run", problem, line)] if problem else []

    def execute(
        self, source: str, filename: str, input: Mapping[str, Any], host: HostFunctions
    ) -> Any:
        try:
            import starlark
        except ImportError as exc:
            raise ProgramFailure("unavailable", str(exc)) from None
        try:
            ast = starlark.parse(filename, source, _dialect())
        except starlark.StarlarkError as exc:
            raise ProgramFailure("syntax", one_line(str(exc), filename)) from None
        signature = run_signature(source)
        if signature is None or signature[1] is not None:
            detail = signature[1] if signature else "define it at the top level"
            raise ProgramFailure("no-run", f"{filename} does not define run(input): {detail}")
        module = starlark.Module()
        for name, function in host.items():
            module.add_callable(name, function)
        module["input"] = dict(input)
        try:
            starlark.eval(module, ast, starlark.Globals.standard())
            return module.freeze().call("run", dict(input))
        except starlark.StarlarkError as exc:
            text = str(exc)
            if "Traceback" not in text and "serialize" in text:
                raise ProgramFailure(
                    "invalid-return", f"run(input) returned a value that is not JSON-like: {text}"
                ) from None
            # starlark-rust reports name-resolution errors (compile time) without a traceback.
            if "Traceback" in text:
                raise ProgramFailure("runtime", one_line(text, filename)) from None
            raise ProgramFailure("syntax", one_line(text, filename)) from None


STARLARK = StarlarkRuntime()
