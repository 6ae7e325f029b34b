"""The Anthropic provider over real HTTP on 127.0.0.1: the offline model's `/v1/messages` (one strict server for
the module, scripted per test) and a recorded real Messages API stream replayed by a tiny local server. Text,
thinking as reasoning (its signature sent back in the tool loop), parallel tool calls answered with
`tool_result` blocks the strict endpoint accepts, retries on 529 and 429, "prompt is too long" as
`ContextTooLongError`, other errors typed, usage with cache reads and writes, and its cost."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tests.unit.llm.helpers import WEATHER_TOOL, of_type
from tui_agent.llm.anthropic_client import AnthropicClient
from tui_agent.llm.errors import (
    AuthenticationFailedError,
    ContextTooLongError,
    RateLimitedError,
    ServerError,
    StreamTruncatedError,
)
from tui_agent.llm.events import (
    PartDelta,
    RetryScheduled,
    StreamEnd,
    StreamEvent,
    TextDelta,
    ToolCallReady,
    Usage,
)
from tui_agent.offline.server import BackgroundServer
from tui_agent.prices import PriceTable

RECORDED = Path(__file__).parents[2] / "fixtures" / "anthropic" / "tool_use_response.sse"
PARIS_AND_TOKYO = [
    {"role": "system", "content": "You are helpful."},
    {"role": "user", "content": "What's the weather in Paris and in Tokyo?"},
]


@pytest.fixture(scope="module")
def server() -> Iterator[BackgroundServer]:
    """One strict offline model for the module; each test scripts the replies it needs."""
    with BackgroundServer({"strict": True}) as started:
        yield started


@pytest.fixture
def offline(server: BackgroundServer) -> BackgroundServer:
    server.server.script([])
    server.server.scenario = server.server.scenario.model_copy(update={"enforce_window": False})
    server.requests.clear()
    return server


async def stream(client: AnthropicClient, messages: list[dict[str, Any]], tools: Any = None) -> list[StreamEvent]:
    return [event async for event in client.stream_chat(messages, tools)]


def text(events: list[StreamEvent]) -> str:
    return "".join(event.text for event in of_type(events, TextDelta))


def as_history(messages: list[dict[str, Any]], events: list[StreamEvent], answers: list[str]) -> list[dict[str, Any]]:
    """`messages` with the reply's tool calls and an answer for each, as the conversation records them."""
    calls = of_type(events, ToolCallReady)
    assistant = {
        "role": "assistant",
        "content": text(events),
        "tool_calls": [
            {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": call.raw}}
            for call in calls
        ],
    }
    results = [
        {"role": "tool", "tool_call_id": call.id, "content": answer}
        for call, answer in zip(calls, answers, strict=True)
    ]
    return [*messages, assistant, *results]


async def test_text_streams_with_the_system_prompt_apart_and_cache_marks(offline: BackgroundServer) -> None:
    offline.server.script([{"text": "Hello **world**, from Claude.", "chunk_size": 4}])
    client = AnthropicClient(offline.base_url, "claude-haiku-4-5", "key")
    events = await stream(client, PARIS_AND_TOKYO)
    await client.aclose()
    assert text(events) == "Hello **world**, from Claude."
    assert len(of_type(events, TextDelta)) > 1  # streamed, not one piece
    assert events[-1] == StreamEnd("stop")
    [record] = offline.requests
    assert record.path == "/v1/messages" and record.outcome == "ok"
    body = record.body
    assert body is not None and body["max_tokens"] > 0 and body["stream"] is True
    assert body["system"] == [{"type": "text", "text": "You are helpful.", "cache_control": {"type": "ephemeral"}}]
    assert [message["role"] for message in body["messages"]] == ["user"]
    assert body["messages"][-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}


async def test_two_tool_calls_in_one_reply_then_tool_results_the_endpoint_accepts(offline: BackgroundServer) -> None:
    client = AnthropicClient(offline.base_url, "claude-haiku-4-5", "key")
    events = await stream(client, PARIS_AND_TOKYO, [WEATHER_TOOL])
    ready = of_type(events, ToolCallReady)
    assert [call.name for call in ready] == ["get_current_weather"] * 2  # parallel: both in one reply
    assert ready[0].arguments["location"] == "Paris" and "Tokyo" in ready[1].arguments["location"]
    assert events[-1] == StreamEnd("tool_calls")

    answered = await stream(client, as_history(PARIS_AND_TOKYO, events, ["18°C, sunny", "25°C, rain"]), [WEATHER_TOOL])
    await client.aclose()
    assert [record.outcome for record in offline.requests] == ["ok", "ok"]  # the strict endpoint took it
    second = offline.requests[1].body
    assert second is not None
    assistant, results = second["messages"][1], second["messages"][2]
    assert [block["type"] for block in assistant["content"]] == ["tool_use", "tool_use"]  # said in `to_user`
    assert [block["tool_use_id"] for block in results["content"]] == [call.id for call in ready]
    assert "18°C" in text(answered) and answered[-1] == StreamEnd("stop")


async def test_thinking_streams_as_reasoning_and_goes_back_signed_in_the_tool_loop(offline: BackgroundServer) -> None:
    client = AnthropicClient(offline.base_url, "claude-haiku-4-5", "key", thinking_budget=1024)
    events = await stream(client, PARIS_AND_TOKYO, [WEATHER_TOOL])
    reasoning = "".join(event.text for event in of_type(events, PartDelta) if event.kind == "reasoning")
    assert reasoning.startswith("The conversation has")
    assert offline.requests[0].body is not None and offline.requests[0].body["thinking"]["budget_tokens"] == 1024

    history = as_history(PARIS_AND_TOKYO, events, ["18°C", "25°C"])
    await stream(client, history, [WEATHER_TOOL])
    assert offline.requests[1].outcome == "ok", "the thinking block and its signature went back"
    sent = offline.requests[1].body
    assert sent is not None and sent["messages"][1]["content"][0]["type"] == "thinking"

    fresh = AnthropicClient(offline.base_url, "claude-haiku-4-5", "key", thinking_budget=1024)
    await stream(fresh, history, [WEATHER_TOOL])  # a tool loop it did not see begin: no signature to send back
    assert offline.requests[2].outcome == "ok"
    assert offline.requests[2].body is not None and "thinking" not in offline.requests[2].body
    await asyncio.gather(client.aclose(), fresh.aclose())


async def test_overloaded_and_rate_limited_requests_are_retried(offline: BackgroundServer) -> None:
    offline.server.script(
        [{"status": 529}, {"status": 429, "retry_after": 0.01}, {"text": "fine now"}],
    )
    client = AnthropicClient(offline.base_url, "claude-haiku-4-5", "key", max_retries=2)
    events = await stream(client, PARIS_AND_TOKYO)
    await client.aclose()
    assert [event.status for event in of_type(events, RetryScheduled)] == [529, 429]
    assert text(events) == "fine now"


async def test_errors_are_typed(offline: BackgroundServer) -> None:
    offline.server.script(
        [
            {"status": 429, "retry_after": 7},
            {"status": 401},
            {"status": 529},
            {"malformed_after": 3},
            {"text": "cut short here", "chunk_size": 2, "cut_after": 5},
        ]
    )
    client = AnthropicClient(offline.base_url, "claude-haiku-4-5", "key", max_retries=0)
    with pytest.raises(RateLimitedError) as limited:
        await stream(client, PARIS_AND_TOKYO)
    assert limited.value.retry_after == 7
    with pytest.raises(AuthenticationFailedError):
        await stream(client, PARIS_AND_TOKYO)
    with pytest.raises(ServerError, match="overloaded"):
        await stream(client, PARIS_AND_TOKYO)
    with pytest.raises(ServerError, match="overloaded_error"):  # an `error` event inside the stream
        await stream(client, PARIS_AND_TOKYO)
    with pytest.raises(StreamTruncatedError):  # the connection dropped before message_stop
        await stream(client, PARIS_AND_TOKYO)
    await client.aclose()


async def test_a_prompt_too_long_is_context_too_long(offline: BackgroundServer) -> None:
    offline.server.scenario = offline.server.scenario.model_copy(update={"enforce_window": True, "context_window": 5})
    client = AnthropicClient(offline.base_url, "claude-haiku-4-5", "key")
    with pytest.raises(ContextTooLongError) as refused:
        await stream(client, PARIS_AND_TOKYO)
    await client.aclose()
    assert refused.value.window == 5 and refused.value.prompt_tokens == 11


async def test_usage_counts_cache_reads_and_writes_and_costs_them_at_the_cache_prices(
    offline: BackgroundServer,
) -> None:
    client = AnthropicClient(offline.base_url, "claude-haiku-4-5", "key")
    asked = [_user("Name three rivers of Europe, please, for the cache test.")]  # no other test sent it
    first = of_type(await stream(client, asked), Usage)
    again = of_type(await stream(client, [*asked, {"role": "assistant", "content": "Rhine."}, _user("More")]), Usage)
    await client.aclose()
    assert first[0].cached_tokens == 0 and first[0].completion_tokens > 0
    assert first[0].cache_write_tokens == first[0].prompt_tokens  # marked to its last block: all of it written
    usage = again[0]
    assert 0 < usage.cached_tokens < usage.prompt_tokens  # the earlier request's prefix was read from the cache
    assert usage.cache_write_tokens == usage.prompt_tokens - usage.cached_tokens  # and the rest written
    cost = PriceTable.with_overrides().cost("claude-haiku-4-5", usage)
    expected = (
        usage.cache_write_tokens * Decimal("1.25")  # 1.25 times the input price
        + usage.cached_tokens * Decimal("0.10")  # 0.1 times
        + usage.completion_tokens * Decimal("5.00")
    ) / 1_000_000
    assert cost == expected


def _user(said: str) -> dict[str, Any]:
    return {"role": "user", "content": said}


@pytest.fixture
async def recorded() -> AsyncIterator[str]:
    """A local server answering every request with the recorded stream's bytes; its base URL."""
    payload = RECORDED.read_bytes()

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        length = 0
        while (line := await reader.readline()) not in (b"\r\n", b""):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        await reader.readexactly(length)
        head = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n"
        writer.write(head + b"Content-Length: %d\r\n\r\n" % len(payload) + payload)
        await writer.drain()
        writer.close()

    served = await asyncio.start_server(answer, "127.0.0.1", 0)
    port = served.sockets[0].getsockname()[1]
    yield f"http://127.0.0.1:{port}"
    served.close()
    await served.wait_closed()


async def test_a_recorded_real_stream_is_text_a_tool_call_and_usage(recorded: str) -> None:
    client = AnthropicClient(recorded, "claude-sonnet-4-20250514", "key")
    events = await stream(client, [_user("What's the weather in Paris?")], [WEATHER_TOOL])
    await client.aclose()
    assert text(events) == "I'll check the current weather in Paris for you."
    [call] = of_type(events, ToolCallReady)
    assert (call.id, call.name, call.arguments) == (
        "toolu_01NRLabsLyVHZPKxbKvkfSMn",
        "get_weather",
        {"location": "Paris"},
    )
    assert of_type(events, Usage) == [Usage(377, 65, 0)]
    assert events[-1] == StreamEnd("tool_calls")
