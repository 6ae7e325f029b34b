"""Provides the offline model's default, deterministic behaviour when no scripted reply is left.

Ordinary prompts get a short markdown answer (heading, list, code block). When the request offers
tools and the user's words match one (weather in a city, or a tool named in the prompt), the reply is
a tool call with sensible arguments — one call per city, plus a `to_user` sentence when the schema has
that parameter. When the last message is a tool result, the reply answers from the results.
"""

from __future__ import annotations

import json
import re
from typing import Any

from tui_agent.offline.scenario import Reply, ToolCallSpec

Message = dict[str, Any]
LOCATION_KEYS = ("location", "city", "place", "where")
UNIT_SYMBOLS = {"celsius": "°C", "fahrenheit": "°F"}


def text_of(content: Any) -> str:
    """The text of a message content (a string or a list of parts)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def default_reply(body: dict[str, Any]) -> Reply:
    """The reply the offline model gives to a chat-completions request body."""
    messages: list[Message] = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    tools = [t for t in body.get("tools") or [] if isinstance(t, dict)]
    last = messages[-1] if messages else {}
    if last.get("role") == "tool":
        return Reply(text=answer_from_tool_results(messages))
    prompt = text_of(last.get("content")).strip()
    if tools and last.get("role") == "user":
        calls = match_tools(prompt, tools)
        if calls:
            return Reply(tool_calls=calls, chunk_size=8)
    return Reply(text=markdown_answer(prompt), chunk_size=12)


def _parameters(tool: dict[str, Any]) -> tuple[str, dict[str, Any], list[str]]:
    function = tool.get("function") or {}
    schema = function.get("parameters") or {}
    return str(function.get("name", "")), schema.get("properties") or {}, list(schema.get("required") or [])


def places_in(prompt: str) -> list[str]:
    """Places named after "in"/"for"/"at": "weather in Paris and Tokyo?" → ["Paris", "Tokyo"]."""
    found = re.search(r"\b(?:in|for|at)\s+([^?.!;]+)", prompt, flags=re.IGNORECASE)
    if not found:
        return []
    places: list[str] = []
    for part in re.split(r"\s*(?:,|\band\b|&)\s*", found.group(1).strip()):
        part = re.sub(r"^(?:the)\s+", "", part.strip(), flags=re.IGNORECASE)
        if not part:
            continue
        if places and len(part) <= 2:  # "San Francisco, CA" stays one place
            places[-1] = f"{places[-1]}, {part}"
        else:
            places.append(part)
    return places


def match_tools(prompt: str, tools: list[dict[str, Any]]) -> list[ToolCallSpec]:
    """Tool calls the prompt asks for, or an empty list."""
    lowered = prompt.lower()
    for tool in tools:
        name, properties, required = _parameters(tool)
        if "weather" in name.lower() and re.search(r"weather|temperature|forecast", lowered):
            calls = _weather_calls(prompt, name, properties, required)
            if calls:
                return calls
    for tool in tools:
        name, properties, required = _parameters(tool)
        if name and (name.lower() in lowered or name.lower().replace("_", " ") in lowered):
            arguments = _fill_arguments(prompt, name, properties, required)
            if arguments is not None:
                return [ToolCallSpec(name=name, arguments=_with_to_user(arguments, properties, f"I'll use {name}."))]
    return []


def _weather_calls(prompt: str, name: str, properties: dict[str, Any], required: list[str]) -> list[ToolCallSpec]:
    key = next((k for k in LOCATION_KEYS if k in properties), None) or next(iter(required), None)
    places = places_in(prompt)
    if key is None or not places:
        return []
    sentence = f"Let me check the weather in {' and '.join(places)} for you."
    calls = []
    for index, place in enumerate(places):
        arguments: dict[str, Any] = {key: place}
        if index == 0:
            arguments = _with_to_user(arguments, properties, sentence)
        calls.append(ToolCallSpec(name=name, arguments=arguments))
    return calls


def _with_to_user(arguments: dict[str, Any], properties: dict[str, Any], sentence: str) -> dict[str, Any]:
    # The model speaks first, as a real one tends to: to_user leads the object.
    return {"to_user": sentence, **arguments} if "to_user" in properties else arguments


def _fill_arguments(prompt: str, name: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any] | None:
    quoted = re.findall(r"`([^`]+)`|\"([^\"]+)\"|'([^']+)'", prompt)
    texts = [next(group for group in match if group) for match in quoted]
    rest = re.split(re.escape(name.replace("_", " ")) + "|" + re.escape(name), prompt, flags=re.IGNORECASE)[-1]
    texts.append(rest.strip(" :,.?!") or prompt)
    numbers = [int(n) for n in re.findall(r"\b\d+\b", prompt)]
    arguments: dict[str, Any] = {}
    for key in required:
        kind = (properties.get(key) or {}).get("type", "string")
        if kind == "string" and texts:
            arguments[key] = texts.pop(0)
        elif kind in ("integer", "number") and numbers:
            arguments[key] = numbers.pop(0)
        else:
            return None
    return arguments


def _trailing_tool_results(messages: list[Message]) -> list[Message]:
    results: list[Message] = []
    for message in reversed(messages):
        if message.get("role") != "tool":
            break
        results.append(message)
    return results[::-1]


def _describe_result(message: Message) -> str:
    content = text_of(message.get("content"))
    try:
        data = json.loads(content)
    except ValueError:
        data = None
    if isinstance(data, dict) and "temperature" in data:
        unit = UNIT_SYMBOLS.get(str(data.get("unit", "")).lower(), "")
        place = data.get("location", "there")
        return f"**{place}**: {data['temperature']} {unit}".rstrip()
    name = message.get("name") or "the tool"
    return f"`{name}` returned: {content[:200]}"


def answer_from_tool_results(messages: list[Message]) -> str:
    """A markdown answer built from the tool results at the end of the conversation."""
    lines = [_describe_result(message) for message in _trailing_tool_results(messages)]
    if len(lines) == 1 and lines[0].startswith("**"):
        place, value = lines[0].split(": ", 1)
        return f"The weather in {place.strip('*')} is {value} right now."
    return "Here is what I found:\n\n" + "\n".join(f"- {line}" for line in lines) + "\n"


def markdown_answer(prompt: str) -> str:
    """A readable, deterministic markdown answer to an ordinary prompt."""
    words = prompt.split()
    title = " ".join(words[:6]).strip("?!.,:;") or "Hello"
    quoted = prompt if len(prompt) <= 80 else prompt[:77] + "..."
    return (
        f"## {title[:1].upper()}{title[1:]}\n\n"
        f"You asked: *{quoted or '(nothing)'}*\n\n"
        "I am the **offline model**, so this is a sample answer rather than a real one:\n\n"
        f"- your message has {len(words)} word{'s' if len(words) != 1 else ''}\n"
        "- ask about the weather in a city to see a tool call\n"
        "- point tui-agent at a real endpoint with `--base-url` for real answers\n\n"
        "```python\n"
        f"print({json.dumps(prompt[:40])})\n"
        "```\n"
    )
