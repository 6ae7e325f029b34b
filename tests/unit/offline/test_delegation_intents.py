"""The offline model delegates: a prompt asking an agent whose `ask_<agent>` tool is offered calls it with the
task, one call per agent asked; as the sub-agent it speaks as its system prompt says; it passes answers on."""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.offline.test_behaviour import SHIPPED, tool
from tui_agent.offline.behaviour import answer_from_tool_results, default_reply
from tui_agent.offline.intents import match_tools

ASKS = [tool("ask_researcher", "to_user", "task", required=("task",)), tool("ask_coder", "to_user", "task")]


@pytest.mark.parametrize(
    ("prompt", "expected"),
    [
        ("ask the researcher what the weather is in Paris", [("ask_researcher", "What the weather is in Paris")]),
        (
            "Ask the researcher and the coder to list the files",
            [("ask_researcher", "List the files"), ("ask_coder", "List the files")],
        ),
        ("ask the coder: run `ls`", [("ask_coder", "Run `ls`")]),
    ],
)
def test_a_prompt_asking_agents_calls_their_tools_with_the_task(prompt: str, expected: list[tuple[str, str]]) -> None:
    calls = match_tools(prompt, [*SHIPPED, *ASKS])
    assert [(call.name, dict(call.arguments)["task"]) for call in calls] == expected  # type: ignore[arg-type]


def test_a_sub_agent_speaks_as_its_system_prompt_says_and_its_answer_is_passed_on() -> None:
    body = {
        "messages": [{"role": "system", "content": "You are a careful researcher."}, {"role": "user", "content": "hi"}]
    }
    assert "offline model** playing a careful researcher" in default_reply(body).text
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "ask the researcher"},
        {"role": "assistant", "tool_calls": [{"id": "c1", "function": {"name": "ask_researcher", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "Paris is sunny."},
    ]
    assert answer_from_tool_results(messages) == "The researcher says:\n\n> Paris is sunny.\n"
