"""Provides the offline model's Anthropic Messages API: request checks, the request as a chat body, SSE events.

`POST /v1/messages` on the offline server (see `server.py`) answers through here, driven by the same replies
as the OpenAI route (scripted ones, then `behaviour.default_reply` on the request seen as a chat-completions
body: `as_chat_body`). It is as strict as the real API (`problem`): `model` and `max_tokens` required, no
`system` role in `messages`, the user first, roles alternating, no empty text block, each `tool_result`
answering a `tool_use` of the message right before (first in its user message), each `tool_use` answered in
the next message, at most 4 `cache_control` marks, a final assistant message not ending in whitespace, a
thinking budget of at least 1024 and below `max_tokens`, and, with thinking on, a tool loop's assistant
message starting with the thinking block (signature included) it was sent. Refusals are Anthropic-shaped
400s (`error_body`).

Replies stream as the API streams them (`events`): message_start (with input and cache usage: reads from the
offline prompt cache, writes for the rest when the request marks `cache_control`), ping, for each
block content_block_start / _delta (text_delta, thinking_delta then signature_delta, input_json_delta) /
_stop, message_delta with the stop reason and output tokens, message_stop. Thinking is sent only when the
request turns it on, as the API does; an unscripted reply then thinks one deterministic sentence.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from tui_agent.offline import frames
from tui_agent.offline.scenario import Reply, ToolCallSpec

ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}
STOP_REASONS = {"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens"}
SIGNING_SALT = b"tui-agent offline thinking"
MAX_CACHE_MARKS = 4


def error_body(status: int, message: str | None, request_id: str = "") -> dict[str, Any]:
    """An Anthropic error object (`{"type": "error", "error": {"type", "message"}}`)."""
    text = message or f"The offline server was scripted to answer {status}."
    kind = ERROR_TYPES.get(status, "api_error" if status >= 500 else "invalid_request_error")
    body: dict[str, Any] = {"type": "error", "error": {"type": kind, "message": text}}
    if request_id:
        body["request_id"] = request_id
    return body


def signature(thinking: str) -> str:
    """The signature the offline model gives a thinking block (checked when it comes back)."""
    return hashlib.sha256(SIGNING_SALT + thinking.encode()).hexdigest()


def problem(body: dict[str, Any]) -> str | None:
    """What the real API would refuse in `body` (its words), or None."""
    if not isinstance(body.get("model"), str) or not body["model"]:
        return "model: Field required"
    limit = body.get("max_tokens")
    if isinstance(limit, bool) or not isinstance(limit, int):
        return "max_tokens: Field required"
    if limit < 1:
        return "max_tokens: Input should be greater than or equal to 1"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "messages: at least one message is required"
    thinking = body.get("thinking")
    if isinstance(thinking, dict) and thinking.get("type") == "enabled":
        budget = thinking.get("budget_tokens")
        if not isinstance(budget, int) or budget < 1024:
            return "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
        if budget >= limit:
            return "`max_tokens` must be greater than `thinking.budget_tokens`."
    for number, tool in enumerate(body.get("tools") or []):
        if not isinstance(tool, dict) or not tool.get("name") or not isinstance(tool.get("input_schema"), dict):
            return f"tools.{number}: each tool needs a `name` and an `input_schema` object"
    return _messages_problem(messages, thinking_on(body)) or _cache_problem(body)


def cache_marked(body: dict[str, Any]) -> bool:
    """Whether the request marks a block `cache_control`: then the prompt up to the mark is written to the cache."""
    return any(isinstance(block, dict) and "cache_control" in block for block in _all_blocks(body))


def thinking_on(body: dict[str, Any]) -> bool:
    thinking = body.get("thinking")
    return isinstance(thinking, dict) and thinking.get("type") == "enabled"


def _messages_problem(messages: list[Any], thinking: bool) -> str | None:
    previous: dict[str, Any] | None = None
    for number, message in enumerate(messages):
        where = f"messages.{number}"
        if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
            role = message.get("role") if isinstance(message, dict) else None
            return (
                f'{where}: Unexpected role "{role}". The Messages API accepts a top-level `system` parameter, '
                'not "system" as an input message role.'
                if role == "system"
                else f"{where}.role: Input should be 'user' or 'assistant'"
            )
        if number == 0 and message["role"] != "user":
            return 'messages: first message must use the "user" role'
        if previous is not None and previous["role"] == message["role"]:
            return (
                f'messages: roles must alternate between "user" and "assistant", but found multiple '
                f'"{message["role"]}" roles in a row'
            )
        blocks = _blocks(message.get("content"))
        if not blocks:
            return f"{where}: all messages must have non-empty content except for the optional final assistant message"
        for at, block in enumerate(blocks):
            if block.get("type") == "text" and not str(block.get("text", "")).strip():
                return f"{where}.content.{at}.text: text content blocks must contain non-whitespace text"
        if (found := _results_problem(where, blocks, previous)) is not None:
            return found
        if previous is not None and previous["role"] == "assistant":
            asked = [b["id"] for b in _blocks(previous["content"]) if b.get("type") == "tool_use"]
            answered = {b.get("tool_use_id") for b in blocks if b.get("type") == "tool_result"}
            if missing := [call for call in asked if call not in answered]:
                return (
                    f"messages.{number - 1}: `tool_use` ids were found without `tool_result` blocks immediately "
                    f"after: {', '.join(missing)}. Each `tool_use` block must have a corresponding `tool_result` "
                    "block in the next message."
                )
        previous = message
    assert previous is not None
    last_blocks = _blocks(previous["content"])
    if previous["role"] == "assistant":
        if any(b.get("type") == "tool_use" for b in last_blocks):
            ids = ", ".join(b["id"] for b in last_blocks if b.get("type") == "tool_use")
            return (
                f"messages.{len(messages) - 1}: `tool_use` ids were found without `tool_result` blocks immediately "
                f"after: {ids}. Each `tool_use` block must have a corresponding `tool_result` block in the next "
                "message."
            )
        last = last_blocks[-1]
        if last.get("type") == "text" and str(last.get("text")) != str(last.get("text")).rstrip():
            return "messages: final assistant content cannot end with trailing whitespace"
    return _thinking_problem(messages) if thinking else None


def _results_problem(where: str, blocks: list[dict[str, Any]], previous: dict[str, Any] | None) -> str | None:
    asked = (
        {b.get("id") for b in _blocks(previous["content"]) if b.get("type") == "tool_use"}
        if previous is not None and previous["role"] == "assistant"
        else set()
    )
    seen_other = False
    for at, block in enumerate(blocks):
        if block.get("type") != "tool_result":
            seen_other = True
            continue
        if seen_other:
            return f"{where}.content.{at}: tool_result blocks must come before any other content in a user message"
        if block.get("tool_use_id") not in asked:
            return (
                f"{where}.content.{at}: unexpected `tool_use_id` found in `tool_result` blocks: "
                f"{block.get('tool_use_id')}. Each `tool_result` block must have a corresponding `tool_use` "
                "block in the previous message."
            )
    return None


def _thinking_problem(messages: list[dict[str, Any]]) -> str | None:
    """With thinking on, an assistant message whose tool calls the last user message answers starts with its
    thinking block, signed as it was sent."""
    if len(messages) < 2:
        return None
    last, before = _blocks(messages[-1]["content"]), messages[-2]
    if not any(b.get("type") == "tool_result" for b in last):
        return None
    blocks = _blocks(before["content"])
    first = blocks[0]
    if first.get("type") not in ("thinking", "redacted_thinking"):
        return (
            f"messages.{len(messages) - 2}.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
            f"`{first.get('type')}`. When `thinking` is enabled, a final `assistant` message must start with a "
            "thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks)."
        )
    if first.get("type") == "thinking" and first.get("signature") != signature(str(first.get("thinking", ""))):
        return f"messages.{len(messages) - 2}.content.0: Invalid `signature` in `thinking` block"
    return None


def _cache_problem(body: dict[str, Any]) -> str | None:
    marks = sum(1 for block in _all_blocks(body) if isinstance(block, dict) and "cache_control" in block)
    if marks > MAX_CACHE_MARKS:
        return f"A maximum of {MAX_CACHE_MARKS} blocks with cache_control may be provided. Found {marks}."
    return None


def _all_blocks(body: dict[str, Any]) -> list[Any]:
    found: list[Any] = list(body.get("tools") or [])
    system = body.get("system")
    found += system if isinstance(system, list) else []
    for message in body.get("messages") or []:
        found += _blocks(message.get("content"))
    return found


def _blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [block for block in content if isinstance(block, dict)] if isinstance(content, list) else []


def as_chat_body(body: dict[str, Any]) -> dict[str, Any]:
    """`body` as a chat-completions request, for the behaviour and the usage count the OpenAI route has."""
    messages: list[dict[str, Any]] = []
    system = body.get("system")
    if system:
        text = system if isinstance(system, str) else " ".join(str(b.get("text", "")) for b in _blocks(system))
        messages.append({"role": "system", "content": text})
    for message in body.get("messages") or []:
        blocks = _blocks(message.get("content"))
        if message.get("role") == "assistant":
            text = "".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text")
            calls = [
                {
                    "id": b["id"],
                    "type": "function",
                    "function": {"name": b.get("name"), "arguments": json.dumps(b.get("input") or {})},
                }
                for b in blocks
                if b.get("type") == "tool_use"
            ]
            messages.append({"role": "assistant", "content": text or None, **({"tool_calls": calls} if calls else {})})
            continue
        for block in blocks:
            if block.get("type") == "tool_result":
                result = block.get("content")
                said = result if isinstance(result, str) else " ".join(str(b.get("text", "")) for b in _blocks(result))
                messages.append({"role": "tool", "tool_call_id": block.get("tool_use_id"), "content": said})
        parts = [_chat_part(b) for b in blocks if b.get("type") in ("text", "image")]
        if parts:
            simple = all(part["type"] == "text" for part in parts)
            content: Any = "\n".join(part["text"] for part in parts) if simple else parts
            messages.append({"role": "user", "content": content})
    tools = [
        {"type": "function", "function": {"name": t.get("name"), "parameters": t.get("input_schema") or {}}}
        for t in body.get("tools") or []
        if isinstance(t, dict)
    ]
    return {"model": body.get("model"), "messages": messages, "tools": tools, "max_tokens": body.get("max_tokens")}


def _chat_part(block: dict[str, Any]) -> dict[str, Any]:
    if block.get("type") == "text":
        return {"type": "text", "text": str(block.get("text", ""))}
    source = block.get("source") or {}
    url = (
        f"data:{source.get('media_type')};base64,{source.get('data')}"
        if source.get("type") == "base64"
        else str(source.get("url", ""))
    )
    return {"type": "image_url", "image_url": {"url": url}}


def with_thinking(reply: Reply, chat_body: dict[str, Any]) -> Reply:
    """An unscripted reply with thinking on: one deterministic sentence of thinking before it."""
    if reply.reasoning:
        return reply
    names = sorted({call.name for call in reply.all_calls})
    plan = f"I will call {', '.join(names)}." if names else "I can answer directly."
    count = len(chat_body["messages"])
    return reply.model_copy(update={"reasoning": f"The conversation has {count} messages so far. {plan}"})


def events(
    reply: Reply, model: str, message_id: str, usage: tuple[int, int, int], thinking: bool, written: bool = False
) -> list[tuple[str, dict[str, Any]]]:
    """The (event name, data) pairs of the reply's stream; `usage` is (prompt, completion, cached) tokens. With
    `written` (the request marks `cache_control`), the prompt's tokens not read from the cache were written to
    it, as the API counts a prompt cached up to its last block: `cache_creation_input_tokens`."""
    prompt, completion, cached = usage
    fresh = prompt - cached
    start_usage = {
        "input_tokens": 0 if written else fresh,
        "cache_creation_input_tokens": fresh if written else 0,
        "cache_read_input_tokens": cached,
        "output_tokens": 1,
    }
    message: dict[str, Any] = {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": start_usage,
    }
    out: list[tuple[str, dict[str, Any]]] = [("message_start", {"type": "message_start", "message": message})]
    out.append(("ping", {"type": "ping"}))
    index = 0
    calls = 0
    for segment in reply.segments:
        if segment.reasoning and thinking:
            start = {"type": "thinking", "thinking": "", "signature": ""}
            out += _block(index, start, _thinking(reply, segment.reasoning))
            index += 1
        if segment.text:
            deltas = [{"type": "text_delta", "text": piece} for piece in frames.pieces(segment.text, reply.chunk_size)]
            out += _block(index, {"type": "text", "text": ""}, deltas)
            index += 1
        for spec in segment.tool_calls:
            out += _block(index, _tool_use(spec, calls), _json_deltas(reply, spec))
            index += 1
            calls += 1
    reason = STOP_REASONS.get(frames.finish_reason(reply), "end_turn")
    out.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": reason, "stop_sequence": None},
                "usage": {"output_tokens": completion},
            },
        )
    )
    out.append(("message_stop", {"type": "message_stop"}))
    return out


def _thinking(reply: Reply, text: str) -> list[dict[str, Any]]:
    deltas: list[dict[str, Any]] = [
        {"type": "thinking_delta", "thinking": piece} for piece in frames.pieces(text, reply.chunk_size)
    ]
    return [*deltas, {"type": "signature_delta", "signature": signature(text)}]


def _tool_use(spec: ToolCallSpec, number: int) -> dict[str, Any]:
    return {"type": "tool_use", "id": spec.id or f"toolu_offline_{number}", "name": spec.name, "input": {}}


def _json_deltas(reply: Reply, spec: ToolCallSpec) -> list[dict[str, Any]]:
    raw = frames.raw_arguments(spec)
    return [{"type": "input_json_delta", "partial_json": piece} for piece in frames.pieces(raw, reply.chunk_size)]


def _block(index: int, start: dict[str, Any], deltas: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    pairs: list[tuple[str, dict[str, Any]]] = [
        ("content_block_start", {"type": "content_block_start", "index": index, "content_block": start})
    ]
    pairs += [("content_block_delta", {"type": "content_block_delta", "index": index, "delta": d}) for d in deltas]
    pairs.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    return pairs


def sse(name: str, data: dict[str, Any]) -> bytes:
    """One SSE event as the API writes it: its name, then its data."""
    return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()
