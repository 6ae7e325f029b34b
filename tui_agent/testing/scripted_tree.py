"""Provides `ScriptedTree`: the task tree a `ScriptedBackend` turn shows, shaped like the agent's real one.

Each scripted turn opens ChatJob → ResponseJob → respond → (show_reply, run_tools); tool-call updates are
passed on as the agent passes them; the nodes end together when the turn ends (cancelled if it was).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable

from tui_agent.agent.events import AgentEvent, ToolCallUpdated
from tui_agent.agent.tree import TreeEvent, TreeObserver, Unsubscribe
from tui_agent.commander.events import NodeCancelled, NodeCreated, NodeFinished, NodeKind, NodeStarted

# (name, kind, index of the parent in this list or None for the commander)
TURN_SHAPE = (
    ("ChatJob", NodeKind.JOB, None),
    ("ResponseJob", NodeKind.JOB, 0),
    ("respond", NodeKind.HANDLER, 1),
    ("show_reply", NodeKind.HANDLER, 2),
    ("run_tools", NodeKind.HANDLER, 2),
)


class ScriptedTree:
    """Observers of the scripted turns' fake tree, and the nodes of the turn now running."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        """When nodes start and end (a fixed clock makes snapshots repeatable)."""
        self._observers: list[TreeObserver] = []
        self._ids = itertools.count(1)
        self._open: list[tuple[int, int | None, str, NodeKind, float]] = []
        """Nodes of the running turn: (id, parent id, name, kind, started at)."""

    def subscribe(self, observer: TreeObserver) -> Unsubscribe:
        self._observers.append(observer)
        return lambda: self._observers.remove(observer) if observer in self._observers else None

    def is_open(self, node_id: int | str) -> bool:
        return any(node[0] == node_id for node in self._open)

    def begin_turn(self) -> None:
        ids: list[int] = []
        for name, kind, parent in TURN_SHAPE:
            node_id, parent_id, now = next(self._ids), ids[parent] if parent is not None else 0, self._clock()
            ids.append(node_id)
            self._open.append((node_id, parent_id, name, kind, now))
            self._emit(NodeCreated(node_id, parent_id, kind, name, now))
            self._emit(NodeStarted(node_id, parent_id, kind, name, now))

    def follow(self, event: AgentEvent) -> None:
        if isinstance(event, ToolCallUpdated):
            self._emit(event)

    def end_turn(self, cancelled: bool) -> None:
        ended = NodeCancelled if cancelled else NodeFinished
        open_nodes, self._open = self._open, []
        for node_id, parent_id, name, kind, started in reversed(open_nodes):
            self._emit(ended(node_id, parent_id, kind, name, self._clock(), started))

    def _emit(self, event: TreeEvent) -> None:
        for observer in list(self._observers):
            observer(event)
