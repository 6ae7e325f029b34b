"""Provides the wire format of a scripted reply: SSE chunk payloads for streaming, one JSON body otherwise.

Chunks follow the OpenAI chat-completions stream: a role delta, reasoning pieces (when scripted, in the
field the reply names), content pieces, tool-call deltas keyed by index (id and name in the first delta of
each call, then argument pieces) — again for each interleaved segment —, a finish chunk, an optional usage
chunk, then `[DONE]`.
"""

from __future__ import annotations

import json
import re
from typing import Any

from tui_agent.offline.scenario import Reply, Segment, ToolCallSpec

Delta = dict[str, Any]


def call_id(spec: ToolCallSpec, index: int) -> str:
    """The id of a scripted call: its own, or `call_<index>`."""
    return spec.id or f"call_{index}"


def raw_arguments(spec: ToolCallSpec) -> str:
    """The argument text exactly as the model sends it."""
    return spec.arguments if isinstance(spec.arguments, str) else json.dumps(spec.arguments)


def finish_reason(reply: Reply) -> str:
    """The finish reason to send: the scripted one, or what the content implies."""
    if reply.finish_reason is not None:
        return reply.finish_reason
    return "tool_calls" if reply.all_calls else "stop"


def pieces(text: str, size: int) -> list[str]:
    """Split `text` into pieces of `size` characters (at least one piece, possibly empty)."""
    size = max(size, 1)
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def token_limit(body: dict[str, Any]) -> int | None:
    """The request's limit on reply tokens (`max_completion_tokens`, else `max_tokens`), if it set one."""
    for key in ("max_completion_tokens", "max_tokens"):
        value = body.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None


def within_limit(reply: Reply, limit: int | None) -> Reply:
    """`reply` cut after `limit` tokens (words, as usage counts them) with `finish_reason: "length"`, as a
    server cuts a reply at `max_tokens`: reasoning counts too, in the order it streams (cut arguments are not
    JSON)."""
    if limit is None or reply.raw_events is not None:
        return reply
    kept: list[Segment] = []
    left = limit
    for segment in reply.segments:
        cut, left = _segment_within(segment, left)
        kept.append(cut)
        if left < 0:
            first, *rest = kept
            return reply.model_copy(
                update={
                    "reasoning": first.reasoning,
                    "text": first.text,
                    "interleaved": rest,
                    "tool_calls": first.tool_calls,
                    "finish_reason": "length",
                }
            )
    return reply


def _segment_within(segment: Segment, left: int) -> tuple[Segment, int]:
    """`segment` cut after `left` words, and the words left after it (-1: it was cut)."""
    reasoning = _first_words(segment.reasoning, left)
    if reasoning is not None:
        return Segment(reasoning=reasoning), -1
    left -= len(segment.reasoning.split())
    text = _first_words(segment.text, left)
    if text is not None:
        return Segment(reasoning=segment.reasoning, text=text), -1
    left -= len(segment.text.split())
    calls = list[ToolCallSpec]()
    for spec in segment.tool_calls:
        raw = raw_arguments(spec)
        cut = _first_words(raw, left)
        if cut is not None:
            calls.append(spec.model_copy(update={"arguments": cut}))
            return segment.model_copy(update={"tool_calls": calls}), -1
        calls.append(spec)
        left -= len(raw.split())
    return segment, left


def _first_words(text: str, count: int) -> str | None:
    """`text` up to the end of its `count`-th word, or None when it has no more words than that."""
    words = list(re.finditer(r"\S+", text))
    if len(words) <= count:
        return None
    return text[: words[count - 1].end()] if count > 0 else ""


def _call_start(spec: ToolCallSpec, index: int, arguments: str) -> Delta:
    function = {"name": spec.name, "arguments": arguments}
    return {"index": index, "id": call_id(spec, index), "type": "function", "function": function}


def _argument_deltas(reply: Reply, index: int, raw: str) -> list[Delta]:
    return [
        {"tool_calls": [{"index": index, "function": {"arguments": piece}}]} for piece in pieces(raw, reply.chunk_size)
    ]


def _tool_call_deltas(reply: Reply, specs: list[ToolCallSpec], first: int) -> list[Delta]:
    """The deltas of `specs`, whose indexes start at `first` (calls of an interleaved segment go on counting)."""
    raws = [raw_arguments(spec) for spec in specs]
    first_args = raws if reply.arguments_whole else ["" for _ in raws]
    starts = [_call_start(spec, first + i, first_args[i]) for i, spec in enumerate(specs)]
    deltas: list[Delta] = []
    if reply.calls_start_together and starts:
        deltas.append({"tool_calls": starts})
    for i, start in enumerate(starts):
        if not reply.calls_start_together:
            deltas.append({"tool_calls": [start]})
        if not reply.arguments_whole and raws[i]:
            deltas.extend(_argument_deltas(reply, first + i, raws[i]))
    return deltas


def _segment_deltas(reply: Reply) -> list[Delta]:
    """The reply's `delta_fields`, then reasoning, text and calls of each of its segments, in order."""
    deltas: list[Delta] = [
        {name: piece} for name, text in reply.delta_fields.items() for piece in pieces(text, reply.chunk_size)
    ]
    calls = 0
    for segment in reply.segments:
        if segment.reasoning:
            deltas.extend({reply.reasoning_field: piece} for piece in pieces(segment.reasoning, reply.chunk_size))
        if segment.text:
            deltas.extend({"content": piece} for piece in pieces(segment.text, reply.chunk_size))
        deltas.extend(_tool_call_deltas(reply, segment.tool_calls, calls))
        calls += len(segment.tool_calls)
    return deltas


def reply_deltas(reply: Reply) -> list[tuple[Delta, str | None]]:
    """The (delta, finish_reason) pairs of a reply, in order."""
    deltas: list[Delta] = [{"role": "assistant", "content": ""}, *_segment_deltas(reply)]
    pairs: list[tuple[Delta, str | None]] = [(delta, None) for delta in deltas]
    if reply.missing_finish_reason:
        return pairs
    reason = finish_reason(reply)
    if reply.finish_with_last_delta and len(pairs) > 1:
        pairs[-1] = (pairs[-1][0], reason)
    else:
        pairs.append(({}, reason))
    return pairs


class ChunkWriter:
    """Turns deltas into `data:` payloads for one response (shared id, model and timestamp)."""

    def __init__(self, model: str, created: int, completion_id: str) -> None:
        self.prefix = json.dumps(
            {"id": completion_id, "object": "chat.completion.chunk", "created": created, "model": model}
        )[:-1]

    def chunk(self, delta: Delta, reason: str | None) -> str:
        choice = {"index": 0, "delta": delta, "finish_reason": reason}
        return f'{self.prefix}, "choices": [{json.dumps(choice)}]}}'

    def usage(self, prompt_tokens: int, completion_tokens: int, cached_tokens: int = 0) -> str:
        usage = usage_object(prompt_tokens, completion_tokens, cached_tokens)
        return f'{self.prefix}, "choices": [], "usage": {json.dumps(usage)}}}'


def usage_object(prompt_tokens: int, completion_tokens: int, cached_tokens: int = 0) -> dict[str, Any]:
    """OpenAI's usage object: the counts, and how many prompt tokens came from the prompt cache."""
    return {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
        "prompt_tokens_details": {"cached_tokens": cached_tokens},
    }


def completion_body(
    reply: Reply, model: str, created: int, completion_id: str, usage: tuple[int, int, int]
) -> dict[str, Any]:
    """The non-streaming `chat.completion` object for a reply."""
    text, reasoning = "".join(s.text for s in reply.segments), "".join(s.reasoning for s in reply.segments)
    message: dict[str, Any] = {"role": "assistant", "content": text or None}
    if reasoning:
        message[reply.reasoning_field] = reasoning
    message.update(reply.delta_fields)
    if reply.all_calls:
        message["tool_calls"] = [
            {
                "id": call_id(spec, i),
                "type": "function",
                "function": {"name": spec.name, "arguments": raw_arguments(spec)},
            }
            for i, spec in enumerate(reply.all_calls)
        ]
    return {
        "id": completion_id,
        "object": "chat.completion",
        "created": created,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason(reply)}],
        "usage": usage_object(*usage),
    }


def error_body(status: int, message: str | None) -> dict[str, Any]:
    """An OpenAI-style error object for a status code."""
    kinds = {401: "invalid_api_key", 404: "model_not_found", 429: "rate_limit_exceeded"}
    text = message or f"The offline server was scripted to answer {status}."
    return {"error": {"message": text, "type": "offline_scripted_error", "code": kinds.get(status)}}


def client_error(message: str, code: str) -> dict[str, Any]:
    """An OpenAI-style error object for a request the server refuses (no key, a foreign `Host`)."""
    return {"error": {"message": message, "type": "invalid_request_error", "param": None, "code": code}}
