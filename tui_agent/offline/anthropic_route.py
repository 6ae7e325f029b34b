"""Provides `serve_messages`: the offline server's `POST /v1/messages` (Anthropic's Messages API).

The request is checked as the API checks it (the `anthropic-version` header, then `anthropic_protocol.problem`:
an Anthropic-shaped 400), then
answered with the reply the OpenAI route would give the same conversation (scripted replies first, then the
default behaviour), as Anthropic SSE, or as one `message` object when `stream` is not set. The scripted faults
apply where cheap: `status` (an Anthropic error body; `retry_after` sent; 529 is `overloaded_error`), the window
(`enforce_window`: "prompt is too long"), `cut_after`, `stall_after`, and `malformed_after` sends an in-stream
`error` event (`overloaded_error`) at that point, as the API does when it fails mid-reply.
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any

from tui_agent.offline import anthropic_protocol as protocol
from tui_agent.offline.http import ChunkedStream, Request, send_json

if TYPE_CHECKING:
    from tui_agent.offline.server import OfflineServer, RequestRecord


async def serve_messages(
    server: OfflineServer, request: Request, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
) -> bool:
    """Answer one Messages API request; False when the connection must close."""
    if (received := await server.receive(request, writer, protocol.error_body, "request-id")) is None:
        return True
    body, record = received.body, received.record
    found = protocol.problem(body)
    if "anthropic-version" not in request.headers:  # the API refuses a request without it, whatever it holds
        found = "anthropic-version: header is required"
    if found is not None:
        return await server.refuse(writer, received, 400, protocol.error_body(400, found, record.request_id))
    chat = protocol.as_chat_body(body)
    prompt = server.prompt_tokens(chat)
    window = server.scenario.context_window
    if server.scenario.enforce_window and window is not None and prompt >= window:
        said = f"prompt is too long: {prompt} tokens > {window} maximum"
        return await server.refuse(writer, received, 400, protocol.error_body(400, said, record.request_id))
    reply = server.next_reply(chat)
    if reply.status != 200:
        return await server.refuse_as_scripted(writer, received, reply, protocol.error_body)
    tagged = received.headers
    thinking = protocol.thinking_on(body)
    if thinking and not any(reply is scripted for scripted in server.scenario.replies):
        reply = protocol.with_thinking(reply, chat)
    usage = server.usage(chat, reply)
    message_id = f"msg_offline_{record.request_id}"
    events = protocol.events(reply, str(body["model"]), message_id, usage, thinking, protocol.cache_marked(body))
    if not body.get("stream"):
        record.outcome = "ok"
        await send_json(writer, 200, _message(events), tagged)
        return True
    return await _stream(reply.model_dump(), events, record, reader, writer, tagged)


async def _stream(
    faults: dict[str, Any],
    events: list[tuple[str, dict[str, Any]]],
    record: RequestRecord,
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    tagged: dict[str, str],
) -> bool:
    stream = ChunkedStream(writer)
    try:
        kind = {"Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-cache"}
        await stream.open(200, {**kind, **tagged})
        for number, (name, data) in enumerate(events):
            if number == faults["malformed_after"]:
                error = protocol.error_body(529, "Overloaded")
                await stream.write(protocol.sse("error", error))
                record.outcome = "ok"
                await stream.close()
                return True
            if number == faults["cut_after"]:
                record.outcome = "cut"
                await stream.cut()
                return False
            if number == faults["stall_after"]:
                record.outcome = "stalled"
                await stream.stall(reader)
                record.outcome = "client_closed"
                return False
            if number == len(events) - 1:
                record.outcome = "ok"
            await stream.write(protocol.sse(name, data))
            record.events += 1
            if faults["chunk_delay"] and number < len(events) - 1:
                await stream.flush()
                await asyncio.sleep(faults["chunk_delay"])
        await stream.close()
    except ConnectionError:
        if record.outcome != "ok":
            record.outcome = "client_closed"
        return False
    return True


def _message(events: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """The one `message` object a request without `stream` gets: the streamed blocks put together."""
    message: dict[str, Any] = dict(events[0][1]["message"])
    blocks: dict[int, dict[str, Any]] = {}
    raw: dict[int, str] = {}
    for _name, data in events[1:]:
        if data["type"] == "content_block_start":
            blocks[data["index"]] = dict(data["content_block"])
        elif data["type"] == "content_block_delta":
            block, delta = blocks[data["index"]], data["delta"]
            for field, key in (("text", "text"), ("thinking", "thinking"), ("signature", "signature")):
                if key in delta:
                    block[field] = block.get(field, "") + delta[key]
            if "partial_json" in delta:
                raw[data["index"]] = raw.get(data["index"], "") + delta["partial_json"]
        elif data["type"] == "message_delta":
            message.update(data["delta"])
            message["usage"] = {**message["usage"], **data["usage"]}
    for index, text in raw.items():
        blocks[index]["input"] = json.loads(text or "{}")
    message["content"] = [blocks[index] for index in sorted(blocks)]
    return message
