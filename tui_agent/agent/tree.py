"""Provides `TreeFeed`: the live task tree of an agent's turns, for the UI's task-tree view.

A feed delivers the commander's node events plus the turn's `ToolCallUpdated` events (tool calls are run
by the `ToolRunner`, not as commander nodes; the view hangs them under the `run_tools` handler that runs
them). It subscribes to the commander only while someone observes, so an unobserved tree costs nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeAlias

if TYPE_CHECKING:  # the event classes load with the engine, after the first paint (the UI imports this)
    from tui_agent.agent.events import AgentEvent, ToolCallUpdated
    from tui_agent.commander import CommanderAsync
    from tui_agent.commander.events import NodeEvent

TreeEvent: TypeAlias = "NodeEvent | ToolCallUpdated"
"""What a task-tree observer receives: a commander node event or a tool call's latest state."""
TreeObserver: TypeAlias = "Callable[[TreeEvent], None]"
Unsubscribe: TypeAlias = "Callable[[], None]"
log = logging.getLogger("tui_agent.agent.tree")


class TreeFeed:
    """Fans one commander's node events and a turn's tool-call updates out to tree observers."""

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

    def tee(self, sink: Callable[[AgentEvent], None]) -> Callable[[AgentEvent], None]:
        """Wrap a turn's event sink so its tool-call updates also reach tree observers."""
        from tui_agent.agent.events import ToolCallUpdated

        def emit(event: AgentEvent) -> None:
            sink(event)
            if self._observers and isinstance(event, ToolCallUpdated):
                self._deliver(event)

        return emit

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
