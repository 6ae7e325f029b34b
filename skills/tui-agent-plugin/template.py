"""A tui-agent plugin: copy this file into your plugin folder (`tui-agent plugins` says where)."""

from __future__ import annotations

from typing import Literal

from tui_agent.tools import tool


@tool(approval="never", effect="read")
def count_words(text: str, unit: Literal["words", "characters"] = "words") -> int:
    """Count the words or characters in a text.

    Args:
        text: The text to measure.
        unit: What to count.
    """
    if not text.strip():
        raise ValueError("the text is empty: give the text to measure")
    return len(text.split()) if unit == "words" else len(text)
