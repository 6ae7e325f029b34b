"""The offline model's docs phrase: "what do the docs say about X" calls `search_docs` with X."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # intents.py imports this module to list the rule; the type alone is needed here
    from tui_agent.offline.intents import Tool
    from tui_agent.offline.scenario import ToolCallSpec

_ASKED = re.compile(r"\bwhat\s+do(?:es)?\s+(?:the\s+)?(?:docs|notes|files)\s+say\s+about\s+(.+)", re.IGNORECASE)


def docs(tool: Tool, prompt: str) -> list[ToolCallSpec]:
    """One `search_docs` call with the subject the prompt asks about."""
    asked = _ASKED.search(prompt)
    if tool.name != "search_docs" or asked is None:
        return []
    subject = asked.group(1).strip().rstrip("?.! ")
    key = tool.key("query") or "query"
    return [tool.call({key: subject}, f"Let me search the docs for {subject}.")]
