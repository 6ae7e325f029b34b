"""Provides the chat-completions route for models the offline model does not answer itself: `serve`'s agents and
teams (`agent:NAME`, `team:NAME`), run inside tui-agent by whatever the server is given as its `ServedModels`.

The offline package knows no agent: `ServedModels` is what it asks of one (the names it serves, whether a name is
its, a run as a stream of `Said` pieces between a `Started` and a `Done`), and this route writes that run in
OpenAI's words — SSE chunks (text as `content`, reasoning as `reasoning_content`, usage when asked for, then
`[DONE]`) or one `chat.completion` — with the run's session id in `X-Tui-Agent-Session`. A run refused before
it starts (`ModelRefused`: an unknown agent, nothing to answer) is an OpenAI-shaped 4xx; one that fails after is
a 502 (whole) or an `error` event (streamed), which the openai SDK raises as an `APIError`. A client that hangs
up ends the run (its generator is closed: the turn is cancelled, what was said stays in history).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

from tui_agent.offline import frames
from tui_agent.offline.http import ChunkedStream, send_json

if TYPE_CHECKING:
    from tui_agent.offline.server import OfflineServer, Received

SESSION_HEADER = "X-Tui-Agent-Session"


@dataclass(frozen=True)
class Started:
    """The run began: its session in history."""

    session_id: str


@dataclass(frozen=True)
class Said:
    """More of the answer: its text, or its reasoning."""

    text: str
    kind: Literal["content", "reasoning"] = "content"


@dataclass(frozen=True)
class Done:
    """The run ended: its token counts, and what went wrong when it failed (`error`)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    finish_reason: str = "stop"
    error: str | None = None


Piece = Started | Said | Done


class ModelRefused(Exception):
    """A run that cannot start: the status and OpenAI error code to answer with, and why."""

    def __init__(self, status: int, message: str, code: str) -> None:
        super().__init__(message)
        self.status, self.message, self.code = status, message, code


class ServedModels(Protocol):
    """Models answered by something other than the offline model (tui-agent's agents and teams)."""

    def names(self) -> list[str]:
        """The model ids to list in `/v1/models`."""
        ...

    def claims(self, model: str) -> bool:
        """Whether `model` is one of its kind (`agent:...`), known or not: those never reach the offline model."""
        ...

    def run(self, model: str, body: dict[str, Any]) -> AsyncGenerator[Piece]:
        """Answer the chat request `body` as `model`: `Started`, `Said`..., `Done`; `ModelRefused` before
        `Started` when it cannot."""
        ...


async def serve_served(
    server: OfflineServer,
    models: ServedModels,
    received: Received,
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
) -> bool:
    """Answer `received` with a run of `models`; True: the connection goes on."""
    body = received.body
    model = str(body.get("model"))
    pieces = models.run(model, body)
    try:
        try:
            first = await anext(pieces)
        except ModelRefused as refused:
            error = frames.client_error(refused.message, refused.code)
            return await server.refuse(writer, received, refused.status, error)
        except StopAsyncIteration:
            first = Done(error="The run ended before it began.")
        if isinstance(first, Started):
            received.headers[SESSION_HEADER] = first.session_id
        if body.get("stream"):
            return await _stream(received, model, first, pieces, writer)
        return await _whole(server, received, model, first, pieces, writer)
    finally:
        await pieces.aclose()


async def _collect(first: Piece, pieces: AsyncIterator[Piece]) -> tuple[str, str, Done]:
    texts = {"content": "", "reasoning": ""}
    piece: Piece = first
    while not isinstance(piece, Done):
        if isinstance(piece, Said):
            texts[piece.kind] += piece.text
        piece = await anext(pieces, Done(error="The run ended without saying so."))
    return texts["content"], texts["reasoning"], piece


async def _whole(
    server: OfflineServer,
    received: Received,
    model: str,
    first: Piece,
    pieces: AsyncIterator[Piece],
    writer: asyncio.StreamWriter,
) -> bool:
    text, reasoning, done = await _collect(first, pieces)
    if done.error is not None:
        error = frames.client_error(f"The agent's run failed: {done.error}", "agent_run_failed")
        error["error"]["type"] = "server_error"
        return await server.refuse(writer, received, 502, error)
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if reasoning:
        message["reasoning_content"] = reasoning
    received.record.outcome = "ok"
    body = {
        "id": received.record.request_id.replace("req_offline_", "chatcmpl-served-"),
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": done.finish_reason}],
        "usage": frames.usage_object(done.prompt_tokens, done.completion_tokens),
    }
    await send_json(writer, 200, body, received.headers)
    return True


async def _stream(
    received: Received, model: str, first: Piece, pieces: AsyncIterator[Piece], writer: asyncio.StreamWriter
) -> bool:
    record, body = received.record, received.body
    chunks = frames.ChunkWriter(model, int(time.time()), record.request_id.replace("req_offline_", "chatcmpl-served-"))
    stream = ChunkedStream(writer)
    headers = {"Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-cache", **received.headers}
    try:
        await stream.open(200, headers)
        await _event(stream, record, chunks.chunk({"role": "assistant", "content": ""}, None))
        piece: Piece = first
        while not isinstance(piece, Done):
            if isinstance(piece, Said) and piece.text:
                field = "content" if piece.kind == "content" else "reasoning_content"
                await _event(stream, record, chunks.chunk({field: piece.text}, None))
                await stream.flush()  # each piece as it comes: the client shows the agent working
            piece = await anext(pieces, Done(error="The run ended without saying so."))
        if piece.error is not None:
            said = {"message": f"The agent's run failed: {piece.error}", "type": "server_error"}
            await _event(stream, record, json.dumps({"error": {**said, "code": "agent_run_failed"}}))
            record.outcome = "failed"
        else:
            await _event(stream, record, chunks.chunk({}, piece.finish_reason))
            if (body.get("stream_options") or {}).get("include_usage"):
                await _event(stream, record, chunks.usage(piece.prompt_tokens, piece.completion_tokens))
            record.outcome = "ok"
            await _event(stream, record, "[DONE]")
        await stream.close()
    except ConnectionError:
        if record.outcome not in ("ok", "failed"):
            record.outcome = "client_closed"
        return False
    return True


async def _event(stream: ChunkedStream, record: Any, payload: str) -> None:
    await stream.write(b"data: %s\n\n" % payload.encode())
    record.events += 1
