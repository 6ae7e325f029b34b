"""Provides the todo list the model keeps with the `todo` tool (plugins/todo.py): items with a status.

The model sends the whole list each time, so the list shown is the arguments of the newest `todo` call on the
conversation's branch: history stores it with the message that made the call, and resuming a session or
switching branches shows it again with nothing stored beside it. In a team each member keeps its own list
(`lists_by_agent`: the newest call of each member's replies).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

TODO_TOOL = "todo"
Status = Literal["pending", "in_progress", "done"]
STATUSES: tuple[Status, ...] = ("pending", "in_progress", "done")
MARKS: dict[Status, str] = {"pending": "☐", "in_progress": "◐", "done": "☑"}


@dataclass(frozen=True)
class TodoItem:
    text: str
    status: Status = "pending"

    @property
    def line(self) -> str:
        return f"{MARKS[self.status]} {self.text}"


def todo_items(arguments: Mapping[str, Any] | None) -> list[TodoItem] | None:
    """The list a `todo` call's arguments hold; None when they hold none (bad or missing arguments: the list
    shown before stays)."""
    raw = (arguments or {}).get("items")
    if not isinstance(raw, list):
        return None
    items = []
    for entry in raw:
        if not isinstance(entry, Mapping) or not isinstance(entry.get("text"), str):
            return None
        status = entry.get("status", "pending")
        items.append(TodoItem(entry["text"].strip(), status if status in STATUSES else "pending"))
    return items


def latest_list(calls: Iterable[tuple[str, Mapping[str, Any] | None, bool]]) -> list[TodoItem] | None:
    """The newest list among `calls` (name, arguments, whether it ran), oldest first; None when none made one."""
    found: list[TodoItem] | None = None
    for name, arguments, ran in calls:
        if name == TODO_TOOL and ran and (items := todo_items(arguments)) is not None:
            found = items
    return found


def lists_by_agent(
    calls: Iterable[tuple[str | None, str, Mapping[str, Any] | None, bool]],
) -> dict[str | None, list[TodoItem]]:
    """Each agent's newest list among `calls` (agent, name, arguments, whether it ran), oldest first: in a team
    every member keeps its own (None: the session's agent). Ordered by who made a list first."""
    found: dict[str | None, list[TodoItem]] = {}
    for agent, name, arguments, ran in calls:
        if name == TODO_TOOL and ran and (items := todo_items(arguments)) is not None:
            found[agent] = items
    return found


def summary(items: list[TodoItem]) -> str:
    """What the tool answers the model: the list as it now stands, with counts."""
    done = sum(item.status == "done" for item in items)
    lines = "\n".join(item.line for item in items)
    return f"Todo list updated ({done} of {len(items)} done):\n{lines}" if items else "Todo list cleared."
