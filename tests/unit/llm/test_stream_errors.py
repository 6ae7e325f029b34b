"""Every failure of stream_chat over real HTTP: a typed error, a human sentence, no key, no hang."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest

from tests.unit.llm.helpers import USER, closable, collect, eventually, of_type
from tui_agent.llm.client import ChatClient
from tui_agent.llm.errors import (
    AuthenticationFailedError,
    ConnectionFailedError,
    LLMError,
    MalformedResponseError,
    ModelNotFoundError,
    RateLimitedError,
    RequestRejectedError,
    ServerError,
    StreamStalledError,
    StreamTruncatedError,
)
from tui_agent.llm.events import StreamEnd, TextDelta
from tui_agent.offline.server import BackgroundServer

KEY = "sk-test-0123456789abcdefSECRET"


def replies(*items: dict[str, Any], then: str = "default") -> dict[str, Any]:
    return {"replies": list(items), "then": then}


def outcomes(server: BackgroundServer) -> list[str]:
    return [record.outcome for record in server.requests]


@pytest.mark.parametrize(
    ("offline_server", "error_type", "words"),
    [
        (
            replies({"status": 401, "error_message": f"Incorrect API key provided: {KEY}"}),
            AuthenticationFailedError,
            "rejected the API key",
        ),
        (replies({"status": 403}), AuthenticationFailedError, "OPENAI_API_KEY"),
        (
            replies({"status": 404, "error_message": "The model `gpt-9` does not exist"}),
            ModelNotFoundError,
            "does not know the model 'offline'",
        ),
        (
            replies(
                {"status": 500, "error_message": f"boom for {KEY[:14]}...", "retry_after": 0.01}, then="repeat_last"
            ),
            ServerError,
            "failed (500",
        ),
        (replies({"status": 400, "error_message": "context too long"}), RequestRejectedError, "context too long"),
    ],
    ids=["401", "403", "404", "500", "400"],
    indirect=["offline_server"],
)
async def test_status_errors_are_typed_sentences_without_the_key(
    offline_server: BackgroundServer, error_type: type[LLMError], words: str
) -> None:
    with pytest.raises(error_type) as raised:
        await collect(offline_server.base_url, api_key=KEY)
    message = raised.value.user_message
    assert words in message
    assert message.endswith(".") and "Traceback" not in message
    assert KEY not in message and KEY[:14] not in message and KEY not in str(raised.value)
    assert outcomes(offline_server)[0].startswith("status")


@pytest.mark.parametrize("offline_server", [replies({"status": 401})], indirect=True)
async def test_missing_key_is_named_as_missing(offline_server: BackgroundServer) -> None:
    with pytest.raises(AuthenticationFailedError, match="needs an API key and none is set"):
        await collect(offline_server.base_url)


@pytest.mark.parametrize(
    "offline_server", [replies({"status": 429, "retry_after": 0.05}, {"text": "after the wait"})], indirect=True
)
async def test_rate_limit_is_retried_after_retry_after(offline_server: BackgroundServer) -> None:
    events = await collect(offline_server.base_url)
    assert of_type(events, TextDelta) == [TextDelta("after the wait")]
    assert outcomes(offline_server) == ["status 429", "ok"]


@pytest.mark.parametrize(
    "offline_server", [replies({"status": 503, "retry_after": 0.01}, {"text": "back again"})], indirect=True
)
async def test_a_busy_server_is_retried_before_the_first_token(offline_server: BackgroundServer) -> None:
    events = await collect(offline_server.base_url)
    assert of_type(events, TextDelta) == [TextDelta("back again")]
    assert outcomes(offline_server) == ["status 503", "ok"]


@pytest.mark.parametrize(
    "offline_server", [replies({"status": 429, "retry_after": 0.01}, then="repeat_last")], indirect=True
)
async def test_rate_limit_gives_up_clearly_after_max_retries(offline_server: BackgroundServer) -> None:
    with pytest.raises(RateLimitedError) as raised:
        await collect(offline_server.base_url, max_retries=2)
    assert outcomes(offline_server) == ["status 429"] * 3
    assert "after 2 retries" in raised.value.user_message and raised.value.retry_after == 0.01


@pytest.mark.parametrize("offline_server", [replies({"status": 429, "retry_after": 3600})], indirect=True)
async def test_a_very_long_retry_after_is_reported_not_waited(offline_server: BackgroundServer) -> None:
    with pytest.raises(RateLimitedError, match="Try again in 3600 seconds") as raised:
        await collect(offline_server.base_url)
    assert "retr" not in raised.value.user_message  # nothing was retried, so nothing is claimed
    assert outcomes(offline_server) == ["status 429"]


@pytest.mark.parametrize(
    "offline_server",
    [replies({"text": "part one, part two", "chunk_size": 4, "cut_after": 3}, then="repeat_last")],
    indirect=True,
)
async def test_cut_connection_is_truncated_and_never_retried_after_the_first_token(
    offline_server: BackgroundServer,
) -> None:
    received: list[str] = []
    client = ChatClient(offline_server.base_url, "offline")
    with pytest.raises(StreamTruncatedError, match="closed in the middle of the reply"):
        async for event in client.stream_chat(USER):
            if isinstance(event, TextDelta):
                received.append(event.text)
    await client.aclose()
    assert "".join(received) == "part one"
    assert outcomes(offline_server) == ["cut"]


@pytest.mark.parametrize(
    ("offline_server", "error_type", "words"),
    [
        (replies({"text": "abc", "missing_finish_reason": True}), StreamTruncatedError, "ended partway through"),
        (replies({"raw_events": []}), StreamTruncatedError, "before any of it arrived"),
        (replies({"text": "abc", "malformed_after": 2}), MalformedResponseError, "not a valid chat-completions"),
        (replies({"text": "abc", "non_utf8_after": 1}), MalformedResponseError, "not UTF-8"),
        (replies({"html": True}), MalformedResponseError, "web page instead of a model reply"),
        (
            replies({"raw_events": ['{"error": {"message": "overloaded right now"}}']}),
            ServerError,
            "overloaded right now",
        ),
    ],
    ids=["missing-finish-reason", "empty-stream", "malformed-chunk", "non-utf8", "html-200", "error-event"],
    indirect=["offline_server"],
)
async def test_broken_streams_are_typed(
    offline_server: BackgroundServer, error_type: type[LLMError], words: str
) -> None:
    with pytest.raises(error_type) as raised:
        await collect(offline_server.base_url, api_key=KEY)
    assert words in raised.value.user_message and KEY not in raised.value.user_message


async def test_connection_refused_names_the_url() -> None:
    server = BackgroundServer()
    base_url = server.start()
    server.stop()
    with pytest.raises(ConnectionFailedError) as raised:
        await collect(base_url)
    assert "connection refused" in raised.value.user_message
    assert base_url in raised.value.user_message
    with pytest.raises(ConnectionFailedError):
        await ChatClient(base_url, "m").list_models()


@pytest.mark.parametrize(
    "offline_server", [replies({"text": "abcdefgh", "chunk_size": 2, "stall_after": 2})], indirect=True
)
async def test_stall_mid_stream_is_detected_and_closes_the_connection(offline_server: BackgroundServer) -> None:
    with pytest.raises(StreamStalledError, match="nothing arrived for 0.2 seconds"):
        await collect(offline_server.base_url, stall_timeout=0.2)
    await eventually(lambda: outcomes(offline_server) == ["client_closed"], "the server saw the client leave")


@pytest.mark.parametrize("offline_server", [replies({"text": "late", "first_token_delay": 30})], indirect=True)
async def test_slow_first_token_beyond_the_stall_timeout_is_a_stall(offline_server: BackgroundServer) -> None:
    with pytest.raises(StreamStalledError, match="before the first token"):
        await collect(offline_server.base_url, stall_timeout=0.2)


@pytest.mark.parametrize("offline_server", [replies({"text": "late", "first_token_delay": 0.05})], indirect=True)
async def test_slow_first_token_within_the_stall_timeout_is_fine(offline_server: BackgroundServer) -> None:
    events = await collect(offline_server.base_url, stall_timeout=5)
    assert events[-1] == StreamEnd("stop")


@pytest.mark.parametrize("offline_server", [replies({"text": "abc", "chunk_size": 1})], indirect=True)
async def test_a_slow_consumer_is_not_a_stall(offline_server: BackgroundServer) -> None:
    # The stall timeout is long enough for a loaded machine's first token; the consumer is slower still.
    client = ChatClient(offline_server.base_url, "offline", stall_timeout=1.0)
    texts = []
    async for event in client.stream_chat(USER):
        if isinstance(event, TextDelta):
            texts.append(event.text)
            await asyncio.sleep(1.5)  # longer than the stall timeout, while the server has everything sent
    await client.aclose()
    assert "".join(texts) == "abc"


@pytest.mark.parametrize(
    "offline_server", [replies({"text": "x" * 400, "chunk_size": 1, "chunk_delay": 0.02})], indirect=True
)
async def test_cancelling_the_consumer_closes_the_http_stream(offline_server: BackgroundServer) -> None:
    client = ChatClient(offline_server.base_url, "offline")
    first = asyncio.Event()

    async def consume() -> None:
        async for _event in client.stream_chat(USER):
            first.set()

    task = asyncio.create_task(consume())
    await first.wait()
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    assert task.cancelled()
    await eventually(lambda: outcomes(offline_server) == ["client_closed"], "the server saw the client leave")
    await client.aclose()


@pytest.mark.parametrize(
    "offline_server", [replies({"text": "x" * 400, "chunk_size": 1, "chunk_delay": 0.02})], indirect=True
)
async def test_closing_the_stream_early_closes_the_http_stream(offline_server: BackgroundServer) -> None:
    client = ChatClient(offline_server.base_url, "offline")
    async with contextlib.aclosing(closable(client.stream_chat(USER))) as stream:
        async for _event in stream:
            break
    await eventually(lambda: outcomes(offline_server) == ["client_closed"], "the server saw the client leave")
    await client.aclose()


@pytest.mark.parametrize(
    "offline_server",
    [replies({"raw_events": ['{"choices": [{"delta": {"content": "\x1b]52;c;ZXZpbA==\x07hi \u202eevil"}}]']})],
    indirect=True,
)
async def test_a_malformed_chunk_is_quoted_sanitised_in_the_error(offline_server: BackgroundServer) -> None:
    with pytest.raises(MalformedResponseError) as raised:
        await collect(offline_server.base_url, api_key=KEY)
    message = raised.value.user_message
    assert "not a valid chat-completions event before the reply started" in message
    assert """(it began '{"choices": [{"delta": {"content": "hi evil"}}]')""" in message
    assert "\x1b" not in message and "\x07" not in message and "\u202e" not in message


@pytest.mark.parametrize(
    "offline_server", [replies({"raw_events": ['["not", "a", "chunk"]', '{"choices": 7}']})], indirect=True
)
async def test_json_that_is_no_chunk_is_quoted_in_the_error(offline_server: BackgroundServer) -> None:
    with pytest.raises(MalformedResponseError, match=r"""\(it began '\["not", "a", "chunk"\]'\)"""):
        await collect(offline_server.base_url, api_key=KEY)


@pytest.mark.parametrize("offline_server", [replies({"text": "abc", "non_utf8_after": 1})], indirect=True)
async def test_bytes_that_are_not_utf8_are_shown_as_escapes(offline_server: BackgroundServer) -> None:
    with pytest.raises(MalformedResponseError) as raised:
        await collect(offline_server.base_url, api_key=KEY)
    message = raised.value.user_message  # how much comes before and after depends on the network's blocks
    assert "(the first bad bytes, after b'" in message and ": b'\\xff\\xfe" in message


@pytest.mark.parametrize(
    "offline_server",
    [
        replies(
            {
                "raw_events": [
                    '{"choices": [{"delta": {"content": "kept "}}]}',
                    '{"choices": [{"delta": {"content": "too"}}]}',
                    bad,
                ]
            }
        )
        for bad in ("{not json", '{"choices": [{"delta": {"content": " lost", "tool_calls": 5}}]}')
    ],
    indirect=True,
)
async def test_what_came_before_a_bad_payload_is_handed_on_before_its_error(
    offline_server: BackgroundServer,
) -> None:
    """Payloads read in one block are handed on together: a bad one among them must not take the text that
    came before it (the screen and history keep what was shown), and a chunk that fails partway (its text fine,
    its tool calls not) adds none of its events."""
    client = ChatClient(offline_server.base_url, "offline", api_key=KEY)
    texts: list[str] = []
    try:
        with pytest.raises(MalformedResponseError):
            async for event in client.stream_chat(USER):
                if isinstance(event, TextDelta):
                    texts.append(event.text)
    finally:
        await client.aclose()
    assert "".join(texts) == "kept too"
