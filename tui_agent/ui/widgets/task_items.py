"""Provides `TreeItem`, what the task tree knows of one node or tool call, and how an item reads: in the user's
words (`user_label`: "turn 3 · replying 1.2s", "get_weather(Paris) · done 0.2s", "researcher · 2 tools · done")
or the engine's (`TreeItem.internals_label`: "ResponseJob  1.2s")."""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.text import Text

from tui_agent.agent.tree_nodes import NodeState
from tui_agent.status import ToolStatus
from tui_agent.ui.widgets.tool_status import STATUS_LABEL

NODE_GLYPHS = {
    NodeState.PENDING: "○",
    NodeState.ACTIVE: "◐",
    NodeState.COMPLETED: "✓",
    NodeState.FAILED: "✗",
    NodeState.CANCELLED: "⊘",
}
TOOL_GLYPHS = {
    ToolStatus.PENDING: "○",
    ToolStatus.AWAITING_APPROVAL: "?",
    ToolStatus.RUNNING: "◐",
    ToolStatus.DONE: "✓",
    ToolStatus.FAILED: "✗",
    ToolStatus.DENIED: "⊘",
    ToolStatus.INTERRUPTED: "⊘",
}
STATE_STYLES = {"✗": "bold red", "⊘": "yellow", "◐": "bold", "?": "bold"}


def elapsed_text(seconds: float) -> str:
    """`3.2s`, or `2m05s` past a minute."""
    seconds = max(0.0, seconds)
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes}m{rest:02d}s"


@dataclass
class TreeItem:
    """What the panel knows of one node or tool call; the widget is drawn from these."""

    key: str
    parent: str | None
    name: str
    """The engine's name for it (the job's class, the handler's function, the tool): the internals view's."""
    kind: str
    """A `NodeKind` value, "tool" for a tool call's handler, or "agent" for a sub-agent's turn (the titled job
    under an `ask_<agent>` call)."""
    glyph: str
    active: bool
    started_at: float | None = None
    ended_at: float | None = None
    node_id: int | str | None = None
    """The commander node's id."""
    tool_status: ToolStatus | None = None
    """A tool call's status, once its first update came."""
    title: str = ""
    """What it is in the user's words, as the domain named it ("turn 3", "get_weather(Paris)", "researcher");
    "" for the engine's own steps, which only the internals view shows."""
    shown_parent: str | None = None
    """The nearest titled ancestor: where the user's view puts it."""
    state: NodeState = NodeState.PENDING
    shown_children: list[str] = field(default_factory=list)
    """The titled items whose `shown_parent` it is, in creation order."""

    @property
    def user_name(self) -> str:
        return self.title or self.name

    def elapsed(self, now: float) -> Text:
        if self.started_at is None:
            return Text()
        end = self.ended_at if self.ended_at is not None else now
        return Text(elapsed_text(end - self.started_at), style="dim")

    def internals_label(self, now: float) -> Text:
        """The engine's view: its name for the node (a tool call in italics), the title dim beside it."""
        name_style = {"tool": "italic", "agent": "bold"}.get(self.kind, "")
        text = Text.assemble((self.glyph, STATE_STYLES.get(self.glyph, "")), " ", (self.name, name_style))
        if self.title and self.kind != "tool":  # a tool's title is its call, its name the tool already
            text.append(f" · {self.title}", style="dim")
        if self.started_at is not None:
            text.append("  ").append_text(self.elapsed(now))
        return text


MIN_NAME = 12
"""Characters of a name kept however narrow the tree (what it does may be cut instead)."""
TOOL_WORDS = {status: label.split(" ", 1)[1] for status, label in STATUS_LABEL.items()}
"""A tool call's status in a word or two ("done", "awaiting approval")."""
STATE_WORDS = {
    NodeState.PENDING: "waiting",
    NodeState.ACTIVE: "running",
    NodeState.COMPLETED: "done",
    NodeState.FAILED: "failed",
    NodeState.CANCELLED: "cancelled",
}


def user_label(
    item: TreeItem, children: list[TreeItem], now: float, agent: TreeItem | None = None, width: int = 0
) -> Text:
    """The user's view of an item: "turn 3 · replying 1.2s", "get_weather(Paris) · done 0.2s"; an `ask_<agent>`
    call's (`agent`: the turn it runs) "researcher · 2 tools · done 3.1s" (`children`: the items shown under it).
    Given the `width` it has, the name is folded so that what it does and its time stay in view."""
    style = "bold" if agent is not None or item.shown_parent is None else ""
    name = agent.user_name if agent is not None else item.user_name
    doing = _doing(agent or item, children)
    elapsed = item.elapsed(now) if item.started_at is not None else Text()
    room = width - len(doing) - len(elapsed) - 6  # the glyph, " · " and the spaces
    if width:
        name = fold_name(name, max(room, MIN_NAME))
    text = Text.assemble((item.glyph, STATE_STYLES.get(item.glyph, "")), " ", (name, style), " · ", doing)
    if elapsed:
        text.append(" ").append_text(elapsed)
    return text


def fold_name(name: str, room: int) -> str:
    """`name` in `room` cells: a call's tool name is shortened before its arguments ("get_curren…(Paris)")."""
    if len(name) <= room:
        return name
    tool, paren, arguments = name.partition("(")
    if paren and room - len(arguments) >= 6:
        return f"{tool[: room - len(arguments) - 2]}…({arguments}"
    return name[: room - 1] + "…"


def _doing(item: TreeItem, children: list[TreeItem]) -> str:
    """What an item is doing or came to, in words."""
    if item.kind == "tool":
        return TOOL_WORDS[item.tool_status] if item.tool_status is not None else STATE_WORDS[item.state]
    tools = [child for child in children if child.kind == "tool"]
    running = [tool for tool in tools if tool.active]
    if running:
        return f"running {_count(len(running), 'tool')}"
    made = f"{_count(len(tools), 'tool')} · " if tools else ""
    if item.state is not NodeState.ACTIVE:
        return made + STATE_WORDS[item.state]
    busy = next((child for child in reversed(children) if child.active), None)
    return made + (busy.user_name if busy is not None else "replying")


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'s' if n != 1 else ''}"
