"""Retries over real HTTP: announced as events (with when the request goes again), 500 retried like 502-504,
Retry-After honoured in both its forms, and never a retry once a reply has begun. Errors keep their details."""

from __future__ import annotations

import email.utils
import json
import time
from typing import Any

import pytest

from tests.unit.llm.helpers import USER, WEATHER_TOOL, closable, collect, of_type
from tui_agent.llm.client import MAX_RETRY_WAIT, ChatClient
from tui_agent.llm.errors import LLMError, RateLimitedError, ServerError, StreamTruncatedError
from tui_agent.llm.events import RetryScheduled, TextDelta, ToolCallStarted
from tui_agent.offline.server import BackgroundServer

LONG_MESSAGE = " ".join(f"word{n}" for n in range(150)) + " THE-END"
"""About 1,200 characters: the whole of it must survive (it used to be cut at 300, mid-word)."""


def replies(*items: dict[str, Any], then: str = "default") -> dict[str, Any]:
    return {"replies": list(items), "then": then}


def outcomes(server: BackgroundServer) -> list[str]:
    return [record.outcome for record in server.requests]


@pytest.mark.parametrize(
    "offline_server", [replies({"status": 500, "retry_after": 0.01}, {"text": "fine now"})], indirect=True
)
async def test_a_500_is_retried_like_a_busy_server(offline_server: BackgroundServer) -> None:
    events = await collect(offline_server.base_url)
    assert of_type(events, TextDelta) == [TextDelta("fine now")]
    assert outcomes(offline_server) == ["status 500", "ok"]


@pytest.mark.parametrize(
    "offline_server",
    [replies({"status": 429, "retry_after": 0.2}, {"status": 503, "retry_after": 0.01}, {"text": "at last"})],
    indirect=True,
)
async def test_each_retry_is_announced_with_when_the_request_goes_again(offline_server: BackgroundServer) -> None:
    before = time.monotonic()
    events = await collect(offline_server.base_url, max_retries=2)
    retries = of_type(events, RetryScheduled)
    assert [(r.status, r.attempt, r.retries) for r in retries] == [(429, 1, 2), (503, 2, 2)]
    assert before + 0.2 <= retries[0].at < before + 5  # the Retry-After of the server, not a guess
    assert events.index(retries[-1]) < events.index(of_type(events, TextDelta)[0])


async def test_retry_after_as_an_http_date_is_honoured() -> None:
    dated = email.utils.formatdate(time.time() + 3, usegmt=True)  # made now: whole seconds, so 2 to 3 s away
    with BackgroundServer(replies({"status": 429, "retry_after": dated}, {"text": "dated"})) as server:
        client = ChatClient(server.base_url, "offline")
        try:
            stream = closable(client.stream_chat(USER))
            first = await anext(stream)
            asked = time.monotonic()
            await stream.aclose()
        finally:
            await client.aclose()
    assert isinstance(first, RetryScheduled) and first.status == 429
    assert asked + 0.5 < first.at < asked + 4


@pytest.mark.parametrize("offline_server", [replies({"status": 503, "retry_after": 3600})], indirect=True)
async def test_a_retry_after_over_the_cap_is_not_waited_and_says_the_cap(offline_server: BackgroundServer) -> None:
    with pytest.raises(ServerError):
        await collect(offline_server.base_url)
    assert outcomes(offline_server) == ["status 503"]


@pytest.mark.parametrize("offline_server", [replies({"status": 429, "retry_after": 3600})], indirect=True)
async def test_a_long_rate_limit_names_the_cap(offline_server: BackgroundServer) -> None:
    with pytest.raises(RateLimitedError) as raised:
        await collect(offline_server.base_url)
    assert f"at most {MAX_RETRY_WAIT:g} seconds" in raised.value.user_message


@pytest.mark.parametrize(
    "offline_server",
    [
        replies(
            {
                "tool_calls": [{"name": "get_current_weather", "arguments": {"location": "Paris"}}],
                "chunk_size": 4,
                "cut_after": 2,
            },
            then="repeat_last",
        )
    ],
    indirect=True,
)
async def test_a_stream_cut_after_a_tool_call_began_is_not_retried(offline_server: BackgroundServer) -> None:
    seen: list[Any] = []
    client = ChatClient(offline_server.base_url, "offline")
    with pytest.raises(StreamTruncatedError):
        async for event in client.stream_chat(USER, [WEATHER_TOOL]):
            seen.append(event)
    await client.aclose()
    assert of_type(seen, ToolCallStarted) and not of_type(seen, RetryScheduled)
    assert outcomes(offline_server) == ["cut"]


@pytest.mark.parametrize(
    "offline_server",
    [replies({"status": 500, "error_message": LONG_MESSAGE, "retry_after": 0.01}, then="repeat_last")],
    indirect=True,
)
async def test_a_status_error_keeps_the_whole_message_the_request_id_and_the_endpoint(
    offline_server: BackgroundServer,
) -> None:
    with pytest.raises(ServerError) as raised:
        await collect(offline_server.base_url, max_retries=1)
    error = raised.value
    assert LONG_MESSAGE in error.user_message and "after 1 retry" in error.user_message
    assert error.request_id == "req_offline_2" and error.base_url == offline_server.base_url
    assert error.report.splitlines()[-1] == f"endpoint {offline_server.base_url} · request id req_offline_2"


@pytest.mark.parametrize(
    "offline_server",
    [
        replies(
            {
                "raw_events": [
                    '{"choices": [{"index": 0, "delta": {"content": "Hi"}}]}',
                    json.dumps({"error": {"message": LONG_MESSAGE}}),
                ]
            }
        )
    ],
    indirect=True,
)
async def test_an_error_inside_the_stream_keeps_its_details(offline_server: BackgroundServer) -> None:
    with pytest.raises(ServerError) as raised:
        await collect(offline_server.base_url)
    assert LONG_MESSAGE in raised.value.user_message
    assert raised.value.request_id == "req_offline_1"
    assert f"endpoint {offline_server.base_url}" in raised.value.report


def test_credentials_in_the_base_url_are_not_kept() -> None:
    client = ChatClient("https://me:s3cret@example.com:8443/v1?api-key=abc", "m")
    error = client.located(LLMError("x"))
    assert error.base_url == "https://example.com:8443/v1"
