"""stream_chat over real HTTP against scripted offline replies: every event and tool-call shape."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest

from tests.unit.llm.helpers import USER, WEATHER_TOOL, collect, of_type
from tui_agent.llm import client as client_module
from tui_agent.llm.client import ChatClient, token_limit_parameter
from tui_agent.llm.events import (
    PartDelta,
    StreamEnd,
    TextDelta,
    ToolCallArgumentsDelta,
    ToolCallInvalid,
    ToolCallReady,
    ToolCallStarted,
    ToUserDelta,
    Usage,
)
from tui_agent.offline.scenario import as_scenario
from tui_agent.offline.server import BackgroundServer


def replies(*items: dict[str, Any]) -> dict[str, Any]:
    # Calls numbered per response (`call_0`...), so the expected events can name them.
    return {"replies": list(items), "call_ids": "per_response"}


def chunk(delta: dict[str, Any] | None = None, finish: str | None = None) -> str:
    choice = {"index": 0, "delta": delta or {}, "finish_reason": finish}
    return json.dumps({"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m", "choices": [choice]})


def call_delta(
    index: int, call_id: str | None = None, name: str | None = None, args: str | None = None
) -> dict[str, Any]:
    function: dict[str, Any] = {}
    if name is not None:
        function["name"] = name
    if args is not None:
        function["arguments"] = args
    delta: dict[str, Any] = {"index": index, "function": function}
    if call_id is not None:
        delta.update(id=call_id, type="function")
    return delta


CALL = {"name": "get_current_weather", "arguments": {"location": "Paris", "to_user": 'Checking "Paris" ☀️.'}}


@pytest.mark.parametrize("offline_server", [replies({"text": "Hello *there*", "chunk_size": 4})], indirect=True)
async def test_text_usage_and_end(offline_server: BackgroundServer) -> None:
    events = await collect(offline_server.base_url)
    assert "".join(e.text for e in of_type(events, TextDelta)) == "Hello *there*"
    assert len(of_type(events, TextDelta)) == 4
    assert events[-2:] == [Usage(prompt_tokens=1, completion_tokens=2), StreamEnd("stop")]


@pytest.mark.parametrize("offline_server", [replies({"tool_calls": [CALL], "chunk_size": 3})], indirect=True)
async def test_tool_call_streams_to_user_then_is_ready_without_it(offline_server: BackgroundServer) -> None:
    events = await collect(offline_server.base_url, tools=[WEATHER_TOOL])
    assert of_type(events, ToolCallStarted) == [ToolCallStarted(0, "call_0", "get_current_weather")]
    to_user = of_type(events, ToUserDelta)
    assert "".join(e.text for e in to_user) == 'Checking "Paris" ☀️.'
    assert len(to_user) > 2 and {(e.index, e.id) for e in to_user} == {(0, "call_0")}
    raw = "".join(e.text for e in of_type(events, ToolCallArgumentsDelta))
    ready = of_type(events, ToolCallReady)
    assert ready == [ToolCallReady(0, "call_0", "get_current_weather", {"location": "Paris"}, raw)]
    assert json.loads(raw) == CALL["arguments"]
    assert events[-1] == StreamEnd("tool_calls")


@pytest.mark.parametrize("offline_server", [replies({"tool_calls": [CALL]})], indirect=True)
async def test_without_a_to_user_schema_nothing_is_decoded_but_arguments_still_drop_it(
    offline_server: BackgroundServer,
) -> None:
    tool = json.loads(json.dumps(WEATHER_TOOL))
    del tool["function"]["parameters"]["properties"]["to_user"]
    events = await collect(offline_server.base_url, tools=[tool])
    assert of_type(events, ToUserDelta) == []
    assert of_type(events, ToolCallReady)[0].arguments == {"location": "Paris"}


PARALLEL = [CALL, {"name": "get_current_weather", "arguments": {"location": "Tokyo"}, "id": "call_tokyo"}]


@pytest.mark.parametrize(
    "offline_server",
    [
        replies({"tool_calls": PARALLEL, "chunk_size": 5}),
        replies({"tool_calls": PARALLEL, "arguments_whole": True}),
        replies({"tool_calls": PARALLEL, "calls_start_together": True, "chunk_size": 4}),
        replies({"tool_calls": PARALLEL, "calls_start_together": True, "arguments_whole": True}),
        replies({"tool_calls": PARALLEL, "finish_with_last_delta": True, "chunk_size": 7}),
        replies({"tool_calls": PARALLEL, "finish_reason": "stop"}),
    ],
    ids=["split", "whole-in-first-delta", "start-together", "together-and-whole", "finish-on-last-delta", "stop"],
    indirect=True,
)
async def test_parallel_calls_assemble_by_index(offline_server: BackgroundServer) -> None:
    events = await collect(offline_server.base_url, tools=[WEATHER_TOOL])
    ready = of_type(events, ToolCallReady)
    assert [(r.index, r.id, r.arguments) for r in ready] == [
        (0, "call_0", {"location": "Paris"}),
        (1, "call_tokyo", {"location": "Tokyo"}),
    ]
    assert "".join(e.text for e in of_type(events, ToUserDelta)) == 'Checking "Paris" ☀️.'
    assert [s.id for s in of_type(events, ToolCallStarted)] == ["call_0", "call_tokyo"]
    assert isinstance(events[-1], StreamEnd)


INTERLEAVED = [
    chunk({"role": "assistant", "content": None}),
    chunk({"tool_calls": [call_delta(0, "a", "f", '{"x"'), call_delta(1, "b", "g", '{"y": ')]}),
    chunk({"tool_calls": [call_delta(1, args="2}")]}),
    chunk({"tool_calls": [call_delta(0, args=": 1}")]}, finish="tool_calls"),
    "[DONE]",
]
REUSED_INDEX = [
    chunk({"tool_calls": [call_delta(0, "a", "f", '{"x": 1}')]}),
    chunk({"tool_calls": [call_delta(0, "b", "g", '{"y": 2}')]}),
    chunk(finish="tool_calls"),
    "[DONE]",
]


NO_INDEX = [
    chunk({"tool_calls": [{"id": "a", "type": "function", "function": {"name": "f", "arguments": '{"x"'}}]}),
    chunk({"tool_calls": [{"function": {"arguments": ": 1}"}}]}),
    chunk({"tool_calls": [{"id": "b", "type": "function", "function": {"name": "g", "arguments": "{}"}}]}),
    chunk(finish="tool_calls"),
    "[DONE]",
]


@pytest.mark.parametrize("offline_server", [replies({"raw_events": NO_INDEX})], indirect=True)
async def test_deltas_without_an_index_continue_the_latest_call(offline_server: BackgroundServer) -> None:
    events = await collect(offline_server.base_url)
    ready = of_type(events, ToolCallReady)
    assert [(r.index, r.id, r.name, r.arguments) for r in ready] == [(0, "a", "f", {"x": 1}), (1, "b", "g", {})]


@pytest.mark.parametrize("offline_server", [replies({"raw_events": INTERLEAVED})], indirect=True)
async def test_interleaved_argument_pieces_and_last_delta_with_finish(offline_server: BackgroundServer) -> None:
    events = await collect(offline_server.base_url)
    assert [(r.index, r.name, r.arguments) for r in of_type(events, ToolCallReady)] == [
        (0, "f", {"x": 1}),
        (1, "g", {"y": 2}),
    ]


@pytest.mark.parametrize("offline_server", [replies({"raw_events": REUSED_INDEX})], indirect=True)
async def test_a_new_id_on_a_used_index_is_a_new_call(offline_server: BackgroundServer) -> None:
    events = await collect(offline_server.base_url)
    assert [(r.index, r.id, r.arguments) for r in of_type(events, ToolCallReady)] == [
        (0, "a", {"x": 1}),
        (1, "b", {"y": 2}),
    ]


@pytest.mark.parametrize(
    ("offline_server", "reason_part"),
    [
        (
            replies({"tool_calls": [{"name": "f", "arguments": '{"a": 1, "b": "unfinis'}], "finish_reason": "length"}),
            "token limit",
        ),
        (replies({"tool_calls": [{"name": "f", "arguments": '{"a": 1}'}], "finish_reason": "length"}), "token limit"),
        (replies({"tool_calls": [{"name": "f", "arguments": "{'a': 1}"}]}), "not valid JSON"),
        (replies({"tool_calls": [{"name": "f", "arguments": "[1, 2]"}]}), "JSON object, not list"),
    ],
    ids=["length-cut", "length-complete", "not-json", "not-an-object"],
    indirect=["offline_server"],
)
async def test_calls_that_cannot_run_are_invalid_with_a_reason(
    offline_server: BackgroundServer, reason_part: str
) -> None:
    events = await collect(offline_server.base_url)
    invalid = of_type(events, ToolCallInvalid)
    assert len(invalid) == 1 and of_type(events, ToolCallReady) == []
    assert invalid[0].name == "f" and reason_part in invalid[0].reason
    assert invalid[0].raw == "".join(e.text for e in of_type(events, ToolCallArgumentsDelta))


@pytest.mark.parametrize(
    "offline_server", [replies({"tool_calls": [{"name": "ping", "arguments": ""}]})], indirect=True
)
async def test_empty_arguments_mean_no_arguments(offline_server: BackgroundServer) -> None:
    events = await collect(offline_server.base_url)
    assert of_type(events, ToolCallReady) == [ToolCallReady(0, "call_0", "ping", {}, "")]


@pytest.mark.parametrize(
    "offline_server",
    [
        replies(
            {
                "tool_calls": [
                    {"name": "f", "arguments": '{"to_user": null, "q": "x"}'},
                    {"name": "g", "arguments": '{"q": {"to_user": "nested"}, "to_user": 3}'},
                ]
            }
        )
    ],
    indirect=True,
)
async def test_null_non_string_and_nested_to_user_are_not_spoken(offline_server: BackgroundServer) -> None:
    events = await collect(offline_server.base_url, tools=[WEATHER_TOOL])
    assert of_type(events, ToUserDelta) == []
    assert [r.arguments for r in of_type(events, ToolCallReady)] == [{"q": "x"}, {"q": {"to_user": "nested"}}]


@pytest.mark.parametrize(
    "offline_server",
    [
        replies(
            {"status": 400, "error_message": "Unrecognized request argument supplied: stream_options"}, {"text": "fine"}
        )
    ],
    indirect=True,
)
async def test_server_without_usage_support_is_asked_again_without_it(offline_server: BackgroundServer) -> None:
    events = await collect(offline_server.base_url)
    assert of_type(events, TextDelta) == [TextDelta("fine")] and of_type(events, Usage) == []
    bodies = [r.body for r in offline_server.requests]
    assert [body is not None and "stream_options" in body for body in bodies] == [True, False]


async def test_list_models(offline_server: BackgroundServer) -> None:
    client = ChatClient(offline_server.base_url, "offline")
    assert await client.list_models() == ["offline"]
    assert client.model == "offline"
    await client.aclose()


async def test_default_weather_turn_end_to_end(offline_server: BackgroundServer) -> None:
    question = [{"role": "user", "content": "What's the weather in Paris?"}]
    first = await collect(offline_server.base_url, question, [WEATHER_TOOL])
    call = of_type(first, ToolCallReady)[0]
    assert call.arguments == {"location": "Paris"}
    assert "Paris" in "".join(e.text for e in of_type(first, ToUserDelta))
    follow_up: list[dict[str, Any]] = [
        *question,
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": call.id, "type": "function", "function": {"name": call.name, "arguments": call.raw}}],
        },
        {"role": "tool", "tool_call_id": call.id, "content": '{"location": "Paris", "temperature": 22}'},
    ]
    second = await collect(offline_server.base_url, follow_up, [WEATHER_TOOL])
    assert "22" in "".join(e.text for e in of_type(second, TextDelta))


@pytest.mark.parametrize(
    "offline_server", [replies({"text": "All at once.", "tool_calls": [CALL], "ignore_stream": True})], indirect=True
)
async def test_a_server_that_ignores_stream_still_gives_every_event(offline_server: BackgroundServer) -> None:
    events = await collect(offline_server.base_url, tools=[WEATHER_TOOL])
    assert of_type(events, TextDelta) == [TextDelta("All at once.")]
    assert of_type(events, ToolCallStarted) == [ToolCallStarted(0, "call_0", "get_current_weather")]
    assert "".join(e.text for e in of_type(events, ToUserDelta)) == 'Checking "Paris" ☀️.'
    assert of_type(events, ToolCallReady)[0].arguments == {"location": "Paris"}
    assert isinstance(events[-2], Usage) and events[-1] == StreamEnd("tool_calls")


@pytest.mark.parametrize("offline_server", [{"replies": [{"text": "one two three four five"}]}], indirect=True)
async def test_max_tokens_is_sent_and_a_cut_reply_ends_with_length(offline_server: BackgroundServer) -> None:
    client = ChatClient(offline_server.base_url, "offline", max_tokens=3)
    try:
        events = [event async for event in client.stream_chat([{"role": "user", "content": "hi"}])]
    finally:
        await client.aclose()
    assert (offline_server.requests[-1].body or {})["max_tokens"] == 3
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "one two three"
    assert events[-1] == StreamEnd("length")


@pytest.mark.parametrize(
    ("base_url", "field"),
    [
        ("https://api.openai.com/v1", "max_completion_tokens"),
        ("https://my-resource.openai.azure.com/openai/v1", "max_completion_tokens"),
        ("http://127.0.0.1:8080/v1", "max_tokens"),
        ("https://openrouter.ai/api/v1", "max_tokens"),
        ("https://api.openai.com.evil.example/v1", "max_tokens"),
    ],
)
def test_the_token_limit_field_depends_on_the_server(base_url: str, field: str) -> None:
    assert token_limit_parameter(base_url) == field


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
async def test_reasoning_deltas_of_either_field(field: str) -> None:
    reply = {"reasoning": "First, 2 and 2 make 4.", "reasoning_field": field, "text": "It is 4.", "chunk_size": 5}
    server = BackgroundServer(as_scenario(replies(reply)))
    server.start()
    try:
        events = await collect(server.base_url)
    finally:
        server.stop()
    reasoning = of_type(events, PartDelta)
    assert "".join(e.text for e in reasoning) == "First, 2 and 2 make 4."
    assert len(reasoning) == 5
    assert events.index(reasoning[-1]) < events.index(of_type(events, TextDelta)[0])  # thinking comes first
    assert "".join(e.text for e in of_type(events, TextDelta)) == "It is 4."


@pytest.mark.parametrize(
    "offline_server", [replies({"reasoning": "Short.", "text": "Done.", "ignore_stream": True})], indirect=True
)
async def test_reasoning_of_a_completion_that_was_not_streamed(offline_server: BackgroundServer) -> None:
    events = await collect(offline_server.base_url)
    assert of_type(events, PartDelta) == [PartDelta("reasoning", "Short.")]
    assert of_type(events, TextDelta) == [TextDelta("Done.")]


@pytest.mark.parametrize(
    "offline_server",
    [
        replies(
            {
                "raw_events": [
                    chunk({"role": "assistant", "reasoning_content": "one ", "reasoning": "one "}),
                    chunk({"reasoning_content": "two"}),
                    chunk({"content": "three"}, "stop"),
                ]
            }
        )
    ],
    indirect=True,
)
async def test_a_server_sending_both_fields_is_read_once(offline_server: BackgroundServer) -> None:
    events = await collect(offline_server.base_url)
    assert "".join(e.text for e in of_type(events, PartDelta)) == "one two"


@pytest.mark.parametrize("offline_server", [replies({"text": "x" * 400, "chunk_size": 1})], indirect=True)
async def test_payloads_read_together_leave_the_loop_to_other_tasks(
    offline_server: BackgroundServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A burst of payloads (here: all but the first, sent while the reader was held up) is handled a slice of time
    at a time (`STREAM_SLICE`, none here), with the event loop's other tasks (in the app: keys, frames) between."""
    monkeypatch.setattr(client_module, "STREAM_SLICE", 0.0)
    turns = 0

    async def count_turns() -> None:
        nonlocal turns
        while True:
            turns += 1
            await asyncio.sleep(0)

    client = ChatClient(offline_server.base_url, "offline")
    ticker = asyncio.create_task(count_turns())
    texts: list[str] = []
    try:
        async for event in client.stream_chat(USER):
            if isinstance(event, TextDelta):
                if not texts:
                    time.sleep(0.2)  # noqa: ASYNC251 (held up: the server thread writes the rest, read in a block or two)
                    turns = 0
                texts.append(event.text)
    finally:
        ticker.cancel()
        await client.aclose()
    assert "".join(texts) == "x" * 400
    assert turns >= len(texts) - 1
