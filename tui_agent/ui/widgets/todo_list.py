"""Provides `TodoList`: the model's todo list (`tui_agent.todo`) at the top of the tool column.

It shows the newest `todo` call among the calls the tool column knows (the branch shown, live or from
history), so a resumed session or another branch shows its own list; hidden while there is none.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual.content import Content
from textual.widgets import Static

from tui_agent.sanitize import sanitize
from tui_agent.todo import TodoItem, latest_list
from tui_agent.tool_call import ToolCall

STYLES = {"pending": "", "in_progress": "bold $accent", "done": "dim strike"}


class TodoList(Static):
    """The todo list, one line per item; not displayed while the model has made none."""

    DEFAULT_CSS = """
    TodoList { dock: top; border: round $accent 50%; border-title-color: $accent; padding: 0 1; height: auto; }
    """

    def __init__(self) -> None:
        super().__init__(id="todo-list")
        self.items: list[TodoItem] | None = None
        self.border_title = "Todo"

    def on_mount(self) -> None:
        self.display = self.items is not None

    def follow(self, calls: Iterable[ToolCall]) -> None:
        """Show the newest list among `calls` (oldest first); none: hidden."""
        items = latest_list((call.name, call.arguments, call.status.value == "done") for call in calls)
        if items == self.items:
            return
        self.items = items
        self.display = items is not None
        if items is not None:
            done = sum(item.status == "done" for item in items)
            self.border_title = f"Todo {done}/{len(items)}"
            lines = [Content.styled(sanitize(item.line), STYLES[item.status]) for item in items]
            self.update(Content("\n").join(lines) if lines else Content("(empty)"))
