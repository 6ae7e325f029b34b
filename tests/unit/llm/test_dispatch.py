"""The Agere adapters over real openai streams from the offline server."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import openai
import pytest
from openai.types.chat import ChatCompletionFunctionToolParam, ChatCompletionMessageParam

from tests.unit.llm.helpers import USER as HELLO
from tests.unit.llm.helpers import WEATHER_TOOL, closable, eventually
from tui_agent.llm.dispatch import LLMAsyncAdapter, async_dispatcher_tools_call_for_openai
from tui_agent.llm.errors import LLMError, StreamTruncatedError
from tui_agent.offline.server import BackgroundServer

WEATHER: list[ChatCompletionMessageParam] = [{"role": "user", "content": "What's the weather in Paris and Tokyo?"}]
USER: list[ChatCompletionMessageParam] = [{"role": "user", "content": HELLO[0]["content"]}]
TOOLS: list[ChatCompletionFunctionToolParam] = [{"type": "function", "function": WEATHER_TOOL["function"]}]


async def drain(generator: AsyncIterator[str]) -> list[str] | LLMError:
    try:
        return [item async for item in generator]
    except LLMError as error:
        return error


async def dispatch(response: Any, call_role: str = "function_call") -> tuple[Any, Any]:
    make = await async_dispatcher_tools_call_for_openai(
        source=LLMAsyncAdapter().llm_to_async_iterable(response=response)
    )
    return await asyncio.gather(drain(make("to_user")), drain(make(call_role)))


@pytest.mark.parametrize("offline_server", [{"call_ids": "per_response"}], indirect=True)
async def test_async_stream_forks_into_user_text_and_tool_calls(offline_server: BackgroundServer) -> None:
    client = openai.AsyncOpenAI(base_url=offline_server.base_url, api_key="k")
    response = await client.chat.completions.create(model="m", messages=WEATHER, tools=TOOLS, stream=True)
    text, calls = await dispatch(response)
    assert "".join(text) == "Let me check the weather in Paris and Tokyo for you."
    assert [json.loads(call) for call in calls] == [
        {
            "tool_call_index": 0,
            "tool_call_id": "call_0",
            "name": "get_current_weather",
            "arguments": {"location": "Paris"},
        },
        {
            "tool_call_index": 1,
            "tool_call_id": "call_1",
            "name": "get_current_weather",
            "arguments": {"location": "Tokyo"},
        },
    ]
    await client.close()


async def test_sync_stream_and_the_tool_call_alias(offline_server: BackgroundServer) -> None:
    client = openai.OpenAI(base_url=offline_server.base_url, api_key="k")
    response = client.chat.completions.create(model="m", messages=USER, stream=True)
    text, calls = await dispatch(response, call_role="tool_call")
    assert "".join(text).startswith("## Hello")
    assert calls == []


@pytest.mark.parametrize(
    "offline_server", [{"replies": [{"text": "partial answer", "chunk_size": 3, "cut_after": 3}]}], indirect=True
)
async def test_a_stream_error_reaches_both_consumers(offline_server: BackgroundServer) -> None:
    client = openai.AsyncOpenAI(base_url=offline_server.base_url, api_key="k")
    response = await client.chat.completions.create(model="m", messages=USER, stream=True)
    text, calls = await asyncio.wait_for(dispatch(response), timeout=30)
    assert isinstance(text, StreamTruncatedError) and isinstance(calls, StreamTruncatedError)
    await client.close()


@pytest.mark.parametrize(
    "offline_server",
    [{"replies": [{"tool_calls": [{"name": "get_current_weather", "arguments": "{'location': 'Paris'}"}]}]}],
    indirect=True,
)
async def test_an_invalid_call_is_not_dropped(offline_server: BackgroundServer) -> None:
    client = openai.AsyncOpenAI(base_url=offline_server.base_url, api_key="k")
    response = await client.chat.completions.create(model="m", messages=WEATHER, stream=True)
    _, calls = await dispatch(response)
    call = json.loads(calls[0])
    assert call["arguments"] == {} and "not valid JSON" in call["error"] and call["raw"] == "{'location': 'Paris'}"
    await client.close()


def test_unknown_role_is_refused() -> None:
    async def scenario() -> None:
        async def empty() -> AsyncIterator[Any]:
            return
            yield

        make = await async_dispatcher_tools_call_for_openai(source=empty())
        with pytest.raises(ValueError, match="Unknown role 'assistant'"):
            make("assistant")

    asyncio.run(scenario())


@pytest.mark.parametrize(
    "offline_server", [{"replies": [{"text": "y" * 500, "chunk_size": 1, "chunk_delay": 0.02}]}], indirect=True
)
async def test_when_every_consumer_stops_the_http_stream_closes(offline_server: BackgroundServer) -> None:
    client = openai.AsyncOpenAI(base_url=offline_server.base_url, api_key="k")
    response = await client.chat.completions.create(model="m", messages=USER, stream=True)
    make = await async_dispatcher_tools_call_for_openai(source=LLMAsyncAdapter().llm_to_async_iterable(response))
    text, calls = make("to_user"), make("function_call")
    assert await anext(text) == "y"
    consumer = asyncio.create_task(drain(calls))
    await asyncio.sleep(0)
    consumer.cancel()
    await closable(text).aclose()
    await eventually(lambda: offline_server.requests[0].outcome == "client_closed", "the server saw the client leave")
    await client.close()
