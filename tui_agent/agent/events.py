"""Provides the typed events a chat turn emits and the UI renders.

The UI never reaches into the agent: it consumes these events (from `Agent.send(...)`'s event stream)
and sends intents back (send, cancel, approve). Every event is a frozen dataclass; text inside is
untrusted (model output, tool arguments and results) and must be sanitised before display.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from tui_agent.llm.events import RetryScheduled

# Re-exported: the UI reads statuses from the events it renders.
from tui_agent.status import MessageStatus as MessageStatus
from tui_agent.status import ToolStatus as ToolStatus
from tui_agent.status import TurnEndReason as TurnEndReason


@dataclass(frozen=True)
class TurnStarted:
    """A user prompt was persisted and a turn begins."""

    session_id: str
    user_message_id: str
    prompt: str


@dataclass(frozen=True)
class AssistantMessageStarted:
    """A new assistant message (one per model response in the turn) was persisted as `streaming`, or an
    earlier one streams again to be continued (`text`: what it already says; the new text follows it)."""

    message_id: str
    text: str = ""


@dataclass(frozen=True)
class ReplyReplaced:
    """A retry begins: reply `message_id` is replaced by the reply that starts next. It stays in history
    (marked `replaced_by`) and on screen, dimmed; the model no longer sees it."""

    message_id: str


@dataclass(frozen=True)
class ReplyWaiting:
    """No reply yet: the request went out at `since`, or failed and `retry` says when it goes out again.

    Times are `time.monotonic()` readings. It holds until the reply's first text or tool call (or its end);
    `describe(now)` says it in the status line's words, with the timer moved on to `now`.
    """

    message_id: str
    since: float
    retry: RetryScheduled | None = None

    def describe(self, now: float) -> str:
        retry = self.retry
        if retry is None:
            return f"waiting for the server {int(max(0.0, now - self.since))} s"
        count = f"{retry.attempt} of {retry.retries}"
        if now < retry.at:
            why = "rate limited" if retry.status == 429 else f"server error {retry.status}"
            return f"{why} — retrying in {math.ceil(retry.at - now)} s ({count})"
        return f"waiting for the server {int(now - retry.at)} s (retry {count})"


@dataclass(frozen=True)
class AssistantTextDelta:
    """More user-facing text: content deltas and `to_user` text decoded from tool arguments."""

    message_id: str
    text: str


@dataclass(frozen=True)
class AssistantReasoningDelta:
    """More of the model's reasoning for message `message_id` (it comes before the reply's text): shown in
    the thinking block above the answer and saved, never sent back to the model."""

    message_id: str
    text: str


@dataclass(frozen=True)
class AssistantMessageFinished:
    """An assistant message reached its final status; `error` says what went wrong when FAILED."""

    message_id: str
    status: MessageStatus
    error: str | None = None


@dataclass(frozen=True)
class ToolCallUpdated:
    """A tool call appeared or changed: arguments streaming in, status, timing or result.

    Each update carries the full current state of the call, so a renderer never needs the history.
    """

    call_id: str
    message_id: str
    name: str
    arguments: str
    """Raw argument text as streamed so far (complete once status leaves PENDING)."""
    status: ToolStatus
    started_at: float | None = None
    """Monotonic-clock seconds when the tool started running."""
    finished_at: float | None = None
    result: str | None = None
    error: str | None = None
    command: str | None = None
    """While AWAITING_APPROVAL, for a command-like tool: the command, the only thing "always" would allow."""

    @property
    def key(self) -> tuple[str, str]:
        """What tells one call of the session from another: its assistant message and its call id. The call id
        alone does not, as many servers number calls per response (`call_0` in every reply)."""
        return (self.message_id, self.call_id)


@dataclass(frozen=True)
class UsageUpdated:
    """Token usage for the session so far."""

    prompt_tokens: int
    completion_tokens: int


@dataclass(frozen=True)
class TurnFinished:
    """The whole turn (all responses and tool rounds) ended."""

    reason: TurnEndReason
    error: str | None = None


AgentEvent = (
    TurnStarted
    | AssistantMessageStarted
    | ReplyReplaced
    | ReplyWaiting
    | AssistantTextDelta
    | AssistantReasoningDelta
    | AssistantMessageFinished
    | ToolCallUpdated
    | UsageUpdated
    | TurnFinished
)
"""Everything a turn can emit, in the order it happens."""
