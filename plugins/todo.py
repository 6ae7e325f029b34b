"""Todo plugin: the model keeps a short list of steps and their status, shown to the user above the tool calls."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from tui_agent.todo import TodoItem, summary
from tui_agent.tools import tool


class Step(BaseModel):
    """One step of the list."""

    text: str
    status: Literal["pending", "in_progress", "done"] = "pending"


@tool(approval="never", effect="read")
def todo(items: list[Step]) -> str:
    """Write down the plan of a task with several steps as a todo list, and keep it up to date: send the whole
    list every time (it replaces the one before), mark the step you work on in_progress and steps done as done.
    Changes no files; the user sees the list.

    Args:
        items: Every step, in order: its text and its status (pending, in_progress or done).
    """
    return summary([TodoItem(step.text.strip(), step.status) for step in items])
