"""The offline model's skill phrases: "use the NAME skill" (load, follow, apply, with) calls `load_skill` with NAME,
and "read FILE from the NAME skill" (of, in) calls `read_skill_file` with both."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # intents.py imports this module to list the rule; the types alone are needed here
    from tui_agent.offline.intents import Tool
    from tui_agent.offline.scenario import ToolCallSpec

_SKILL = r"(?:the\s+)?[`'\"]?([a-z0-9]+(?:-[a-z0-9]+)*)[`'\"]?\s+skill\b"
_LOAD = re.compile(rf"\b(?:use|load|follow|apply|with)\s+{_SKILL}", re.IGNORECASE)
_READ = re.compile(rf"\b(?:read|open|show)\s+[`'\"]?([\w./-]+)[`'\"]?\s+(?:from|of|in)\s+{_SKILL}", re.IGNORECASE)


def skills(tool: Tool, prompt: str) -> list[ToolCallSpec]:
    """One `read_skill_file` call for "read FILE from the NAME skill", else one `load_skill` call for "use the
    NAME skill"."""
    if tool.name == "read_skill_file" and (asked := _READ.search(prompt)):
        path, name = asked.group(1), asked.group(2).lower()
        return [tool.call({"skill": name, "path": path}, f"Let me read {path} from the {name} skill.")]
    if tool.name == "load_skill" and not _READ.search(prompt) and (asked := _LOAD.search(prompt)):
        name = asked.group(1).lower()
        return [tool.call({tool.key("name") or "name": name}, f"Let me load the {name} skill.")]
    return []
