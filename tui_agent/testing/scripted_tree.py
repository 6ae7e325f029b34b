"""Provides `ScriptedTree`: the task tree a `ScriptedBackend` turn shows, drawn from the agent's own shape.

Each scripted turn opens the nodes of `tui_agent.agent.turn_jobs.TURN_SHAPE` (the real jobs' and handlers'
names, which a test checks against a real turn's tree); each tool call the script shows gets a node of its
own under `run_tools`, with the id and name the real turn gives it (`tool_node_id`, the tool's name), ended
when the call reaches a final status. A sub-agent's events (`SubAgentEvent`) open its turn's nodes under
its call's node, as the agent runs a delegate's turn, and its own calls under its `run_tools`; they end with
its `TurnFinished`. The nodes still open end together when the turn ends (cancelled if it was). Titles are the
agent's: "turn N" on each turn's first node, the agent's name on a sub-agent's, `ToolCall.headline()` on a call's.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable

from tui_agent.agent.events import AgentEvent, SubAgentEvent, ToolCallUpdated, TurnFinished
from tui_agent.agent.tree import TreeEvent, TreeObserver, Unsubscribe
from tui_agent.agent.turn_jobs import TURN_SHAPE, tool_node_id
from tui_agent.commander.events import NodeCancelled, NodeCreated, NodeFinished, NodeKind, NodeStarted
from tui_agent.tool_call import ToolCall

OpenNode = tuple[int | str, int | str, str, NodeKind, float, str]
"""(id, parent id, name, kind, started at, title)."""


class ScriptedTree:
    """Observers of the scripted turns' tree, and the nodes of the turn now running."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        """When nodes start and end (a fixed clock makes snapshots repeatable)."""
        self._observers: list[TreeObserver] = []
        self._ids = itertools.count(1)
        self._open: list[OpenNode] = []
        self._tool_parent: int | str = 0
        self._seen: set[int | str] = set()
        self._sub_turns: dict[int | str, list[int | str]] = {}
        """The nodes of each sub-agent's turn, by the node of the call that runs it."""
        self._turns = 0

    def subscribe(self, observer: TreeObserver) -> Unsubscribe:
        self._observers.append(observer)
        return lambda: self._observers.remove(observer) if observer in self._observers else None

    def is_open(self, node_id: int | str) -> bool:
        return any(node[0] == node_id for node in self._open)

    def begin_turn(self) -> None:
        self._turns += 1
        self._tool_parent = self._open_turn(0, f"turn {self._turns}")[-1]  # run_tools

    def _open_turn(self, under: int | str, title: str) -> list[int | str]:
        """The turn's nodes; its first (the `ChatJob`) carries its title, as the agent's does."""
        ids: list[int | str] = []
        for name, kind, parent in TURN_SHAPE:
            below = ids[parent] if parent is not None else under
            ids.append(self._start(next(self._ids), below, name, kind, "" if ids else title))
        return ids

    def follow(self, event: AgentEvent, tool_parent: int | str | None = None) -> None:
        """A tool call's first update opens its node; its final one ends it. A sub-agent's first event opens
        its turn under its call's node."""
        if isinstance(event, SubAgentEvent):
            self._follow_sub_agent(event)
        if not isinstance(event, ToolCallUpdated):
            return
        node_id = tool_node_id(event.call)
        if node_id not in self._seen:
            self._seen.add(node_id)
            self._start(
                node_id, tool_parent or self._tool_parent, event.call.name, NodeKind.HANDLER, event.call.headline()
            )
        if event.call.status.is_final:
            self._end([node for node in self._open if node[0] == node_id], cancelled=False)

    def _follow_sub_agent(self, event: SubAgentEvent) -> None:
        caller = tool_node_id(ToolCall(event.call[1], "", message_id=event.call[0]))
        nodes = self._sub_turns.get(caller)
        if nodes is None:
            nodes = self._sub_turns[caller] = self._open_turn(caller, event.agent)
        self.follow(event.event, nodes[-1])
        if isinstance(event.event, TurnFinished):
            self._end([node for node in self._open if node[0] in nodes], cancelled=False)

    def end_turn(self, cancelled: bool) -> None:
        self._end(list(self._open), cancelled)

    def _start(self, node_id: int | str, parent_id: int | str, name: str, kind: NodeKind, title: str) -> int | str:
        now = self._clock()
        self._open.append((node_id, parent_id, name, kind, now, title))
        self._emit(NodeCreated(node_id, parent_id, kind, name, now, title=title))
        self._emit(NodeStarted(node_id, parent_id, kind, name, now, title=title))
        return node_id

    def _end(self, nodes: list[OpenNode], cancelled: bool) -> None:
        ended = NodeCancelled if cancelled else NodeFinished
        for node in reversed(nodes):
            self._open.remove(node)
            node_id, parent_id, name, kind, started, title = node
            self._emit(ended(node_id, parent_id, kind, name, self._clock(), started, title=title))

    def _emit(self, event: TreeEvent) -> None:
        for observer in list(self._observers):
            observer(event)
