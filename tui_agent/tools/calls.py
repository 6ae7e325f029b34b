"""Provides the values exchanged around one tool call: the request, its live state, approval, result."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from tui_agent.status import ToolStatus


@dataclass(frozen=True)
class ToolCallRequest:
    """The model asked for `name` with `arguments` (already parsed from JSON, `to_user` removed)."""

    call_id: str
    name: str
    arguments: Mapping[str, Any]


@dataclass(frozen=True)
class ToolCallState:
    """One call as it stands; the runner reports a new one at every status change.

    Times are `time.monotonic()` seconds.
    """

    call_id: str
    name: str
    arguments: Mapping[str, Any]
    status: ToolStatus
    started_at: float | None = None
    finished_at: float | None = None
    result: str | None = None
    error: str | None = None


@dataclass(frozen=True)
class ApprovalRequest:
    """The question put to the user before an `ask` tool runs."""

    call_id: str
    tool_name: str
    arguments: Mapping[str, Any]
    command: str | None = None
    """For a command-like tool, the command: "always" would then allow this exact command only."""


class Decision(StrEnum):
    """The user's answer to an `ApprovalRequest`."""

    ALLOW_ONCE = "allow_once"
    ALLOW_ALWAYS = "allow_always"
    """Allow this tool (a command-like tool: this exact command) for the rest of this session."""
    DENY = "deny"


@dataclass(frozen=True)
class ToolResult:
    """What goes back to the model for one call: always a text, whatever happened."""

    call_id: str
    content: str
    status: ToolStatus
