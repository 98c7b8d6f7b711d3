"""The metaskill host in-process: real child processes, real commands, no model.

Each run starts the real child (python -m metapkg.metaskills.child); the asker is a
scripted one, as `metapkg run --answers` uses.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from metapkg.manifest import CommandRuleSpec
from metapkg.metaskills import envelope
from metapkg.metaskills.argrules import KNOWN
from metapkg.metaskills.askers import AskReply, AskRequest, ScriptedAnswers
from metapkg.metaskills.calls import Services
from metapkg.metaskills.commands import CommandPolicy
from metapkg.metaskills.host import Program, execute
from metapkg.metaskills.limits import LimitError, Limits


def run(
    source: str,
    tmp_path: Path,
    input: dict[str, Any] | None = None,
    answers: tuple[str, ...] = (),
    allowed: tuple[str, ...] = (),
    limits: Limits | None = None,
) -> str:
    # Programs metapkg has no rule for get an empty user rule (the path rule only).
    rules = [CommandRuleSpec(name) for name in allowed if name not in KNOWN]
    services = Services(
        ScriptedAnswers([AskReply(a) for a in answers], "answers.jsonl"),
        CommandPolicy.of(allowed, tmp_path, rules),
        limits or Limits(),
    )
    return execute(Program("demo", "starlark", "SKILL.star", source), input or {}, services)


def body(result: str) -> dict[str, Any]:
    head, _, text = result.partition("\n")
    assert head == "[Metaskill: demo completed]", result
    value: dict[str, Any] = json.loads(text)
    return value


# -- the result contract ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, {"status": "ok", "answer": ""}),
        ("done", {"status": "ok", "answer": "done"}),
        ({"extra": 1}, {"status": "ok", "answer": "", "extra": 1}),
        ({"status": "accepted", "answer": "a"}, {"status": "accepted", "answer": "a"}),
    ],
)
def test_return_values_are_normalised(value: Any, expected: dict[str, Any]) -> None:
    assert envelope.normalise(value) == expected


@pytest.mark.parametrize("value", [42, [1, 2], True, {"answer": 3}, {"status": None}])
def test_other_return_values_are_invalid(value: Any) -> None:
    with pytest.raises(envelope.InvalidReturn):
        envelope.normalise(value)


def test_envelope_drops_trace_first_then_extra_fields_then_cuts_the_answer() -> None:
    trace = [{"kind": "step", "data": {"n": i, "pad": "x" * 50}} for i in range(40)]
    result = {"status": "ok", "answer": "short", "notes": "y" * 300}
    text = envelope.fit(result, trace, 1000)
    assert len(text) <= 1000
    data = json.loads(text)
    assert data["answer"] == "short" and data["notes"] == "y" * 300
    assert data["trace"][-1]["kind"] == "truncated"
    assert data["trace"][-1]["data"]["dropped_entries"] == 40 - (len(data["trace"]) - 1)

    text = envelope.fit({"status": "ok", "answer": "é\n" * 2000, "notes": "y" * 300}, trace, 1000)
    data = json.loads(text)
    assert len(text) <= 1000
    assert data["answer_truncated"] is True and data["answer"].startswith("é\né\n")
    assert data["truncated_fields"] == ["notes"]
    assert data["trace"] == [{"kind": "truncated", "data": {"dropped_entries": 40}}]


def test_success_header_and_compact_json(tmp_path: Path) -> None:
    result = run(
        'def run(input):\n    trace("seen", {"task": input["task"]})\n'
        '    return {"status": "accepted", "answer": input["task"]}\n',
        tmp_path,
        {"task": "t"},
    )
    assert result.splitlines()[1] == (
        '{"status":"accepted","answer":"t","trace":[{"kind":"seen","data":{"task":"t"}}]}'
    )


def test_a_returned_non_json_value_is_an_error(tmp_path: Path) -> None:
    assert run("def run(input):\n    return run\n", tmp_path).startswith(
        "error: invalid return value"
    )
    assert run("def run(input):\n    return 7\n", tmp_path).startswith(
        "error: invalid return value: run(input) returned an int"
    )


# -- program errors and hermeticity -----------------------------------------------------


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("def run(input)\n    return 1\n", "error: syntax error: "),
        ("def run(input):\n    return 1 / 0\n", "error: runtime error: "),
        ('def run(input):\n    return input["missing"]\n', "error: runtime error: "),
        ("x = 42\n", "error: SKILL.star does not define run(input)"),
        ("def run():\n    return 1\n", "error: SKILL.star does not define run(input)"),
        # Hermetic: no file, process, environment or module access, no print.
        ('def run(input):\n    return open("/etc/passwd")\n', "error: syntax error: "),
        ('load("other.star", "x")\ndef run(input):\n    return 1\n', "error: syntax error: "),
        ('def run(input):\n    print("x")\n', "error: syntax error: "),
    ],
)
def test_program_errors_are_error_strings(source: str, expected: str, tmp_path: Path) -> None:
    result = run(source, tmp_path)
    assert result.startswith(expected), result
    assert "\n" not in result


def test_bad_host_call_arguments_are_runtime_errors_at_the_call(tmp_path: Path) -> None:
    result = run("def run(input):\n    x = 1\n    return ask(42)\n", tmp_path)
    assert result == "error: runtime error: ask(): the prompt must be a string (SKILL.star:3)"


def test_runaway_loop_is_stopped_at_the_timeout(tmp_path: Path) -> None:
    source = (
        "def run(input):\n    n = 0\n    for i in range(1000000):\n"
        "        for j in range(1000000):\n            n += 1\n    return n\n"
    )
    result = run(source, tmp_path, limits=Limits().with_overrides(timeout=1))
    assert result == "error: timeout: the metaskill ran longer than 1 s"


def test_runtime_absent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shadow = tmp_path / "shadow" / "starlark"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('starlark-pyo3 is not installed')\n")
    monkeypatch.setenv("PYTHONPATH", str(shadow.parent))
    result = run("def run(input):\n    return 1\n", tmp_path)
    assert result.startswith("error: the starlark runtime is not available"), result


# -- budgets ------------------------------------------------------------------------------


def test_ask_answers_come_in_order_and_the_budget_ends_the_run(tmp_path: Path) -> None:
    source = 'def run(input):\n    return {"a": [ask("q")["answer"] for i in range(2)]}\n'
    assert body(run(source, tmp_path, answers=("one", "two")))["a"] == ["one", "two"]
    greedy = 'def run(input):\n    for i in range(10):\n        ask("q")\n'
    result = run(greedy, tmp_path, answers=("a",) * 10, limits=Limits(max_ask_calls=2))
    assert result.startswith("error: ask budget exhausted"), result


def test_ask_result_shape_and_answer_truncation(tmp_path: Path) -> None:
    source = 'def run(input):\n    return {"r": ask("q", {"purpose": "p", "max_turns": 99})}\n'
    reply = body(run(source, tmp_path, answers=("x" * 50,), limits=Limits(max_answer_chars=10)))
    assert reply["r"] == {"answer": "x" * 10, "exhausted": False, "turns": 1, "truncated": True}


def test_zero_command_budget_and_non_zero_exit(tmp_path: Path) -> None:
    source = 'def run(input):\n    return command(["false"], {"timeout": 5})\n'
    limits = Limits().with_overrides(max_command_calls=0)
    result = run(source, tmp_path, allowed=("false",), limits=limits)
    assert result.startswith("error: command budget exhausted"), result
    reply = body(run(source, tmp_path, allowed=("false",)))
    assert reply["ok"] is False and reply["exit_code"] == 1


def test_trace_calls_are_capped_but_cost_no_budget(tmp_path: Path) -> None:
    source = 'def run(input):\n    for i in range(5):\n        trace("step", {"i": i})\n'
    data = body(run(source, tmp_path, limits=Limits(max_trace_entries=2, max_ask_calls=1)))
    assert data["trace"] == [
        {"kind": "step", "data": {"i": 0}},
        {"kind": "step", "data": {"i": 1}},
        {"kind": "truncated", "data": {"dropped_entries": 3}},
    ]


def test_overrides_are_bounded() -> None:
    assert Limits().with_overrides(max_ask_calls=1, max_command_calls=0).max_command_calls == 0
    for bad in ({"max_ask_calls": 0}, {"max_command_calls": 101}, {"timeout": 301}):
        with pytest.raises(LimitError):
            Limits().with_overrides(**bad)  # type: ignore[arg-type]


# -- the command policy ---------------------------------------------------------------------


def test_commands_outside_the_allowlist_never_start(tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    source = f'def run(input):\n    return command(["touch", {str(marker)!r}])\n'
    for allowed in ((), ("git",)):
        reply = body(run(source, tmp_path, allowed=allowed))
        assert reply["ok"] is False and reply["result"].startswith("error: command 'touch'")
        assert not marker.exists()
    for argv in ('"/usr/bin/touch"', "1"):
        refused = source.replace('"touch"', argv)
        assert body(run(refused, tmp_path, allowed=("touch",)))["ok"] is False
    assert not marker.exists()
    # The same call, allowed, does run: the test above could have seen a marker.
    assert body(run(source, tmp_path, allowed=("touch",)))["ok"] is True
    assert marker.exists()


def test_command_runs_in_the_project_without_a_shell(tmp_path: Path) -> None:
    source = 'def run(input):\n    return command(["pwd"])\n'
    assert body(run(source, tmp_path, allowed=("pwd",)))["result"].strip() == str(tmp_path)
    echo = 'def run(input):\n    return command(["echo", "$HOME", "; touch x"])\n'
    assert body(run(echo, tmp_path, allowed=("echo",)))["result"] == "$HOME ; touch x\n"


def test_command_output_is_cut_and_a_slow_command_is_stopped(tmp_path: Path) -> None:
    python = Path(sys.executable).name
    loud = f'def run(input):\n    return command(["{python}", "-c", "print(\'x\' * 5000)"])\n'
    limits = Limits(max_command_result_chars=100)
    reply = body(run(loud, tmp_path, allowed=(python,), limits=limits))
    assert reply["ok"] is True and reply["truncated"] is True and len(reply["result"]) == 100
    slow = 'def run(input):\n    return command(["sleep", "30"], {"timeout": 1})\n'
    reply = body(run(slow, tmp_path, allowed=("sleep",)))
    assert reply["ok"] is False and reply["exit_code"] is None
    assert "timed out" in reply["result"]


# -- askers ---------------------------------------------------------------------------------


def test_scripted_answers_run_out_with_an_error_answer(tmp_path: Path) -> None:
    path = tmp_path / "answers.jsonl"
    path.write_text('"first"\n\n{"answer": "second", "exhausted": true}\n')
    asker = ScriptedAnswers.read(path)
    replies = [asker(AskRequest("q", None, 1, n, 10.0)) for n in (1, 2, 3)]
    assert [r.answer for r in replies[:2]] == ["first", "second"]
    assert replies[1].exhausted is True
    assert replies[2].answer.startswith("error: no scripted answer left for ask #3")


def test_a_program_over_its_memory_budget_is_a_budget_error(tmp_path: Path) -> None:
    doubling = "def run(input):\n    x = [1]\n    for i in range(64):\n        x = x + x\n"
    result = run(doubling, tmp_path, limits=Limits().with_overrides(max_memory_mib=128))
    assert result.startswith("error: memory budget exhausted: the program needed more than 128")


def test_a_huge_message_from_the_program_is_refused_not_held(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from metapkg.metaskills import host

    monkeypatch.setattr(host, "MAX_MESSAGE_BYTES", 100_000)
    source = 'def run(input):\n    return ask("x" * 200000)\n'
    assert run(source, tmp_path).startswith("error: the program sent a host call or result over")
