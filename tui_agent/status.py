"""Provides the status vocabularies every layer shares: message and tool-call lifecycles, roles, turn ends.

They live here, below every domain package, so history stores, the tool runner reports, the agent emits
and the UI renders exactly the same values.
"""

from __future__ import annotations

from enum import StrEnum


class Role(StrEnum):
    """Who wrote a message."""

    SYSTEM = "system"
    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"


class MessageStatus(StrEnum):
    """Lifecycle of an assistant message, as stored in history."""

    STREAMING = "streaming"
    COMPLETE = "complete"
    INTERRUPTED = "interrupted"
    FAILED = "failed"


class ToolStatus(StrEnum):
    """Lifecycle of one tool call, as stored in history and shown on its panel."""

    PENDING = "pending"
    AWAITING_APPROVAL = "awaiting_approval"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    DENIED = "denied"
    INTERRUPTED = "interrupted"

    @property
    def is_final(self) -> bool:
        """True once the call can change no more."""
        return self in _FINAL_TOOL_STATUSES


_FINAL_TOOL_STATUSES = frozenset({ToolStatus.DONE, ToolStatus.FAILED, ToolStatus.DENIED, ToolStatus.INTERRUPTED})


class TurnEndReason(StrEnum):
    """Why a turn ended; anything but DONE is shown to the user."""

    DONE = "done"
    CANCELLED = "cancelled"
    BUDGET = "budget"
    ERROR = "error"
    LENGTH = "length"
    """The last reply was cut off at the token limit (`finish_reason: "length"`); it can be continued."""


CUT_OFF = "Cut off at the token limit"
"""How a reply cut at the token limit is marked: it is stored `interrupted` (it did stop before it was
finished) with an `error` that starts with this, and its turn ends with `TurnEndReason.LENGTH`."""


def is_cut_off(status: MessageStatus, error: str | None) -> bool:
    """True for a reply (stored or just finished) that was cut off at the token limit."""
    return status is MessageStatus.INTERRUPTED and error is not None and error.startswith(CUT_OFF)
