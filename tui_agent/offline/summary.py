"""Provides `asks_for_summary` and `summary_of`: the offline model summarises a conversation when asked, so
compaction (tui-agent's older turns summarised into one message) can be tested without a real model.

A request whose last user message asks to summarise the conversation gets a short, deterministic summary:
one line per earlier prompt (its first words), the tools used, and the earlier summary it builds on, if any
(its first `EARLIER_WORDS` words).
"""

from __future__ import annotations

import re
from typing import Any

ASKS = re.compile(r"\bsummari[sz]e (?:the|this|our) conversation\b", re.IGNORECASE)
HEADING = "Summary of the conversation so far"
PROMPT_WORDS = 12
EARLIER_WORDS = 200
"""Words of an earlier summary kept (a summary asked in pieces carries every piece's prompts along)."""


def asks_for_summary(text: str) -> bool:
    """True when `text` asks for a summary of the conversation."""
    return bool(ASKS.search(text))


def summary_of(messages: list[dict[str, Any]]) -> str:
    """A deterministic summary of the messages before the last one (the request for it)."""
    earlier, prompts, tools = [], [], []
    for message in messages[:-1]:
        for text in _said(message) if message.get("role") == "user" else []:
            if text.startswith(HEADING):
                earlier.append(" ".join(text.split()[:EARLIER_WORDS]))
            elif text.strip():
                prompts.append(" ".join(text.split()[:PROMPT_WORDS]))
        for call in message.get("tool_calls") or []:
            name = str((call.get("function") or {}).get("name", "")) if isinstance(call, dict) else ""
            if name and name not in tools:
                tools.append(name)
    lines = [f"The person asked {len(prompts)} thing{'s' if len(prompts) != 1 else ''}:"]
    lines.extend(f"- {prompt}" for prompt in prompts)
    if tools:
        lines.append(f"Tools used: {', '.join(tools)}.")
    if earlier:
        lines.append("Before that: " + " ".join(earlier))
    return "\n".join(lines)


def _said(message: dict[str, Any]) -> list[str]:
    """A user message's text, as an earlier summary and the prompt after it when they came as one message (a
    strict chat template's merge: "<heading>\\n\\n<summary>", "\\n\\n", then the prompt's text and parts)."""
    content = message.get("content")
    if isinstance(content, list) and content and _text(content[:1]).startswith(HEADING):
        return [_text(content[:1]), _text(content[1:])]
    text = _text(content)
    if not text.startswith(HEADING):
        return [text]
    heading, _, rest = text.partition("\n\n")
    summary, _, prompt = rest.partition("\n\n")  # this model's summaries have no blank line
    return [f"{heading}\n\n{summary}", prompt]


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""
