"""Provides `TreeFeed`: the live task tree of an agent's turns, for the UI's task-tree view.

A feed delivers the commander's node events; each tool call is a node of its own (named after the tool,
id `tool_node_id(call)`), so the view can tie the call's `ToolCallUpdated` events from the turn's stream to
it. It subscribes to the commander only while someone observes, so an unobserved tree costs nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeAlias

if TYPE_CHECKING:  # the event classes load with the engine, after the first paint (the UI imports this)
    from tui_agent.commander import CommanderAsync
    from tui_agent.commander.events import NodeEvent

TreeEvent: TypeAlias = "NodeEvent"
"""What a task-tree observer receives: a commander node event."""
TreeObserver: TypeAlias = "Callable[[TreeEvent], None]"
Unsubscribe: TypeAlias = "Callable[[], None]"
log = logging.getLogger("tui_agent.agent.tree")


class TreeFeed:
    """Fans one commander's node events out to tree observers."""

    def __init__(self, commander: CommanderAsync[Any]) -> None:
        self._commander = commander
        self._observers: list[TreeObserver] = []
        self._detach: Unsubscribe | None = None

    def subscribe(self, observer: TreeObserver) -> Unsubscribe:
        """Deliver tree events to `observer` from now on; returns a function that stops it (idempotent)."""
        self._observers.append(observer)
        if self._detach is None:
            self._detach = self._commander.subscribe(self._deliver)

        def unsubscribe() -> None:
            if observer in self._observers:
                self._observers.remove(observer)
            if not self._observers and self._detach is not None:
                self._detach()
                self._detach = None

        return unsubscribe

    def cancel(self, node_id: int | str) -> bool:
        """Cancel the live node `node_id` and its subtree; False if there is no such running node."""
        node = self._commander.get_node(node_id)
        return node.cancel() if node is not None else False

    def _deliver(self, event: TreeEvent) -> None:
        for observer in list(self._observers):
            try:
                observer(event)
            except Exception:  # a broken view must never break the turn
                log.exception("task-tree observer failed on %s", type(event).__name__)
