"""Provides how the offline model honours a request's `tool_choice`, `response_format` and `stop`.

- `tool_choice` and `response_format` shape the default behaviour's answer (`answer_as_asked`); a scripted
  reply is the test's script and is sent as written. `none`: no tool is called; `required`: a tool is called (the
  one the prompt's words match, else the first offered); a named function: that one is called. A forced call's
  arguments are a sample its parameters' schema accepts (`json_sample`). `json_object`: the answer is a JSON
  object; `json_schema`: a JSON value its schema accepts (`client.chat.completions.parse` gets its model back).
- `stop` cuts every reply, scripted ones too, before the first stop sequence in its text (`stopped`), with
  `finish_reason: "stop"` and without the calls that would have followed, as a server stops generating there.
"""

from __future__ import annotations

import json
from typing import Any

from tui_agent.offline.behaviour import default_reply, text_of
from tui_agent.offline.json_sample import sample
from tui_agent.offline.request_checks import chosen_function
from tui_agent.offline.scenario import Reply, Segment, ToolCallSpec

SAMPLE_ANSWER = "I am the offline model, so this is a sample answer rather than a real one."


def answer_as_asked(body: dict[str, Any]) -> Reply:
    """The default behaviour's reply to `body`, within its `tool_choice` and in its `response_format`."""
    choice, named = body.get("tool_choice"), chosen_function(body)
    tools = [tool for tool in body.get("tools") or [] if isinstance(tool, dict)]
    if choice == "none":
        tools = []
    elif named is not None:
        tools = [tool for tool in tools if _name(tool) == named]
    reply = default_reply({**body, "tools": tools})
    if (choice == "required" or named is not None) and tools and not reply.all_calls:
        reply = Reply(tool_calls=[_forced_call(tools[0], _prompt(body))], chunk_size=reply.chunk_size)
    if (text := _formatted(body)) is not None and not reply.all_calls:
        reply = Reply(text=text, chunk_size=reply.chunk_size)
    return reply


def stopped(reply: Reply, stops: list[str]) -> Reply:
    """`reply` cut before the first of `stops` in its text (reasoning is not searched), or as it was."""
    if not stops or reply.raw_events is not None:
        return reply
    segments = reply.segments
    joined = "".join(segment.text for segment in segments)  # a stop sequence may span two segments' texts
    cut = min((at for at in (joined.find(stop) for stop in stops) if at >= 0), default=-1)
    return reply if cut < 0 else _cut(reply, segments, cut)


def _cut(reply: Reply, segments: list[Segment], cut: int) -> Reply:
    """`reply` ending at character `cut` of its segments' joined text."""
    kept: list[Segment] = []
    before = 0
    for segment in segments:
        if before + len(segment.text) >= cut:
            kept.append(Segment(reasoning=segment.reasoning, text=segment.text[: max(cut - before, 0)]))
            break
        kept.append(segment)
        before += len(segment.text)
    first, *rest = kept
    update = {"reasoning": first.reasoning, "text": first.text, "tool_calls": first.tool_calls, "interleaved": rest}
    return reply.model_copy(update={**update, "finish_reason": "stop"})


def _name(tool: dict[str, Any]) -> str:
    function = tool.get("function")
    return str(function.get("name")) if isinstance(function, dict) else ""


def _prompt(body: dict[str, Any]) -> str:
    """The text of the last user message (what strings in a sample say)."""
    users = [m for m in body.get("messages") or [] if isinstance(m, dict) and m.get("role") == "user"]
    return " ".join(text_of(users[-1].get("content")).split()) if users else ""


def _forced_call(tool: dict[str, Any], prompt: str) -> ToolCallSpec:
    function = tool.get("function") if isinstance(tool.get("function"), dict) else {}
    assert isinstance(function, dict)
    parameters = function.get("parameters") or {"type": "object", "properties": {}}
    arguments = sample(parameters, prompt)
    return ToolCallSpec(name=_name(tool), arguments=arguments if isinstance(arguments, dict) else {})


def _formatted(body: dict[str, Any]) -> str | None:
    """The answer's text as `response_format` asks (None: plain text)."""
    shape = body.get("response_format")
    kind = shape.get("type") if isinstance(shape, dict) else None
    if kind not in ("json_object", "json_schema"):
        return None
    assert isinstance(shape, dict)
    spec = shape.get("json_schema") if isinstance(shape.get("json_schema"), dict) else {}
    schema = spec.get("schema") if isinstance(spec, dict) else None
    if kind == "json_schema" and isinstance(schema, dict):
        return json.dumps(sample(schema, _prompt(body)))
    return json.dumps({"prompt": _prompt(body), "answer": SAMPLE_ANSWER})
