"""Provides `panel_title`: what a tool panel's border names. The tool's name, except for the skills' tools, whose
panel says which skill (and file) the model loaded: `skill: pdf-forms`, `skill file: pdf-forms/reference.md`.

The names are the skills' tools' own (`tui_agent.agents.skills` `LOAD_TOOL`, `READ_TOOL`; a test keeps them the
same): that module loads pydantic, which the first frame does without.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the value loads with the engine, after the first paint
    from tui_agent.tool_call import ToolCall

SKILL_TOOLS = {"load_skill": ("skill", "name"), "read_skill_file": ("skill file", "skill")}
"""Tool name -> (what its panel calls it, the argument naming the skill)."""


def panel_title(call: ToolCall) -> str:
    """The tool's name, or for a skill's tool (once its arguments parse) which skill, and which of its files."""
    if call.name not in SKILL_TOOLS:
        return call.name
    label, key = SKILL_TOOLS[call.name]
    arguments = call.readable_arguments()
    skill, path = arguments.get(key), arguments.get("path")
    if not isinstance(skill, str) or not skill:
        return call.name  # the arguments are still streaming
    return f"{label}: {skill}/{path}" if isinstance(path, str) and path else f"{label}: {skill}"
