"""Shared bits for the llm tests: a weather tool schema, collecting a stream, waiting for the server."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from typing import Any, TypeVar

from tui_agent.llm.client import ChatClient
from tui_agent.llm.events import StreamEvent

WEATHER_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_current_weather",
        "description": "Get the current weather in a given location",
        "parameters": {
            "type": "object",
            "properties": {
                "to_user": {"type": "string", "description": "What to tell the user while the tool runs."},
                "location": {"type": "string"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            },
            "required": ["location"],
        },
    },
}
USER = [{"role": "user", "content": "hello"}]
T = TypeVar("T")


async def collect(
    base_url: str,
    messages: list[dict[str, Any]] = USER,
    tools: list[dict[str, Any]] | None = None,
    **client_options: Any,
) -> list[StreamEvent]:
    """Every event of one reply (raises what stream_chat raises)."""
    client = ChatClient(base_url, "offline", **client_options)
    try:
        return [event async for event in client.stream_chat(messages, tools)]
    finally:
        await client.aclose()


async def eventually(condition: Callable[[], bool], what: str, limit: float = 10.0) -> None:
    """Wait until `condition()` holds (fails the test after `limit` seconds, which only a bug reaches)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit
    while not condition():
        assert loop.time() < deadline, f"never happened: {what}"
        await asyncio.sleep(0.01)


def closable(stream: AsyncIterator[T]) -> AsyncGenerator[T, None]:
    """`stream` as the async generator it is (the client's and the dispatcher's streams are), to close it early."""
    assert isinstance(stream, AsyncGenerator)
    return stream


def of_type(events: list[StreamEvent], kind: type[Any]) -> list[Any]:
    return [event for event in events if isinstance(event, kind)]
