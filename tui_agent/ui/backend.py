"""Provides `ChatBackend`, the one interface the UI drives, and `ApprovalDecision`, its answer to an approval.

The agent implements the protocol; the UI only consumes the `AgentEvent`s that `send` yields and sends
intents back (send, cancel, approve). Tests and benchmarks drive the same screen with a scripted backend.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from enum import StrEnum
from typing import Protocol

from tui_agent.agent.events import AgentEvent, ToolCallUpdated


class ApprovalDecision(StrEnum):
    """What the person chose in the approval modal (same values as the tool runner's `Decision`)."""

    ALLOW_ONCE = "allow_once"
    ALLOW_ALWAYS = "allow_always"
    DENY = "deny"


Approver = Callable[[ToolCallUpdated], Awaitable[ApprovalDecision]]
"""Asks the person about one tool call (status AWAITING_APPROVAL, full arguments) and returns the choice."""


class ChatBackend(Protocol):
    """A chat session as the screen sees it."""

    @property
    def model(self) -> str:
        """Model name for the status bar."""
        ...

    @property
    def endpoint(self) -> str:
        """"offline model" or the endpoint's host, for the status bar."""
        ...

    @property
    def session_title(self) -> str:
        """Current session title (may change after the first prompt)."""
        ...

    @property
    def notices(self) -> list[str]:
        """Sentences to show once at start (recovered database, skipped plugins, offline model…)."""
        ...

    def start(self) -> None:
        """Begin any background preparation; called once the first frame is up. May do nothing."""

    def send(self, prompt: str) -> AsyncIterator[AgentEvent]:
        """Run one turn, yielding its events up to and including `TurnFinished`."""
        ...

    def cancel(self) -> None:
        """Cancel the running turn (no-op when idle); the event stream then ends with an interrupted turn."""

    def set_approver(self, approver: Approver | None) -> None:
        """Plug in the function that asks the person about `ask` tools (None: deny them)."""

    async def close(self) -> None:
        """Cancel what runs and release resources; called when the app exits."""
