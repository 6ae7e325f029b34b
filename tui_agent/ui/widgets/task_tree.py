"""Provides `TaskTree`: the live task tree of the current turn, in the user's words, with cancel.

It follows `ConversationPort.subscribe_tree`: commander node events build the model (`TreeItem`s). The person
sees the nodes the domain titled (`NodeEvent.title`), each with what it does: "turn 3 · replying", a call
"get_weather(Paris) · done 0.2s", a sub-agent "researcher · 2 tools" (on its `ask_<agent>` call's line, its own
calls under it); names are folded to the tree's width before their arguments, so the state stays in view. `i`
shows the engine's internals instead (every job and handler by its own name), for people debugging their own
jobs; the widget never reads class names to decide what to show.
Each tool call is a node of its own (id `tool:<message>/<call>`); the chat screen hands it the call's updates
from the turn's stream (`follow_call`), which give it the call's status (awaiting approval, denied…).
Cancelling a tool node interrupts that call only; cancelling a sub-agent's line cancels that sub-agent only.
A node created under no known node starts a new turn and replaces the tree. While hidden the panel only
keeps its model up to date (a dict write per event) and touches no widget; showing it rebuilds the tree.
One timer ticks the elapsed time of running nodes in view, and only while the panel is shown; a changed label
repaints its own row only (`relabel_tree_node`) and the scrollbar only when a layout changed what it shows
(`steady_scrollbars`), so a 55-node turn costs a frame little more shown than hidden (bench/task_tree.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.reactive import var
from textual.timer import Timer
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from tui_agent.agent.port import ConversationPort
from tui_agent.agent.tree import TreeEvent, Unsubscribe
from tui_agent.agent.tree_nodes import (
    NodeCancelled,
    NodeCreated,
    NodeEnded,
    NodeEvent,
    NodeFailed,
    NodeStarted,
    NodeState,
)
from tui_agent.tool_call import ToolCall
from tui_agent.ui.textual_private import relabel_tree_node, steady_scrollbars
from tui_agent.ui.widgets.task_items import NODE_GLYPHS, TOOL_GLYPHS, TreeItem, user_label

Clock = Callable[[], float]
TICK_SECONDS = 0.5
TOOL_NODE = "tool:"
"""How the id of a tool call's node starts (`tui_agent.agent.turn_jobs.tool_node_id`)."""


@steady_scrollbars
class TaskTree(Tree[str]):
    """The current turn in the user's words (the turn, its tool calls, sub-agents and theirs); `i` shows the
    engine's internals (every job and handler) instead. Select a running item and press Delete or x to cancel it."""

    DEFAULT_CSS = """
    TaskTree {  /* hidden until asked for; then between the conversation and the tool panels */
        display: none;
        width: 1fr;
        min-width: 40;
        max-width: 60;
        border-left: vkey $panel;
        border-bottom: hkey $panel;
        border-subtitle-color: $text-muted;
        border-subtitle-align: left;
        padding: 0 1;
        scrollbar-size-vertical: 1;
    }
    """

    BINDINGS = [
        Binding("delete,x", "cancel_node", "Cancel", id="cancel_node"),
        Binding("i", "toggle_internals", "Internals", id="toggle_internals"),
    ]

    internals: var[bool] = var(False, toggle_class="-internals")
    """Show the engine's jobs and handlers by their own names (for people debugging their own jobs)."""

    class Typed(Message):
        """A character typed while the tree had the focus that no key binding takes: the next prompt's."""

        def __init__(self, character: str) -> None:
            super().__init__()
            self.character = character

    class Toggled(Message):
        """The tree was shown or hidden: the columns beside the conversation share the width again."""

    def __init__(self, backend: ConversationPort, *, clock: Clock, **options: Any) -> None:
        super().__init__("turn", **options)
        self.show_root = False
        self.guide_depth = 2
        self._backend = backend
        self._clock = clock
        self.items: dict[str, TreeItem] = {}
        """The model, in creation order (parents before children)."""
        self._shown_nodes: dict[str, TreeNode[str]] = {}
        self._unsubscribe: Unsubscribe | None = None
        self._timer: Timer | None = None
        self._hinted = False
        self._cursor_key: str | None = None
        """The selected item when the panel was hidden, selected again when it is shown."""
        self._typing_away = False
        """A key typed here went to the prompt: the keys after it follow until the focus has moved."""

    # -- life -----------------------------------------------------------------------------------
    def on_mount(self) -> None:
        self._timer = self.set_interval(TICK_SECONDS, self._tick, pause=True)
        self._unsubscribe = self._backend.subscribe_tree(self.follow)

    def on_unmount(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    @property
    def shown(self) -> bool:
        return self.display

    def toggle(self) -> None:
        """Show (rebuilt from the model, focused) or hide the panel."""
        self.show() if not self.display else self.hide()

    def show(self) -> None:
        self.display = True
        self.post_message(self.Toggled())
        self._rebuild()
        self.focus()
        self.call_after_refresh(self._show_keys)
        if not self._hinted:
            self._hinted = True
            self.call_after_refresh(self._show_hint)

    def _show_hint(self) -> None:
        """Say once how to cancel, with the keys in force (the `[keys]` table may have changed them)."""
        cancel = self._keys_for("cancel_node") or "the cancel key"
        internals = self._keys_for("toggle_internals") or "the internals key"
        hide = self._keys_for("toggle_task_tree") or "Ctrl+T"
        self.notify(
            f"Select a running item and press {cancel} to cancel it and everything under it; {internals} shows the "
            f"engine's jobs and handlers; {hide} hides the tree.",
            title="Task tree",
            timeout=6,
        )

    def _show_keys(self) -> None:
        """The keys the tree takes, under it (with the keys in force)."""
        cancel = self._keys_for("cancel_node") or "cancel key"
        internals = self._keys_for("toggle_internals") or "internals key"
        shown = "your words" if self.internals else "internals"
        self.border_subtitle = f"{cancel} cancel · {internals} {shown}"

    def _keys_for(self, action: str) -> str:
        keys = [
            self.app.get_key_display(active.binding)
            for active in self.screen.active_bindings.values()
            if active.binding.action in (action, f"app.{action}")
        ]
        return " or ".join(dict.fromkeys(keys))

    def hide(self) -> None:
        had_focus = self.has_focus
        selected = self.selected_item()
        self._cursor_key = selected.key if selected is not None else None
        self.display = False
        self.post_message(self.Toggled())
        if self._timer is not None:
            self._timer.pause()
        self.clear()  # nothing stale is kept while hidden; showing rebuilds from the model
        self._shown_nodes.clear()
        if had_focus:
            self.screen.focus_next()

    def action_toggle_internals(self) -> None:
        """Switch between the user's view and the engine's, keeping the selection (or the item holding it)."""
        selected = self.selected_item()
        self._cursor_key = selected.key if selected is not None else None
        self.internals = not self.internals
        self._rebuild()
        self._show_keys()

    # -- events ---------------------------------------------------------------------------------
    def on_key(self, event: events.Key) -> None:
        """Typing here starts the next prompt (the screen moves it there), unless the key is bound (x cancels);
        once it has begun, every key typed before the prompt has the focus goes there too (spaces, an x)."""
        if not (event.is_printable and event.character):
            return
        if self._typing_away or event.key not in self.screen.active_bindings:
            self._typing_away = True
            event.stop()
            event.prevent_default()
            self.post_message(self.Typed(event.character))

    def on_blur(self) -> None:
        self._typing_away = False

    def follow(self, event: TreeEvent) -> None:
        """Take one commander node event: update the model, and the widget only while it is shown."""
        item = self._follow_node(event)
        if item is not None and self.display:
            self._show_item(item)

    def follow_call(self, call: ToolCall) -> None:
        """Take a tool call's update from the turn's stream: its node shows the call's status."""
        item = self.items.get(f"n{TOOL_NODE}{call.message_id}/{call.call_id}")
        if item is None:  # not run (yet): invalid, over budget, or still being written
            return
        item.tool_status = call.status
        item.glyph = TOOL_GLYPHS[call.status]  # the call's status says more than its node's state
        item.started_at, item.ended_at = call.started_at, call.finished_at  # running time, approval not counted
        if self.display:
            self._show_item(item)

    def _follow_node(self, event: NodeEvent) -> TreeItem | None:
        key = f"n{event.node_id}"
        item = self.items.get(key)
        if isinstance(event, NodeCreated):
            return self._create(key, event)
        if item is None:
            return None
        if isinstance(event, NodeEnded):
            item.state = _final_state(event)
        elif isinstance(event, NodeStarted):
            item.state = NodeState.ACTIVE
        if item.kind == "tool":  # its call's updates give it the rest
            item.active = not isinstance(event, NodeEnded)
            if item.tool_status is None:
                item.glyph = NODE_GLYPHS[item.state]
        elif isinstance(event, NodeStarted):
            item.glyph, item.started_at = NODE_GLYPHS[NodeState.ACTIVE], event.at
        elif isinstance(event, NodeEnded):
            item.glyph, item.active, item.ended_at = NODE_GLYPHS[item.state], False, event.at
            item.started_at = event.started_at
        return item

    def _create(self, key: str, event: NodeCreated) -> TreeItem:
        parent = f"n{event.parent_id}"
        if parent not in self.items:  # a node under the commander: a new turn replaces the tree
            self._reset()
            parent = ""
        above = self.items.get(parent)
        shown_parent = (above.key if above.title or above.parent is None else above.shown_parent) if above else None
        kind = "tool" if str(event.node_id).startswith(TOOL_NODE) else str(event.kind)
        holder = self.items.get(shown_parent or "")
        if event.title and kind != "tool" and holder is not None and holder.kind == "tool":
            kind = "agent"  # the turn an `ask_<agent>` call runs
        item = TreeItem(
            key,
            parent or None,
            event.name,
            kind,
            NODE_GLYPHS[NodeState.PENDING],
            active=True,
            node_id=event.node_id,
            title=event.title if event.title or kind != "tool" else event.name,
            shown_parent=shown_parent,
        )
        self.items[key] = item
        if holder is not None and item.title:
            holder.shown_children.append(key)
        return item

    def _reset(self) -> None:
        self.items.clear()
        if self.display:
            self.clear()
            self._shown_nodes.clear()

    # -- the widget (only while shown) ------------------------------------------------------------
    def _in_view(self, item: TreeItem) -> bool:
        """Whether the current view shows it: the internals view every node, the user's the titled ones (but a
        sub-agent's turn, which its call's line stands for)."""
        return self.internals or (bool(item.title) or item.parent is None) and item.kind != "agent"

    def _agent_of(self, item: TreeItem) -> TreeItem | None:
        """The sub-agent an `ask_<agent>` call runs, once its turn has begun."""
        if item.kind != "tool":
            return None
        return next((self.items[key] for key in item.shown_children if self.items[key].kind == "agent"), None)

    def _rebuild(self) -> None:
        self.clear()
        self._shown_nodes.clear()
        for item in self.items.values():
            self._show_item(item)
        key = self._cursor_key
        while key is not None and key not in self._shown_nodes:  # hidden in this view: the item holding it
            key = self.items[key].shown_parent if key in self.items else None
        if (node := self._shown_nodes.get(key or "")) is not None:
            self.call_after_refresh(self.move_cursor, node)  # where it was (lines exist after layout)

    def _label(self, item: TreeItem, now: float) -> Text:
        if self.internals:
            return item.internals_label(now)
        width = self._room(item)
        if (agent := self._agent_of(item)) is not None:  # "researcher · 2 tools · done", with its call's state
            return user_label(item, [self.items[key] for key in agent.shown_children], now, agent, width)
        return user_label(item, [self.items[key] for key in item.shown_children], now, width=width)

    def _room(self, item: TreeItem) -> int:
        """The cells `item`'s label has in the user's view (0 before the tree is laid out): each level is
        indented by the guide."""
        depth, above = 0, self._user_parent(item)
        while above is not None:
            depth, above = depth + 1, self._user_parent(self.items[above])
        width = self.scrollable_content_region.width
        return max(width - depth * self.guide_depth - 1, 1) if width else 0

    def on_resize(self) -> None:
        """Labels are folded to the width: draw them again at the new one."""
        if self.display and not self.internals:
            now = self._clock()
            for key, node in self._shown_nodes.items():
                relabel_tree_node(node, self._label(self.items[key], now))

    def _show_item(self, item: TreeItem) -> None:
        """Draw `item` if the view shows it, then the items above it, whose lines count what runs under them."""
        if self._in_view(item):
            self._draw(item)
        if not self.internals and (holder := self.items.get(item.shown_parent or "")) is not None:
            self._show_item(holder)

    def _draw(self, item: TreeItem) -> None:
        label = self._label(item, self._clock())
        node = self._shown_nodes.get(item.key)
        if node is None:
            above = item.parent if self.internals else self._user_parent(item)
            parent = self._shown_nodes.get(above, self.root) if above else self.root
            node = parent.add(label, data=item.key, expand=True, allow_expand=False)
            self._shown_nodes[item.key] = node
        elif node.label != label:
            relabel_tree_node(node, label)
        if item.active and item.started_at is not None and self._timer is not None:
            self._timer.resume()

    def _user_parent(self, item: TreeItem) -> str | None:
        """Where the user's view puts `item`: under its nearest titled ancestor, a sub-agent's items under the
        call that runs it (the call's line is the agent's)."""
        above = self.items.get(item.shown_parent or "")
        if above is not None and above.kind == "agent":
            return above.shown_parent
        return above.key if above is not None else None

    def _tick(self) -> None:
        """Advance the elapsed time of running nodes in view; stop ticking when none is left running. Rows
        scrolled out of view get theirs when they come back (`watch_scroll_y`)."""
        running = [item for item in self.items.values() if item.active and item.key in self._shown_nodes]
        if not running or not self.display:
            if self._timer is not None:
                self._timer.pause()
            return
        now = self._clock()
        top = round(self.scroll_offset.y)
        bottom = top + self.scrollable_content_region.height
        for item in running:
            node = self._shown_nodes[item.key]
            if node.line < 0 or top <= node.line < bottom:  # -1: not laid out yet (drawn whole when it is)
                label = self._label(item, now)
                if node.label != label:
                    relabel_tree_node(node, label)

    def watch_scroll_y(self, old: float, new: float) -> None:
        """Rows scrolled into view show their running time as of now (ticks skip rows out of view)."""
        super().watch_scroll_y(old, new)
        if self.display and self._timer is not None and any(item.active for item in self.items.values()):
            self._tick()

    # -- cancel ---------------------------------------------------------------------------------
    def selected_item(self) -> TreeItem | None:
        node = self.cursor_node
        return self.items.get(node.data) if node is not None and node.data is not None else None

    def action_cancel_node(self) -> None:
        """Cancel the selected running node and its subtree."""
        item = self.selected_item()
        if item is None or item.node_id is None:
            return
        name = item.name if self.internals else item.user_name
        agent = None if self.internals else self._agent_of(item)  # its line is the sub-agent's
        if not item.active:
            self.notify(f"{name} has already ended.", severity="warning")
        elif not self._backend.cancel_node(item.node_id):
            self.notify(f"{name} could not be cancelled: it is no longer running.", severity="warning")
        elif item.kind == "agent" or agent is not None:
            who = (agent or item).user_name
            self.notify(f"Cancelled the sub-agent {who}; the turn goes on without it.", title="Task tree")
        elif item.kind == "tool":
            self.notify(f"Interrupted {name}; the turn goes on with that answer.", title="Task tree")
        else:
            self.notify(f"Cancelled {name} and everything under it.", title="Task tree")


def _final_state(event: NodeEnded) -> NodeState:
    if isinstance(event, NodeFailed):
        return NodeState.FAILED
    if isinstance(event, NodeCancelled):
        return NodeState.CANCELLED
    return NodeState.COMPLETED
