"""Our provider-neutral history as a Messages API request (`to_anthropic`), checked against the offline endpoint's
copy of the API's rules (`anthropic_protocol.problem`), which is itself checked to refuse what the API refuses."""

from __future__ import annotations

from typing import Any

import pytest

from tui_agent.llm.anthropic_format import MISSING_RESULT, PLACEHOLDER, ThinkingMemory, mark_cache, to_anthropic
from tui_agent.offline.anthropic_protocol import problem, signature


def call(call_id: str, name: str = "get_time", arguments: str = "{}") -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def request(messages: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    system, turns = to_anthropic(messages)
    mark_cache(system, turns, [])
    return {"model": "claude-haiku-4-5", "max_tokens": 100, "messages": turns, "system": system, **extra}


MESSY: list[list[dict[str, Any]]] = [
    [  # two users in a row, an empty assistant, a system notice midway
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "one"},
        {"role": "user", "content": "two"},
        {"role": "assistant", "content": ""},
        {"role": "system", "content": "The user switched models."},
        {"role": "user", "content": "three"},
    ],
    [  # parallel calls, results, then the user again; an image
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "see"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
            ],
        },
        {
            "role": "assistant",
            "content": "Checking.",
            "tool_calls": [call("a"), call("b", "get_weather", '{"city": "Oslo"}')],
        },
        {"role": "tool", "tool_call_id": "a", "content": "12:00"},
        {"role": "tool", "tool_call_id": "b", "content": ""},
        {"role": "user", "content": "thanks"},
    ],
    [  # a call never answered, a result answering nothing, the assistant first, a trailing space
        {"role": "assistant", "content": "Hello "},
        {"role": "assistant", "content": None, "tool_calls": [call("c")]},
        {"role": "tool", "tool_call_id": "zzz", "content": "stray"},
        {"role": "user", "content": "go on"},
        {"role": "assistant", "content": "Sure "},
    ],
]


@pytest.mark.parametrize("messages", MESSY)
def test_any_history_becomes_a_request_the_api_accepts(messages: list[dict[str, Any]]) -> None:
    assert problem(request(messages)) is None


def test_what_the_conversion_does() -> None:
    system, turns = to_anthropic(MESSY[0])
    assert system == [{"type": "text", "text": "Be brief."}]
    assert [turn["role"] for turn in turns] == ["user"]  # merged: the empty assistant message said nothing
    assert [block["text"] for block in turns[0]["content"]] == [
        "one",
        "two",
        "[system] The user switched models.",
        "three",
    ]

    _system, turns = to_anthropic(MESSY[1])
    assert turns[0]["content"][1] == {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"},
    }
    assert turns[1]["content"][2]["input"] == {"city": "Oslo"}
    assert [block["type"] for block in turns[2]["content"]] == ["tool_result", "tool_result", "text"]

    _system, turns = to_anthropic(MESSY[2])
    assert turns[0]["content"] == [{"type": "text", "text": PLACEHOLDER}]
    answered = turns[2]["content"]
    assert answered[0] == {"type": "tool_result", "tool_use_id": "c", "content": MISSING_RESULT, "is_error": True}
    assert answered[1] == {"type": "text", "text": "Tool result: stray"}
    assert turns[-1]["content"][-1]["text"] == "Sure"


def test_kept_thinking_goes_back_before_the_calls_it_preceded() -> None:
    memory = ThinkingMemory()
    block = {"type": "thinking", "thinking": "Plan.", "signature": signature("Plan.")}
    memory.keep("a", [block])
    history = [*MESSY[1][:4]]
    _system, turns = to_anthropic(history, memory)
    assert turns[1]["content"][0] == block
    assert (
        problem(
            {
                "model": "m",
                "max_tokens": 2048,
                "messages": turns,
                "thinking": {"type": "enabled", "budget_tokens": 1024},
            }
        )
        is None
    )


REFUSED = [
    ({"model": "m", "messages": [{"role": "user", "content": "hi"}]}, "max_tokens: Field required"),
    (
        {
            "model": "m",
            "max_tokens": 5,
            "messages": [{"role": "system", "content": "x"}, {"role": "user", "content": "hi"}],
        },
        "top-level `system` parameter",
    ),
    (
        {
            "model": "m",
            "max_tokens": 5,
            "messages": [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}],
        },
        "roles must alternate",
    ),
    (
        {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": [{"type": "text", "text": ""}]}]},
        "non-whitespace",
    ),
    (
        {
            "model": "m",
            "max_tokens": 5,
            "messages": [
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t2", "content": "x"}]},
            ],
        },
        "unexpected `tool_use_id`",
    ),
    (
        {
            "model": "m",
            "max_tokens": 5,
            "messages": [
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}]},
                {"role": "user", "content": "and?"},
            ],
        },
        "without `tool_result` blocks",
    ),
    (
        {
            "model": "m",
            "max_tokens": 2048,
            "thinking": {"type": "enabled", "budget_tokens": 1024},
            "messages": [
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "x"}]},
            ],
        },
        "Expected `thinking` or `redacted_thinking`",
    ),
]


@pytest.mark.parametrize(("body", "said"), REFUSED)
def test_the_offline_endpoint_refuses_what_the_api_refuses(body: dict[str, Any], said: str) -> None:
    found = problem(body)
    assert found is not None and said in found
