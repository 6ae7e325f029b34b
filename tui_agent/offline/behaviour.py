"""Provides the offline model's default, deterministic behaviour when no scripted reply is left.

Ordinary prompts get a short markdown answer (heading, list, code block). When the request offers
tools and the user's words match one (see intents.py: weather in a city, arithmetic, the time, files,
a shell command, or a tool named in the prompt), the reply is a tool call with sensible arguments — one
call per city — and a sentence saying what it does: as `to_user` when the schema has that parameter,
otherwise as the reply's text. When the last message is a tool result, the reply answers from the
results; a denied, failed or interrupted call is told as a sentence ("I wasn't allowed to run `ls`."), and a
sub-agent's answer (an `ask_<agent>` result) is passed on, quoted. An agent that cannot delegate (a sub-agent)
says in its answer who its system prompt makes it ("playing a careful researcher").
A prompt with files or images is answered with a first line saying what came ("I received an image (a.png).");
so are the images tools returned (sent after their results), before the answer from the results.
"""

from __future__ import annotations

import json
import re
from typing import Any

from tui_agent.offline.attached import TOOL_IMAGES_MARK, received, received_sentence
from tui_agent.offline.intents import match_intent
from tui_agent.offline.intents_plan import todo_steps
from tui_agent.offline.personas import persona_reply, without_control
from tui_agent.offline.scenario import Reply
from tui_agent.offline.summary import asks_for_summary, summary_of

Message = dict[str, Any]
UNIT_SYMBOLS = {"celsius": "°C", "fahrenheit": "°F"}
DENIED = re.compile(
    r"The user denied the call to |The tool \S+ (?:is not allowed to run|needs the user's approval)"
    r"|Approval for \S+ could not be obtained"
)
INTERRUPTED = re.compile(r"The tool call was interrupted before it finished|The call to \S+ was cancelled\.")


def text_of(content: Any) -> str:
    """The text of a message content (a string or a list of parts)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


PLAN_MODE_MARK = "You are in plan mode"
"""How the offline model knows tui-agent's plan mode: the first words of its instructions (`agent/plan.py`)."""


def default_reply(body: dict[str, Any]) -> Reply:
    """The reply the offline model gives to a chat-completions request body."""
    messages: list[Message] = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    tools = [t for t in body.get("tools") or [] if isinstance(t, dict)]
    last = messages[-1] if messages else {}
    if last.get("role") == "tool":
        return Reply(text=answer_from_tool_results(messages))
    if last.get("role") == "user" and text_of(last.get("content")).startswith(TOOL_IMAGES_MARK):
        return Reply(text=_answer_with_tool_images(messages))
    if (team_reply := persona_reply(messages, tools)) is not None:  # a team's writer, critic or router
        return team_reply
    if last.get("role") == "user" and in_plan_mode(messages):  # tui-agent's plan mode: a checklist to approve
        return Reply(text=plan_reply(received(last.get("content"))[0].strip()), chunk_size=12)
    tools = without_control(tools)
    prompt, things = received(last.get("content"))
    prompt = prompt.strip()
    if last.get("role") == "user" and asks_for_summary(prompt):  # compaction asks for one
        return Reply(text=summary_of(messages), chunk_size=12)
    if tools and last.get("role") == "user" and not things:
        calls, said = match_intent(prompt, tools)
        if calls:
            return Reply(text=said or "", tool_calls=calls, chunk_size=8)
    asks = any(str((tool.get("function") or {}).get("name", "")).startswith("ask_") for tool in tools)
    heard = f"{received_sentence(things)}\n\n" if things else ""  # files and images: say what came
    return Reply(text=heard + markdown_answer(prompt, None if asks else persona(messages)), chunk_size=12)


def _answer_with_tool_images(messages: list[Message]) -> str:
    """The answer to tool results followed by the images the tools returned (after tui-agent's `(no reply)`)."""
    before = messages[:-1]
    if before and before[-1].get("role") == "assistant" and not before[-1].get("tool_calls"):
        before = before[:-1]  # the placeholder a strict history puts between the results and the images
    _, things = received(messages[-1].get("content"))
    return f"{received_sentence(things)}\n\n{answer_from_tool_results(before)}"


def _trailing_tool_results(messages: list[Message]) -> list[Message]:
    results: list[Message] = []
    for message in reversed(messages):
        if message.get("role") != "tool":
            break
        results.append(message)
    return results[::-1]


def _tool_calls(messages: list[Message]) -> dict[str, tuple[str, dict[str, Any]]]:
    """Tool call id → (function name, arguments), from the assistant messages that made the calls."""
    calls: dict[str, tuple[str, dict[str, Any]]] = {}
    for message in messages:
        for call in message.get("tool_calls") or []:
            if isinstance(call, dict):
                function = call.get("function") or {}
                calls[str(call.get("id"))] = (str(function.get("name", "")), _arguments(function.get("arguments")))
    return calls


def _arguments(raw: Any) -> dict[str, Any]:
    try:
        parsed = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


def _not_run(name: str, arguments: dict[str, Any], content: str) -> str | None:
    """A sentence for a call that was denied, failed or cut short (as tui-agent's runner words it), else None."""
    command = arguments.get("command")
    what = f"`{command}`" if isinstance(command, str) and command else f"`{name}`"
    doing = f"run {what}" if what != f"`{name}`" else f"use {what}"
    if DENIED.match(content):
        return f"I wasn't allowed to {doing}."
    if INTERRUPTED.match(content):
        return f"{what} was interrupted before it finished."
    failed = re.match(rf"{re.escape(name)} (?:failed: (.*)|(timed out.*))$", content, re.DOTALL)
    if failed:
        return f"I couldn't {doing}: {(failed.group(1) or 'it ' + failed.group(2)).strip().rstrip('.')}."
    if content.startswith("Not run: "):
        return f"I didn't {doing}: {content.removeprefix('Not run: ').rstrip('.')}."
    return None


def _weather(content: str) -> tuple[str, str] | None:
    """(place, "22 °C and sunny") when a result reads like a weather report."""
    try:
        data = json.loads(content)
    except ValueError:
        return None
    if not isinstance(data, dict) or "temperature" not in data:
        return None
    unit = UNIT_SYMBOLS.get(str(data.get("unit", "")).lower(), "")
    forecast = f" and {data['forecast']}" if data.get("forecast") else ""
    return str(data.get("location", "there")), f"{data['temperature']} {unit}".rstrip() + forecast


def _describe(name: str, content: str) -> str:
    content = content.strip()
    if name.startswith("ask_") and content:  # a sub-agent's answer: pass it on in its words
        return f"The {name.removeprefix('ask_')} says:\n\n" + "\n".join(_quoted(content))
    if "\n" not in content and len(content) <= 120:
        return f"`{name}` returned **{content}**" if content else f"`{name}` returned nothing"
    shown = content if len(content) <= 600 else content[:600] + "\n..."
    return f"`{name}` returned:\n\n```\n{shown}\n```"


def _quoted(text: str) -> list[str]:
    return [f"> {line}" if line else ">" for line in text.splitlines()]


def answer_from_tool_results(messages: list[Message]) -> str:
    """A markdown answer built from the tool results at the end of the conversation."""
    results = _trailing_tool_results(messages)
    contents = [text_of(message.get("content")) for message in results]
    reports = [_weather(content) for content in contents]
    if all(report is not None for report in reports):
        found = [report for report in reports if report is not None]
        if len(found) == 1:
            return f"The weather in {found[0][0]} is {found[0][1]} right now."
        return "Here is the weather:\n\n" + "".join(f"- **{place}**: {value}\n" for place, value in found)
    calls = _tool_calls(messages)
    parts = []
    for message, content in zip(results, contents, strict=True):
        name, arguments = calls.get(str(message.get("tool_call_id")), ("", {}))
        name = str(message.get("name") or name or "the tool")
        parts.append(_not_run(name, arguments, content.strip()) or _describe(name, content))
    if len(parts) == 1:
        return parts[0] + ("\n" if parts[0].endswith(("```", ".")) else ".\n")
    if any(name.startswith("ask_") for name, _ in calls.values()):  # sub-agents' answers: one paragraph each
        return "Here is what I found:\n\n" + "\n\n".join(parts) + "\n"
    return "Here is what I found:\n\n" + "\n".join(f"- {part}" for part in parts) + "\n"


def in_plan_mode(messages: list[Message]) -> bool:
    """Whether the system prompt carries tui-agent's plan-mode instructions ("You are in plan mode")."""
    first = messages[0] if messages else {}
    return first.get("role") == "system" and PLAN_MODE_MARK in text_of(first.get("content"))


def plan_reply(prompt: str) -> str:
    """A plan for `prompt` ending in a checklist, as plan mode asks: its parts, or look / do / check."""
    steps = todo_steps(prompt or "the task")
    items = "\n".join(f"- [ ] {step}" for step in steps)
    return f"## Plan\n\nI only looked; nothing was changed. Here is what I would do:\n\n{items}\n"


def persona(messages: list[Message]) -> str | None:
    """Who the system prompt says the model is ("a careful researcher" for "You are a careful researcher."),
    None without one saying so. Said in an agent's answer when it cannot delegate (a sub-agent, as the shipped
    ones are); the session's own agent, which asks the others, answers as it always has."""
    first = messages[0] if messages else {}
    found = (
        re.match(r"You are (an? [^.,;:\n]{1,60})", text_of(first.get("content")))
        if first.get("role") == "system"
        else None
    )
    return found.group(1) if found else None


def markdown_answer(prompt: str, persona: str | None = None) -> str:
    """A readable, deterministic markdown answer to an ordinary prompt (`persona`: who the system prompt says
    the model is, said in the answer)."""
    words = prompt.split()
    title = " ".join(words[:6]).strip("?!.,:;") or "Hello"
    quoted = prompt if len(prompt) <= 80 else prompt[:77] + "..."
    return (
        f"## {title[:1].upper()}{title[1:]}\n\n"
        f"You asked: *{quoted or '(nothing)'}*\n\n"
        f"I am the **offline model**{f' playing {persona}' if persona else ''}, so this is a sample answer "
        "rather than a real one:\n\n"
        f"- your message has {len(words)} word{'s' if len(words) != 1 else ''}\n"
        "- ask about the weather in a city to see a tool call\n"
        "- point tui-agent at a real endpoint with `--base-url` for real answers\n\n"
        "```python\n"
        f"print({json.dumps(prompt[:40])})\n"
        "```\n"
    )
