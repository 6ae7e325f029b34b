"""Provides `PART_FIELDS`: which fields of a streamed delta (or of a whole message) carry which reply part.

A reply is text, tool calls, and parts of other kinds that are shown and saved but never sent back to the
model. Each kind is named by a string that the agent, history, export and UI carry as it is.

Adding a part kind: (1) map the delta field(s) the server sends it in to its kind here; (2) optionally, say
how the app shows it in `tui_agent.ui.widgets.parts` (one registration line, with a widget module of its own
if the plain block does not do); without (2) it still streams, is saved, exported and shown in a plain
collapsed block. Nothing else changes.
"""

from __future__ import annotations

PART_FIELDS: dict[str, str] = {
    "reasoning_content": "reasoning",  # DeepSeek, vLLM, llama.cpp
    "reasoning": "reasoning",  # Ollama, OpenRouter
    "refusal": "refusal",  # OpenAI: sent instead of content when the model refuses
}
"""Delta field → part kind. A kind named by several fields takes the first of them a delta has (in this order),
so a server that sends both `reasoning_content` and `reasoning` is not shown it twice."""


def part_deltas(delta: dict[str, object]) -> list[tuple[str, str]]:
    """The (kind, text) pieces of one delta, in `PART_FIELDS` order, at most one per kind."""
    if delta.keys().isdisjoint(PART_FIELDS):  # most deltas: text or a call's arguments only
        return []
    found: dict[str, str] = {}
    for name, kind in PART_FIELDS.items():
        value = delta.get(name)
        if value and isinstance(value, str) and kind not in found:
            found[kind] = value
    return list(found.items())
