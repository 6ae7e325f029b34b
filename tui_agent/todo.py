"""Provides the todo list the model keeps with the `todo` tool (plugins/todo.py): items with a status.

The model sends the whole list each time, so the list shown is the arguments of the newest `todo` call on the
conversation's branch: history stores it with the message that made the call, and resuming a session or
switching branches shows it again with nothing stored beside it.
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


def summary(items: list[TodoItem]) -> str:
    """What the tool answers the model: the list as it now stands, with counts."""
    done = sum(item.status == "done" for item in items)
    lines = "\n".join(item.line for item in items)
    return f"Todo list updated ({done} of {len(items)} done):\n{lines}" if items else "Todo list cleared."
