"""Provides the Agere-compatible adapters: `async_dispatcher_tools_call_for_openai` and `LLMAsyncAdapter`.

The tutorial's response handler forks one openai stream into two consumers: text for the user (content
plus `to_user` from tool arguments) and tool calls (one JSON string each). Here the consumers pull
cooperatively: whichever needs the next item reads one chunk from the source under a lock and files
the resulting events into both queues, so there is no background task to leak, an error reaches both
consumers, and when every consumer has closed, the source is closed (which closes the HTTP stream).
"""

from __future__ import annotations

import asyncio
import inspect
import json
from collections import deque
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable
from typing import Any

from tui_agent.llm.assembler import StreamAssembler
from tui_agent.llm.errors import LLMError, MalformedResponseError, ServerError, StreamTruncatedError
from tui_agent.llm.events import StreamEvent, TextDelta, ToolCallInvalid, ToolCallReady, ToUserDelta
from tui_agent.sanitize import replace_surrogates_in

ROLES = {"to_user": "to_user", "function_call": "function_call", "tool_call": "function_call"}


def _failure(error: Exception) -> LLMError:
    """A typed error for whatever the source raised (an LLMError passes through)."""
    if isinstance(error, LLMError):
        return error
    if isinstance(error, UnicodeDecodeError | json.JSONDecodeError | AttributeError | TypeError):
        return MalformedResponseError("The server sent a reply chunk that is not a valid chat-completions event.")
    name = type(error).__name__
    if "Connection" in name or "Protocol" in name or "Read" in name:
        return StreamTruncatedError("The connection closed before the reply was finished. Try again.")
    return ServerError(f"The model stream failed ({name}). Try again in a moment.")


class _Fork:
    """The shared state of one dispatched stream: the source, the assembler and one queue per role."""

    def __init__(self, source: AsyncIterable[Any]) -> None:
        self.source = source.__aiter__()
        self.assembler = StreamAssembler()
        self.queues: dict[str, deque[str]] = {"to_user": deque(), "function_call": deque()}
        self.lock = asyncio.Lock()
        self.done = False
        self.error: LLMError | None = None
        self.open_consumers = 0
        self.events: list[StreamEvent] = []
        """Every event seen (Usage and StreamEnd included), for callers that want more than the two roles."""

    async def pull(self) -> None:
        """Read one chunk and file its events; at the end, check the reply finished."""
        try:
            chunk = await self.source.__anext__()
        except StopAsyncIteration:
            self.done = True
            self._file(self.assembler.complete())
            if self.assembler.finish_reason is None:
                self.error = StreamTruncatedError(
                    "The reply stream ended before the server said it was finished. Try again."
                )
            return
        except Exception as error:  # every failure reaches both consumers as a typed error
            self.done, self.error = True, _failure(error)
            return
        self._file(self.assembler.feed(_as_dict(chunk)))

    def _file(self, events: list[StreamEvent]) -> None:
        self.events.extend(events)
        for event in events:
            if isinstance(event, TextDelta | ToUserDelta):
                self.queues["to_user"].append(event.text)
            elif isinstance(event, ToolCallReady):
                self.queues["function_call"].append(
                    json.dumps(
                        {
                            "tool_call_index": event.index,
                            "tool_call_id": event.id,
                            "name": event.name,
                            "arguments": event.arguments,
                        }
                    )
                )
            elif isinstance(event, ToolCallInvalid):
                # Not dropped: consumers see the call with empty arguments and the reason under "error".
                self.queues["function_call"].append(
                    json.dumps(
                        {
                            "tool_call_index": event.index,
                            "tool_call_id": event.id,
                            "name": event.name,
                            "arguments": {},
                            "raw": event.raw,
                            "error": event.reason,
                        }
                    )
                )

    async def consume(self, role: str) -> AsyncIterator[str]:
        queue = self.queues[role]
        self.open_consumers += 1
        try:
            while True:
                if queue:
                    yield queue.popleft()
                    continue
                if self.done:
                    if self.error is not None:
                        raise self.error
                    return
                async with self.lock:
                    if not queue and not self.done:
                        await self.pull()
        finally:
            self.open_consumers -= 1
            if self.open_consumers == 0 and not self.done:
                await _close(self.source)


def _as_dict(chunk: Any) -> dict[str, Any]:
    """An openai chunk object as the plain dict the assembler reads, lone surrogates (legal in the JSON the
    object was parsed from) replaced by U+FFFD."""
    if not isinstance(chunk, dict):
        chunk = chunk.to_dict() if hasattr(chunk, "to_dict") else chunk.model_dump()
    as_dict: dict[str, Any] = replace_surrogates_in(chunk)
    return as_dict


async def _close(source: Any) -> None:
    closer = getattr(source, "aclose", None)
    if closer is not None:
        await closer()


async def async_dispatcher_tools_call_for_openai(source: AsyncIterable[Any]) -> Callable[[str], AsyncIterator[str]]:
    """Fork an async stream of openai chunks; returns `make_role_generator(role)`.

    Roles: `"to_user"` yields text for the user (content and `to_user` pieces as they stream);
    `"function_call"` (alias `"tool_call"`) yields one JSON string per complete tool call with
    `tool_call_index`, `tool_call_id`, `name` and `arguments` (a dict, without `to_user`).
    """
    fork = _Fork(source)

    def make_role_generator(role: str) -> AsyncIterator[str]:
        if role not in ROLES:
            raise ValueError(f"Unknown role {role!r}; use one of {', '.join(sorted(ROLES))}.")
        return fork.consume(ROLES[role])

    make_role_generator.fork = fork  # type: ignore[attr-defined]  # reachable for tests and diagnostics
    return make_role_generator


Callback = Callable[[], Any]


class LLMAsyncAdapter:
    """Turns the sync or async openai stream into an async iterable (as Agere's adapter does)."""

    def llm_to_async_iterable(
        self,
        response: Iterable[Any] | AsyncIterable[Any],
        at_receiving_start: list[Callback] | None = None,
        at_receiving_end: list[Callback] | None = None,
    ) -> AsyncIterator[Any]:
        """Yield the chunks of `response`; a sync stream is read in a worker thread so the loop never blocks."""
        if isinstance(response, AsyncIterable):
            return _from_async(response, at_receiving_start or [], at_receiving_end or [])
        return _from_sync(response, at_receiving_start or [], at_receiving_end or [])


async def _run_callbacks(callbacks: list[Callback]) -> None:
    for callback in callbacks:
        result = callback()
        if inspect.isawaitable(result):
            await result


async def _from_async(response: AsyncIterable[Any], start: list[Callback], end: list[Callback]) -> AsyncIterator[Any]:
    await _run_callbacks(start)
    try:
        async for chunk in response:
            yield chunk
    finally:
        await _close(response)
        if hasattr(response, "close") and not hasattr(response, "aclose"):
            closed = response.close()
            if inspect.isawaitable(closed):
                await closed
    await _run_callbacks(end)


_END = object()


async def _from_sync(response: Iterable[Any], start: list[Callback], end: list[Callback]) -> AsyncIterator[Any]:
    await _run_callbacks(start)
    iterator = iter(response)
    try:
        while (chunk := await asyncio.to_thread(next, iterator, _END)) is not _END:
            yield chunk
    finally:
        close = getattr(response, "close", None)
        if close is not None:
            await asyncio.to_thread(close)
    await _run_callbacks(end)
