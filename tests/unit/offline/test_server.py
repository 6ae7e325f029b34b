"""The offline server over real HTTP, through the official openai client."""

from __future__ import annotations

import json
from typing import Any

import openai
import pytest

from tui_agent.offline.server import BackgroundServer, OfflineServer

WEATHER_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_current_weather",
        "description": "Get the current weather in a given location",
        "parameters": {
            "type": "object",
            "properties": {"to_user": {"type": "string"}, "location": {"type": "string"}},
            "required": ["location"],
        },
    },
}


def client(server: BackgroundServer) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.base_url, api_key="any-key", max_retries=0)


def stream_text(server: BackgroundServer, **params: Any) -> tuple[str, list[Any]]:
    chunks = list(client(server).chat.completions.create(model="whatever", stream=True, **params))
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    return text, chunks


def test_base_url_is_local_and_models_are_listed(offline_server: BackgroundServer) -> None:
    assert offline_server.base_url.startswith("http://127.0.0.1:")
    assert offline_server.base_url.endswith("/v1")
    assert [m.id for m in client(offline_server).models.list().data] == ["offline"]


def test_default_answer_is_markdown_with_heading_list_and_code(offline_server: BackgroundServer) -> None:
    text, chunks = stream_text(offline_server, messages=[{"role": "user", "content": "Explain asyncio please"}])
    assert text.startswith("## Explain asyncio please")
    assert "\n- " in text
    assert "```python\n" in text
    assert len(chunks) > 3, "the answer streams in several chunks"
    assert chunks[-1].choices[0].finish_reason == "stop"


def test_non_streaming_request_gets_one_completion(offline_server: BackgroundServer) -> None:
    reply = client(offline_server).chat.completions.create(
        model="gpt-anything", messages=[{"role": "user", "content": "hi"}]
    )
    assert reply.model == "gpt-anything"
    assert reply.choices[0].message.content is not None
    assert reply.choices[0].message.content.startswith("## Hi")
    assert reply.usage is not None and reply.usage.prompt_tokens == 1


def test_usage_chunk_only_when_requested(offline_server: BackgroundServer) -> None:
    messages = [{"role": "user", "content": "one two three"}]
    _, without = stream_text(offline_server, messages=messages)
    _, with_usage = stream_text(offline_server, messages=messages, stream_options={"include_usage": True})
    assert all(c.usage is None for c in without)
    assert with_usage[-1].choices == []
    assert with_usage[-1].usage is not None and with_usage[-1].usage.prompt_tokens == 3


def _tool_calls(chunks: list[Any]) -> dict[int, dict[str, str]]:
    calls: dict[int, dict[str, str]] = {}
    for chunk in chunks:
        for delta in (chunk.choices[0].delta.tool_calls or []) if chunk.choices else []:
            call = calls.setdefault(delta.index, {"name": "", "arguments": ""})
            call["name"] += delta.function.name or ""
            call["arguments"] += delta.function.arguments or ""
    return calls


def test_weather_question_with_tools_streams_a_tool_call_with_to_user(offline_server: BackgroundServer) -> None:
    messages = [{"role": "user", "content": "What's the weather in Paris?"}]
    _, chunks = stream_text(offline_server, messages=messages, tools=[WEATHER_TOOL])
    calls = _tool_calls(chunks)
    assert list(calls) == [0]
    assert calls[0]["name"] == "get_current_weather"
    arguments = json.loads(calls[0]["arguments"])
    assert arguments["location"] == "Paris"
    assert "Paris" in arguments["to_user"]
    assert sum(1 for c in chunks if c.choices and c.choices[0].delta.tool_calls) > 2, "arguments arrive in pieces"
    assert chunks[-1].choices[0].finish_reason == "tool_calls"


def test_two_cities_give_two_parallel_calls(offline_server: BackgroundServer) -> None:
    messages = [{"role": "user", "content": "weather in Paris and Tokyo?"}]
    _, chunks = stream_text(offline_server, messages=messages, tools=[WEATHER_TOOL])
    calls = _tool_calls(chunks)
    assert [json.loads(calls[i]["arguments"])["location"] for i in (0, 1)] == ["Paris", "Tokyo"]


def test_no_to_user_when_the_schema_lacks_it(offline_server: BackgroundServer) -> None:
    tool = json.loads(json.dumps(WEATHER_TOOL))
    del tool["function"]["parameters"]["properties"]["to_user"]
    _, chunks = stream_text(offline_server, messages=[{"role": "user", "content": "weather in Oslo"}], tools=[tool])
    assert json.loads(_tool_calls(chunks)[0]["arguments"]) == {"location": "Oslo"}


def test_answer_uses_the_tool_result(offline_server: BackgroundServer) -> None:
    messages = [
        {"role": "user", "content": "What's the weather in Paris?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "call_0", "type": "function", "function": {"name": "get_current_weather", "arguments": "{}"}}
            ],
        },
        {
            "role": "tool",
            "tool_call_id": "call_0",
            "content": '{"location": "Paris", "temperature": "22", "unit": "celsius"}',
        },
    ]
    text, _ = stream_text(offline_server, messages=messages, tools=[WEATHER_TOOL])
    assert "Paris" in text and "22" in text and "°C" in text


def test_unknown_route_is_a_404_error_object(offline_server: BackgroundServer) -> None:
    with pytest.raises(openai.NotFoundError):
        client(offline_server).completions.create(model="m", prompt="x")


@pytest.mark.parametrize(
    "offline_server",
    [{"replies": [{"text": "first"}, {"status": 503, "retry_after": 7, "error_message": "busy"}], "then": "default"}],
    indirect=True,
)
def test_scripted_replies_are_served_in_order_then_default(offline_server: BackgroundServer) -> None:
    messages = [{"role": "user", "content": "hello"}]
    assert stream_text(offline_server, messages=messages)[0] == "first"
    with pytest.raises(openai.InternalServerError) as raised:
        stream_text(offline_server, messages=messages)
    assert raised.value.response.headers["retry-after"] == "7"
    assert "busy" in str(raised.value)
    assert stream_text(offline_server, messages=messages)[0].startswith("## Hello")
    assert [r.outcome for r in offline_server.requests] == ["ok", "status 503", "ok"]


@pytest.mark.parametrize("offline_server", [{"replies": [{"html": True}]}], indirect=True)
def test_html_fault_answers_200_with_a_web_page(offline_server: BackgroundServer) -> None:
    response = client(offline_server).chat.completions.with_raw_response.create(
        model="m", messages=[{"role": "user", "content": "x"}], stream=True
    )
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")


async def test_offline_server_runs_inside_an_existing_loop() -> None:
    server = OfflineServer({"replies": [{"text": "inside"}]})
    base_url = await server.start()
    try:
        async_client = openai.AsyncOpenAI(base_url=base_url, api_key="k")
        reply = await async_client.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
        assert reply.choices[0].message.content == "inside"
        await async_client.close()
    finally:
        await server.stop()


def test_background_server_stops_and_frees_its_thread() -> None:
    server = BackgroundServer()
    server.start()
    server.stop()
    assert server._thread is None
    with pytest.raises(openai.APIConnectionError):
        openai.OpenAI(base_url=server.base_url, api_key="k", max_retries=0).models.list()
    with server:  # and starts again
        assert [m.id for m in openai.OpenAI(base_url=server.base_url, api_key="k").models.list().data] == ["offline"]


INTERLEAVED = {
    "replies": [
        {
            "reasoning": "First I think.",
            "text": "Looking.",
            "chunk_size": 64,
            "tool_calls": [{"name": "a", "arguments": {"x": 1}}],
            "interleaved": [{"reasoning": " Then again, between calls.", "tool_calls": [{"name": "b"}]}],
        }
    ],
    "then": "repeat_last",
}


@pytest.mark.parametrize("offline_server", [INTERLEAVED], indirect=True)
def test_interleaved_reasoning_streams_in_order_and_counts_as_completion_tokens(
    offline_server: BackgroundServer,
) -> None:
    _, chunks = stream_text(
        offline_server, messages=[{"role": "user", "content": "go"}], stream_options={"include_usage": True}
    )
    order = []
    for chunk in chunks[:-1]:
        delta = chunk.choices[0].delta.model_dump()
        order += [kind for kind in ("reasoning_content", "content", "tool_calls") if delta.get(kind)]
    assert order == ["reasoning_content", "content", *["tool_calls"] * 2, "reasoning_content", *["tool_calls"] * 2]
    calls = [call for c in chunks[:-1] for call in c.choices[0].delta.tool_calls or []]
    assert [call.index for call in calls if call.id] == [0, 1]
    usage = chunks[-1].usage
    # 3 + 4 reasoning words, 1 word of text, 2 of arguments ('{"x":', '1}') and 1 ('{}'): 11, as a server counts
    assert usage is not None and usage.completion_tokens == 11
    whole = client(offline_server).chat.completions.create(model="m", messages=[{"role": "user", "content": "go"}])
    assert whole.usage is not None and whole.usage.completion_tokens == 11
    assert [call.model_dump()["function"]["name"] for call in whole.choices[0].message.tool_calls or []] == ["a", "b"]


@pytest.mark.parametrize(
    "offline_server", [{"replies": [{"reasoning": "one two three", "text": "four"}]}], indirect=True
)
def test_reasoning_words_are_completion_tokens(offline_server: BackgroundServer) -> None:
    _, chunks = stream_text(
        offline_server, messages=[{"role": "user", "content": "go"}], stream_options={"include_usage": True}
    )
    assert chunks[-1].usage is not None and chunks[-1].usage.completion_tokens == 4
