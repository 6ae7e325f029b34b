"""Provides the typed events a chat turn emits and the UI renders.

The UI never reaches into the agent: it consumes these events (from `Agent.send(...)`'s event stream)
and sends intents back (send, cancel). The one question a turn asks, approval of a tool call, is an event
too: `ApprovalRequested` carries a future the UI resolves. Every event is a frozen dataclass carrying the
id of the turn it belongs to (so a nested turn's events cannot pass for its parent's); text inside is
untrusted (model output, tool arguments and results) and must be sanitised before display.
"""

from __future__ import annotations

import asyncio
import math
from dataclasses import dataclass, field

from tui_agent.llm.events import RetryScheduled

# Re-exported: the UI reads statuses from the events it renders.
from tui_agent.status import MessageStatus as MessageStatus
from tui_agent.status import ToolStatus as ToolStatus
from tui_agent.status import TurnEndReason as TurnEndReason
from tui_agent.tool_call import CallKey, Decision, ToolCall


@dataclass(frozen=True)
class TurnEvent:
    """What every event has: the turn it belongs to."""

    turn_id: str = field(default="", kw_only=True)
    """The id of the turn that emitted it ("" for events made outside a turn, such as a test's)."""


@dataclass(frozen=True)
class TurnStarted(TurnEvent):
    """A user prompt was persisted and a turn begins."""

    session_id: str
    user_message_id: str
    prompt: str
    branches_from: str | None = None
    """For an edited prompt: the user message it is a new version of (a sibling on a new branch)."""


@dataclass(frozen=True)
class AssistantMessageStarted(TurnEvent):
    """A new assistant message (one per model response in the turn) was persisted as `streaming` (`text`:
    what it already says, for a continuation; the new text follows it)."""

    message_id: str
    text: str = ""
    agent: str | None = None
    """The team member writing it (its label in the log); None: the session's own agent."""
    continues: str | None = None
    """For a continuation: the cut-off reply it goes on from, kept as its sibling (the screen's widget of that
    reply may stream on as this one)."""


@dataclass(frozen=True)
class ReplyReplaced(TurnEvent):
    """A retry begins: reply `message_id` is replaced by the reply that starts next. It stays in history
    (marked `replaced_by`) and on screen, dimmed; the model no longer sees it."""

    message_id: str


@dataclass(frozen=True)
class ReplyWaiting(TurnEvent):
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
class AssistantTextDelta(TurnEvent):
    """More user-facing text: content deltas and `to_user` text decoded from tool arguments."""

    message_id: str
    text: str


@dataclass(frozen=True)
class AssistantPartDelta(TurnEvent):
    """More of a part of message `message_id` other than its text, of `kind` ("reasoning": the model's
    reasoning, shown in the thinking block above the answer): shown and saved, never sent back to the model."""

    message_id: str
    kind: str
    text: str


@dataclass(frozen=True)
class AssistantMessageFinished(TurnEvent):
    """An assistant message reached its final status; `error` says what went wrong when FAILED."""

    message_id: str
    status: MessageStatus
    error: str | None = None


@dataclass(frozen=True)
class ToolCallUpdated(TurnEvent):
    """A tool call appeared or changed: arguments streaming in, status, timing or result.

    Each update carries the whole call as it stands, so a renderer never needs the history.
    """

    call: ToolCall

    @property
    def key(self) -> CallKey:
        return self.call.key


@dataclass(frozen=True)
class ApprovalRequested(TurnEvent):
    """The turn waits for the user to allow `call` (AWAITING_APPROVAL, its panel already shows it so).

    Whoever shows the turn resolves `answer`; the turn cancels it if it ends first (Esc), so the question
    can be taken away. Left unanswered, the call waits.
    """

    call: ToolCall
    answer: asyncio.Future[Decision] = field(compare=False)
    external: bool = False  # asked by an external (ACP) agent for its own tool, which `--allow` does not name


@dataclass(frozen=True)
class UsageUpdated(TurnEvent):
    """Token usage for the session so far."""

    prompt_tokens: int
    completion_tokens: int


@dataclass(frozen=True)
class TurnFinished(TurnEvent):
    """The whole turn (all responses and tool rounds) ended."""

    reason: TurnEndReason
    error: str | None = None


@dataclass(frozen=True)
class TeamStopped(TurnEvent):
    """A team run stopped (just before its `TurnFinished`): `reason` says why, in words ("critic said
    APPROVED", "max_rounds (4) reached", "router: done — ..."); it is stored as the session's stop reason."""

    team: str
    reason: str
    rounds: int


@dataclass(frozen=True)
class SubAgentEvent(TurnEvent):
    """An event of a sub-agent's turn, which tool call `call` of this turn (an `ask_<agent>` call) runs.

    The sub-agent's events reach its caller's stream wrapped in this, as deep as delegation goes, so the
    caller's panel for `call` can show the sub-agent live (its text, reasoning, tool calls, approvals) and
    an `ApprovalRequested` inside can say which agent asks. `session_id` is the sub-agent's own (child)
    session; `event.turn_id` is the sub-agent's turn, `turn_id` the caller's.
    """

    call: CallKey
    agent: str
    session_id: str
    event: AgentEvent


AgentEvent = (
    TurnStarted
    | AssistantMessageStarted
    | ReplyReplaced
    | ReplyWaiting
    | AssistantTextDelta
    | AssistantPartDelta
    | AssistantMessageFinished
    | ToolCallUpdated
    | ApprovalRequested
    | UsageUpdated
    | TurnFinished
    | SubAgentEvent
    | TeamStopped
)
"""Everything a turn can emit, in the order it happens."""
