"""Offline phrases for the todo list: "make a todo list for X" (or "todo: A, B and C") calls `todo`.

The steps are the parts of X split at commas and "and" (first in progress, the rest pending); a task of one
part becomes three steps (look, do, check), so the list always shows more than one line.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tui_agent.offline.intents import Tool
    from tui_agent.offline.scenario import ToolCallSpec

TODO_PHRASE = re.compile(
    r"\b(?:make|write|start|create|keep)\s+(?:a|the|me\s+a)?\s*to-?do(?:\s+list)?\s+(?:for|to|of)\s+(.+)"
    r"|\bto-?do(?:\s+list)?\s*:\s*(.+)",
    re.IGNORECASE | re.DOTALL,
)


APPROVED = "The plan is approved."
"""How tui-agent's plan mode starts the work (`agent/plan.py` `work_prompt`)."""
APPROVED_STEP = re.compile(r"^- \[ \] (.+)$", re.MULTILINE)


def todo_steps(task: str) -> list[str]:
    """The steps of `task`: its parts split at commas and "and", or look / do / check for one part."""
    task = task.split(":", 1)[-1]  # "the release: notes, tag and publish": the steps follow the colon
    parts = [part.strip(" .!?") for part in re.split(r",|;|\band\b|\bthen\b", task) if part.strip(" .!?")]
    if len(parts) > 1:
        return [part[:1].upper() + part[1:] for part in parts]
    task = parts[0] if parts else task.strip()
    return [f"Look at what is there for {task}", task[:1].upper() + task[1:], f"Check that {task} works"]


LABELLED = re.compile(r"\n\s*\n\[[\w-]+\] ")
"""Where another team member's words begin in a member's input (`[planner] ...`, after a blank line)."""


def _own_words(task: str) -> str:
    """The person's task without the team members' replies joined after it (a member's input)."""
    return LABELLED.split(task, maxsplit=1)[0]


def todo_list(tool: Tool, prompt: str) -> list[ToolCallSpec]:
    """ "make a todo list for X": one `todo` call with X's steps; an approved plan (plan mode's "The plan is
    approved…" and its checklist) becomes the todo list too."""
    found = TODO_PHRASE.search(prompt)
    approved = [item.group(1) for item in APPROVED_STEP.finditer(prompt)] if prompt.startswith(APPROVED) else []
    if tool.name != "todo" or (found is None and not approved):
        return []
    steps = approved if found is None else todo_steps(_own_words(found.group(1) or found.group(2)))
    items = [{"text": text, "status": "in_progress" if index == 0 else "pending"} for index, text in enumerate(steps)]
    return [tool.call({"items": items}, "Here is the plan as a todo list.")]
