"""Provides node states and the typed events the commander delivers to observers.

Observers (`CommanderAsync.subscribe`) receive one event per state change of every node, which is how
the UI's task-tree view and the tests follow the tree without reaching into it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class NodeState(StrEnum):
    """Where a node is in its life; the last three are final."""

    PENDING = "pending"
    ACTIVE = "active"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"


class NodeKind(StrEnum):
    """What a node is."""

    COMMANDER = "commander"
    JOB = "job"
    HANDLER = "handler"


@dataclass(frozen=True, slots=True)
class NodeEvent:
    """Common fields of every node event."""

    node_id: int | str
    parent_id: int | str | None
    kind: NodeKind
    name: str
    at: float
    """`time.monotonic()` when the event happened."""
    title: str = field(default="", kw_only=True)
    """The node's `TaskNode.title`: what it is in the user's words ("turn 3", "get_weather(Paris)"); "" for the
    engine's own steps."""


@dataclass(frozen=True, slots=True)
class NodeCreated(NodeEvent):
    """A node joined the tree (pending)."""


@dataclass(frozen=True, slots=True)
class NodeStarted(NodeEvent):
    """A node's own body began running."""


@dataclass(frozen=True, slots=True)
class NodeEnded(NodeEvent):
    """Common fields of the three final events."""

    started_at: float | None
    """When the body started; None if it never ran (cancelled while pending)."""


@dataclass(frozen=True, slots=True)
class NodeFinished(NodeEnded):
    """The node's body returned and every child ended."""


@dataclass(frozen=True, slots=True)
class NodeFailed(NodeEnded):
    """The node's body raised; `error` is the exception's text."""

    error: str


@dataclass(frozen=True, slots=True)
class NodeCancelled(NodeEnded):
    """The node was cancelled (directly, through an ancestor, or by commander exit)."""


@dataclass(frozen=True, slots=True)
class CallbackFailed(NodeEvent):
    """A callback attached to a node raised; the tree carried on."""

    hook: str
    function: str
    error: str
