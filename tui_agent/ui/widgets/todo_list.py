"""Provides `TodoList`: the model's todo list (`tui_agent.todo`) at the top of the tool column.

It shows the newest `todo` call among the calls the tool column knows (the branch shown, live or from
history), so a resumed session or another branch shows its own list; hidden while there is none. In a team
each member keeps its own list: the title names whose list it is when one member made one, and with several,
each list comes under its member's name.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from textual.content import Content
from textual.widgets import Static

from tui_agent.sanitize import sanitize
from tui_agent.todo import TodoItem, lists_by_agent
from tui_agent.tool_call import ToolCall

STYLES = {"pending": "", "in_progress": "bold $accent", "done": "dim strike"}


def _count(items: list[TodoItem]) -> str:
    return f"{sum(item.status == 'done' for item in items)}/{len(items)}"


class TodoList(Static):
    """The todo list(s), one line per item; not displayed while no agent has made one."""

    DEFAULT_CSS = """
    TodoList { dock: top; border: round $accent 50%; border-title-color: $accent; padding: 0 1; height: auto; }
    """

    def __init__(self) -> None:
        super().__init__(id="todo-list")
        self.lists: dict[str | None, list[TodoItem]] = {}
        """Each agent's newest list (None: the session's agent), in the order they first made one."""
        self.border_title = "Todo"

    @property
    def items(self) -> list[TodoItem] | None:
        """The list shown when there is one (the newest made, with several agents); None when there is none."""
        return next(reversed(self.lists.values()), None)

    def on_mount(self) -> None:
        self.display = bool(self.lists)

    def follow(self, calls: Iterable[ToolCall], agents: Mapping[str, str] | None = None) -> None:
        """Show the newest list of each agent among `calls` (oldest first; `agents`: message id -> the team
        member who wrote it); none: hidden."""
        speakers = agents or {}
        lists = lists_by_agent(
            (speakers.get(call.message_id), call.name, call.arguments, call.status.value == "done") for call in calls
        )
        if lists == self.lists:
            return
        self.lists = lists
        self.display = bool(lists)
        if not lists:
            return
        if len(lists) == 1:
            ((agent, items),) = lists.items()
            whose = f" · {sanitize(agent)}" if agent else ""
            self.border_title = f"Todo{whose} {_count(items)}"
            self.update(self._lines(items))
            return
        self.border_title = "Todo"
        self.update(Content("\n").join(self._section(agent, items) for agent, items in lists.items()))

    def _section(self, agent: str | None, items: list[TodoItem]) -> Content:
        """One agent's list under its name and count."""
        heading = Content.styled(f"{sanitize(agent or 'assistant')} {_count(items)}", "bold")
        return Content("\n").join([heading, self._lines(items)])

    @staticmethod
    def _lines(items: list[TodoItem]) -> Content:
        lines = [Content.styled(sanitize(item.line), STYLES[item.status]) for item in items]
        return Content("\n").join(lines) if lines else Content("(empty)")
