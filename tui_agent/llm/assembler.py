"""Provides `StreamAssembler`: turns chat-completion chunks into stream events.

Text deltas pass straight through, and so do the other parts (reasoning, ...), read from the delta
fields `tui_agent.llm.parts.PART_FIELDS` names. Tool calls are
assembled by index: the id and name usually come in a call's first delta and the arguments in pieces
(or whole); several calls may interleave or start in one chunk; a server that reuses an index for a new
call id gets a fresh slot. `to_user` text inside the arguments is decoded incrementally. Calls complete
when a finish reason arrives (or the stream ends): `json.loads` of the whole raw text, `to_user`
removed, or `ToolCallInvalid` with the reason. Arguments whose JSON escapes a lone surrogate
(`"\\ud800"`) get U+FFFD instead, in the parsed object, the raw text (written again) and the `to_user`
text alike.
Works on chunks as decoded JSON (dicts): the client parses the SSE stream itself, which is several times
cheaper per chunk than building openai's models; the Agere adapters convert openai objects with `to_dict`.
"""

from __future__ import annotations

import json
from typing import Any

from tui_agent.llm.events import (
    PartDelta,
    StreamEnd,
    StreamEvent,
    TextDelta,
    ToolCallArgumentsDelta,
    ToolCallInvalid,
    ToolCallReady,
    ToolCallStarted,
    ToUserDelta,
    Usage,
)
from tui_agent.llm.parts import PART_FIELDS, part_deltas
from tui_agent.llm.to_user import ToUserDecoder
from tui_agent.sanitize import may_decode_to_surrogate, replace_surrogates, replace_surrogates_in


class _Call:
    """A tool call being assembled."""

    __slots__ = ("index", "id", "name", "parts", "decoder", "started")

    def __init__(self, index: int, call_id: str | None, decode: bool) -> None:
        self.index = index
        self.id = call_id or f"call_{index}"
        self.name = ""
        self.parts: list[str] = []
        self.decoder = ToUserDecoder() if decode else None
        self.started = False


class StreamAssembler:
    """Feed chunks with `feed`; call `complete` when the stream ends. `finish_reason` and `usage` are kept."""

    def __init__(self, decode_to_user: bool = True) -> None:
        self.decode_to_user = decode_to_user
        self.finish_reason: str | None = None
        self.usage: Usage | None = None
        self.received_content = False
        self._slots: dict[int, _Call] = {}
        self._open: list[_Call] = []
        self._next_index = 0

    def feed(self, chunk: dict[str, Any]) -> list[StreamEvent]:
        """The events one chunk (a decoded `chat.completion.chunk` object) produces, possibly none."""
        events: list[StreamEvent] = []
        self.feed_into(chunk, events)
        return events

    def feed_into(self, chunk: dict[str, Any], events: list[StreamEvent]) -> None:
        """Append the events of one chunk to `events` (a block's payloads share one list: no list per chunk).
        Runs once a chunk, ~100,000 times a long reply: the common chunk (text, or a call's arguments) takes the
        fewest lookups, and a chunk of another shape raises AttributeError, TypeError or KeyError."""
        usage = chunk.get("usage")
        if usage:
            self._usage(usage)
        choices = chunk.get("choices")
        if not choices:
            return
        choice = choices[0]
        delta = choice.get("delta")
        if delta:
            if not delta.keys().isdisjoint(PART_FIELDS):  # most deltas: text or a call's arguments only
                for kind, text in part_deltas(delta):
                    self.received_content = True
                    events.append(PartDelta(kind, text))
            content = delta.get("content")
            if content:
                self.received_content = True
                events.append(TextDelta(content))
            tool_calls = delta.get("tool_calls")
            if tool_calls:
                self.received_content = True
                for tool_call in tool_calls:
                    self._tool_delta(tool_call, events)
        reason = choice.get("finish_reason")
        if reason:
            self.finish_reason = reason
            self._complete_open(events)

    def _usage(self, usage: dict[str, Any]) -> None:
        details = usage.get("prompt_tokens_details")
        details = details if isinstance(details, dict) else {}
        self.usage = Usage(
            usage.get("prompt_tokens") or 0,
            usage.get("completion_tokens") or 0,
            _count(details.get("cached_tokens")),
            _count(details.get("cache_write_tokens")),
        )

    def complete(self) -> list[StreamEvent]:
        """Events for calls still open when the stream ended (finish reason known or not)."""
        events: list[StreamEvent] = []
        self._complete_open(events)
        return events

    def finished(self) -> list[StreamEvent]:
        """The events a reply that said it was finished ends with: its calls still open, its usage when reported,
        and `StreamEnd` with its finish reason (the caller has checked there is one)."""
        if self.finish_reason is None:
            raise ValueError("the reply has not said it is finished")
        events = self.complete()
        if self.usage is not None:
            events.append(self.usage)
        events.append(StreamEnd(self.finish_reason))
        return events

    def _slot(self, server_index: int | None, call_id: str | None) -> _Call:
        if server_index is None:
            # Some servers omit the index: a delta continues the latest call unless it brings a new id.
            latest = self._open[-1] if self._open else None
            if latest is not None and (not call_id or call_id == latest.id):
                return latest
            server_index = max(self._slots, default=-1) + 1
        key = server_index
        call = self._slots.get(key)
        if call is not None and not (call_id and call.started and call_id != call.id):
            return call
        # A new call: its events keep the server's index unless that index was already used.
        index = key if key >= self._next_index else self._next_index
        self._next_index = max(self._next_index, index + 1)
        call = _Call(index, call_id, self.decode_to_user)
        self._slots[key] = call
        self._open.append(call)
        return call

    def _tool_delta(self, tool_call: dict[str, Any], events: list[StreamEvent]) -> None:
        call = self._slot(tool_call.get("index"), tool_call.get("id"))
        function = tool_call.get("function")
        if not function:
            return
        name = function.get("name")
        if name and not call.started:
            call.name = name
            call.started = True
            events.append(ToolCallStarted(call.index, call.id, name))
        arguments = function.get("arguments")
        if not arguments:
            return
        call.parts.append(arguments)
        events.append(ToolCallArgumentsDelta(call.index, call.id, arguments))
        decoder = call.decoder
        if decoder is not None and not decoder.finished:
            text = decoder.feed(arguments)
            if text:
                events.append(ToUserDelta(replace_surrogates(text), call.index, call.id))

    def _complete_open(self, events: list[StreamEvent]) -> None:
        for call in sorted(self._open, key=lambda c: c.index):
            events.append(self._finish_call(call))
        self._open.clear()
        self._slots.clear()

    def _finish_call(self, call: _Call) -> ToolCallReady | ToolCallInvalid:
        raw = "".join(call.parts)
        name = call.name or "(unnamed)"
        if not call.name:
            reason = "The model sent a tool call without a function name."
            return ToolCallInvalid(call.index, call.id, name, raw, reason)
        if self.finish_reason == "length":
            reason = f"The reply hit the token limit while the model was writing the call to {name}; it may be cut off."
            return ToolCallInvalid(call.index, call.id, name, raw, reason)
        try:
            arguments = json.loads(raw) if raw.strip() else {}
        except ValueError as error:
            reason = f"The arguments for {name} are not valid JSON ({getattr(error, 'msg', error)})."
            return ToolCallInvalid(call.index, call.id, name, raw, reason)
        if not isinstance(arguments, dict):
            reason = f"The arguments for {name} must be a JSON object, not {type(arguments).__name__}."
            return ToolCallInvalid(call.index, call.id, name, raw, reason)
        if may_decode_to_surrogate(raw):
            cleaned = replace_surrogates_in(arguments)
            if cleaned != arguments:
                arguments, raw = cleaned, json.dumps(cleaned, ensure_ascii=False)
        arguments.pop("to_user", None)
        return ToolCallReady(call.index, call.id, call.name, arguments, raw)


def _count(value: object) -> int:
    """A token count from a usage object: an integer, else 0 (not reported, or null)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
