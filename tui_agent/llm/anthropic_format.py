"""Provides `to_anthropic`: our provider-neutral history (OpenAI-shaped chat messages) as a Messages API request.

History is stored in one shape whatever the provider, so a session can switch provider mid-way; the shape is
translated here, at request time, into what Anthropic's Messages API accepts:

- system messages before the first other message become the top-level `system` blocks; a later one (a notice
  in the middle of a conversation) is said as the user's words, since the API has no system role in `messages`;
- an assistant's tool calls become `tool_use` blocks (arguments parsed: `input` is an object), `tool` messages
  become `tool_result` blocks at the start of the next user turn; a call left without a result gets one saying
  so, and a result that answers no call of the message before it becomes text (the API refuses both);
- roles strictly alternate (consecutive messages of one role merge), the first is the user's, and no text block
  is empty (the API refuses an empty one) nor does a final assistant message end in whitespace;
- images (`image_url` parts, data URLs or web URLs) become `image` blocks with a base64 or url source;
- prompt caching: `cache_control` marks the last tool, the last system block and the last block of the last
  message, so each request reads the prefix the one before wrote (at most 4 marks, as the API allows);
- thinking blocks the provider kept (by the id of the tool call they preceded: `ThinkingMemory`) go back at the
  start of their assistant message, as the API requires while thinking is on.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from typing import Any

Block = dict[str, Any]
EPHEMERAL = {"type": "ephemeral"}
MISSING_RESULT = "No result was recorded for this tool call."
PLACEHOLDER = "(continuing the conversation)"
"""Said as the user's first words when a history starts with the assistant (the API wants the user first)."""


class ThinkingMemory:
    """The thinking blocks (with their signatures) that came before the tool calls of recent replies, by the
    first call's id: the API needs them sent back while thinking is on, and history keeps only their text."""

    LIMIT = 64

    def __init__(self) -> None:
        self._blocks: OrderedDict[str, list[Block]] = OrderedDict()

    def keep(self, call_id: str, blocks: list[Block]) -> None:
        self._blocks[call_id] = blocks
        while len(self._blocks) > self.LIMIT:
            self._blocks.popitem(last=False)

    def blocks_for(self, call_ids: list[str]) -> list[Block] | None:
        return self._blocks.get(call_ids[0]) if call_ids else None


def to_anthropic(
    messages: Iterable[Mapping[str, Any]], thinking: ThinkingMemory | None = None
) -> tuple[list[Block], list[dict[str, Any]]]:
    """The `system` blocks and `messages` of a Messages API request for our `messages`; `thinking` (when
    thinking is on) gives back the thinking blocks of assistant messages that made tool calls."""
    system: list[Block] = []
    turns: list[dict[str, Any]] = []
    started = False
    for message in messages:
        role = message.get("role")
        if role == "system" and not started:
            system.extend(_text_blocks(message.get("content")))
            continue
        started = True
        if role == "assistant":
            _append(turns, "assistant", _assistant_blocks(message, thinking))
        elif role == "tool":
            result = {
                "type": "tool_result",
                "tool_use_id": str(message.get("tool_call_id")),
                "content": _result_content(message.get("content")),
            }
            _append(turns, "user", [result])
        else:  # user, or a system message past the start
            _append(turns, "user", _user_blocks(message.get("content"), said_by_system=role == "system"))
    turns = _answered(turns)
    if turns and turns[0]["role"] == "assistant":
        turns.insert(0, {"role": "user", "content": [{"type": "text", "text": PLACEHOLDER}]})
    _trim_final_assistant(turns)
    return system, turns


def tools_to_anthropic(tools: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """OpenAI function tools as Anthropic tools (`name`, `description`, `input_schema`)."""
    converted: list[dict[str, Any]] = []
    for tool in tools or []:
        function = tool.get("function") or {}
        entry: dict[str, Any] = {
            "name": function.get("name", ""),
            "input_schema": function.get("parameters") or {"type": "object", "properties": {}},
        }
        if function.get("description"):
            entry["description"] = function["description"]
        converted.append(entry)
    return converted


def mark_cache(system: list[Block], messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> None:
    """Put prompt-cache breakpoints on the last tool, the last system block and the last message's last block
    (not a thinking block: the API refuses a mark there)."""
    for blocks in (tools, system):
        if blocks:
            blocks[-1]["cache_control"] = dict(EPHEMERAL)
    if messages:
        content = messages[-1]["content"]
        markable = [block for block in content if block.get("type") not in ("thinking", "redacted_thinking")]
        if markable:
            markable[-1]["cache_control"] = dict(EPHEMERAL)


def _append(turns: list[dict[str, Any]], role: str, blocks: list[Block]) -> None:
    """Add `blocks` as a `role` turn, merged into the last turn when it is that role's too."""
    if not blocks:
        return
    if turns and turns[-1]["role"] == role:
        turns[-1]["content"].extend(blocks)
    else:
        turns.append({"role": role, "content": blocks})


def _answered(turns: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`turns` where every tool_use has its tool_result first in the next user turn, and every tool_result
    answers a tool_use of the turn before (otherwise it is said as text)."""
    fixed: list[dict[str, Any]] = []
    for number, turn in enumerate(turns):
        if turn["role"] == "assistant":
            fixed.append(turn)
            calls = [block["id"] for block in turn["content"] if block["type"] == "tool_use"]
            following = turns[number + 1] if number + 1 < len(turns) else None
            if calls and (following is None or following["role"] != "user"):
                results = [_missing(call) for call in calls]
                fixed.append({"role": "user", "content": results})
            continue
        asked = _calls_of(fixed[-1]) if fixed and fixed[-1]["role"] == "assistant" else []
        results, others = [], []
        for block in turn["content"]:
            if block["type"] != "tool_result":
                others.append(block)
            elif block["tool_use_id"] in asked and all(r["tool_use_id"] != block["tool_use_id"] for r in results):
                results.append(block)
            else:
                others.append({"type": "text", "text": f"Tool result: {_plain(block['content']) or '(empty)'}"})
        answered = {block["tool_use_id"] for block in results}
        results += [_missing(call) for call in asked if call not in answered]
        content = results + others
        if fixed and fixed[-1]["role"] == "user":
            fixed[-1]["content"].extend(content)
        elif content:
            fixed.append({"role": "user", "content": content})
    return fixed


def _calls_of(turn: dict[str, Any]) -> list[str]:
    return [block["id"] for block in turn["content"] if block["type"] == "tool_use"]


def _missing(call_id: str) -> Block:
    return {"type": "tool_result", "tool_use_id": call_id, "content": MISSING_RESULT, "is_error": True}


def _trim_final_assistant(turns: list[dict[str, Any]]) -> None:
    """A final assistant message (a prefill the reply continues) may not end in whitespace."""
    if not turns or turns[-1]["role"] != "assistant":
        return
    content = turns[-1]["content"]
    last = content[-1]
    if last["type"] == "text":
        last["text"] = last["text"].rstrip()
        if not last["text"]:
            content.pop()
    if not content:
        turns.pop()


def _assistant_blocks(message: Mapping[str, Any], thinking: ThinkingMemory | None) -> list[Block]:
    blocks = _text_blocks(message.get("content"))
    calls = [call for call in message.get("tool_calls") or [] if isinstance(call, dict)]
    uses = [_tool_use(call, number) for number, call in enumerate(calls)]
    kept = thinking.blocks_for([use["id"] for use in uses]) if thinking is not None else None
    return [*(kept or []), *blocks, *uses]


def _tool_use(call: Mapping[str, Any], number: int) -> Block:
    function = call.get("function") or {}
    raw = function.get("arguments") or ""
    try:
        arguments = json.loads(raw) if isinstance(raw, str) and raw.strip() else {}
    except ValueError:
        arguments = {"arguments": raw}  # the model wrote bad JSON once; it is told, not re-sent as an object
    if not isinstance(arguments, dict):
        arguments = {"arguments": arguments}
    return {
        "type": "tool_use",
        "id": str(call.get("id") or f"call_{number}"),
        "name": function.get("name") or "unnamed",
        "input": arguments,
    }


def _user_blocks(content: Any, said_by_system: bool = False) -> list[Block]:
    blocks: list[Block] = []
    if isinstance(content, list):
        for part in content:
            if isinstance(part, dict) and part.get("type") == "image_url":
                blocks.append(_image(part))
            elif isinstance(part, dict) and isinstance(part.get("text"), str) and part["text"].strip():
                blocks.append({"type": "text", "text": part["text"]})
    else:
        blocks = _text_blocks(content)
    if said_by_system:
        for block in blocks:
            if block["type"] == "text":
                block["text"] = f"[system] {block['text']}"
    return blocks


def _text_blocks(content: Any) -> list[Block]:
    """Text blocks of a content (string or parts), leaving out empty ones."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content.strip() else []
    if isinstance(content, list):
        texts = [part.get("text") for part in content if isinstance(part, dict)]
        return [{"type": "text", "text": text} for text in texts if isinstance(text, str) and text.strip()]
    return []


def _result_content(content: Any) -> str | list[Block]:
    """A tool result's content: its text, or text and image blocks."""
    if isinstance(content, list):
        blocks = _user_blocks(content)
        return blocks or MISSING_RESULT
    text = content if isinstance(content, str) else ("" if content is None else json.dumps(content))
    return text or "(no output)"


def _plain(content: Any) -> str:
    if isinstance(content, str):
        return content
    return " ".join(block.get("text", "") for block in content if isinstance(block, dict))


def _image(part: Mapping[str, Any]) -> Block:
    image = part.get("image_url")
    url = str(image.get("url", "") if isinstance(image, dict) else image or "")
    if url.startswith("data:") and ";base64," in url:
        media_type, _, data = url[5:].partition(";base64,")
        return {"type": "image", "source": {"type": "base64", "media_type": media_type, "data": data}}
    return {"type": "image", "source": {"type": "url", "url": url}}
