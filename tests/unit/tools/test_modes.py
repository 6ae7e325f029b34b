"""Permission modes in the runner: each mode's verdict per effect, config's deny beating every mode, the
read-only refusal reaching the model, auto's sandbox (refused without one unless the loud flag)."""

from __future__ import annotations

import pytest

from tui_agent.config import ToolsSettings
from tui_agent.status import ToolStatus
from tui_agent.tool_call import Decision, ToolCall
from tui_agent.tools import tool
from tui_agent.tools.modes import Mode, Permissions, decide, start_mode
from tui_agent.tools.registry import ToolRegistry
from tui_agent.tools.runner import ToolRunner
from tui_agent.tools.spec import Effect


@tool(approval="never", effect="read")
def read_notes(topic: str) -> str:
    """Read the notes on a topic."""
    return f"notes on {topic}"


@tool(approval="ask", effect="edit")
def write_notes(text: str) -> str:
    """Write notes (asks first)."""
    return f"wrote {text}"


@tool(approval="ask", effect="command")
def run_it(command: str) -> str:
    """Run a command (asks first)."""
    return f"ran {command}"


@tool(approval="never")
def mystery() -> str:
    """Does something undeclared, unasked."""
    return "did it"


ARGUMENTS = {"read_notes": {"topic": "owls"}, "write_notes": {"text": "x"}, "run_it": {"command": "ls"}, "mystery": {}}


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("read-only", {"read": "run", "edit": "refuse", "command": "refuse", "unknown": "refuse"}),
        ("ask", {"read": "ask", "edit": "ask", "command": "ask", "unknown": "ask"}),
        ("auto-edit", {"read": "ask", "edit": "run", "command": "ask", "unknown": "ask"}),
        ("auto", {"read": "run", "edit": "run", "command": "run", "unknown": "run"}),
        ("plan", {"read": "run", "edit": "refuse", "command": "refuse", "unknown": "refuse"}),
    ],
)
def test_each_mode_decides_by_the_tools_effect(mode: Mode, expected: dict[Effect, str]) -> None:
    assert {effect: decide(mode, effect) for effect in expected} == expected


async def outcomes(runner: ToolRunner) -> dict[str, str]:
    """Each tool called once: what happened ("asked" when put to the user, who allows it)."""
    asked: list[str] = []

    async def ask(call: ToolCall) -> Decision:
        asked.append(call.name)
        return Decision.ALLOW_ONCE

    calls = [ToolCall(f"c{index}", name, arguments=args) for index, (name, args) in enumerate(ARGUMENTS.items())]
    done = await runner.run(calls, lambda call: None, ask)
    return {call.name: "asked" if call.name in asked else call.status.value for call in done}


def runner_in(mode: Mode, settings: ToolsSettings | None = None) -> ToolRunner:
    runner = ToolRunner(ToolRegistry.from_functions([read_notes, write_notes, run_it, mystery], settings))
    runner.permissions = Permissions(lambda: None)  # a sandbox is ready
    assert runner.permissions.switch(mode) is None
    return runner


async def test_the_runner_follows_the_mode_and_config_deny_beats_auto() -> None:
    done, denied = ToolStatus.DONE.value, ToolStatus.DENIED.value
    assert await outcomes(runner_in("ask")) == {
        "read_notes": done, "write_notes": "asked", "run_it": "asked", "mystery": done,
    }  # fmt: skip
    assert await outcomes(runner_in("auto-edit")) == {
        "read_notes": done, "write_notes": done, "run_it": "asked", "mystery": done,
    }  # fmt: skip
    assert await outcomes(runner_in("read-only")) == {
        "read_notes": done, "write_notes": denied, "run_it": denied, "mystery": denied,
    }  # fmt: skip
    auto = runner_in("auto", ToolsSettings(approval={"run_it": "deny"}))
    assert await outcomes(auto) == {"read_notes": done, "write_notes": done, "run_it": denied, "mystery": done}


async def test_read_only_tells_the_model_which_mode_allows_the_call() -> None:
    runner = runner_in("read-only")
    (refused,) = await runner.run([ToolCall("c1", "write_notes", arguments={"text": "x"})], lambda call: None)

    assert refused.status is ToolStatus.DENIED
    assert "read-only mode" in (refused.error or "") and "auto-edit mode" in (refused.error or "")


def test_auto_needs_the_sandbox_unless_the_loud_flag_and_turns_it_on() -> None:
    runner = ToolRunner(ToolRegistry.from_functions([read_notes]))
    refused = start_mode(runner.permissions, "auto", "ask")  # the default: no sandbox in this build

    assert refused is not None and "--dangerously-auto-without-sandbox" in refused
    assert runner.permissions.mode == "ask" and not runner.sandbox_commands
    assert runner.permissions.cycle() == ("auto-edit", None)
    mode, skipped = runner.permissions.cycle()  # auto cannot start: the cycle passes it by and says why
    assert mode == "plan" and skipped is not None and "sandbox" in skipped

    assert start_mode(runner.permissions, "auto", "ask", unsandboxed=True) is None
    sub_agent = runner.with_policy(None)
    assert runner.sandbox_commands and sub_agent.sandbox_commands  # the sub-agent shares the mode
    runner.permissions.switch("ask")
    assert not sub_agent.sandbox_commands
    assert start_mode(runner.permissions, None, "auto-edit") is None and runner.permissions.mode == "auto-edit"
