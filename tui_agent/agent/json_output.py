"""Provides `print_json_turn`: one turn of `tui-agent -p --output-format json|stream-json`, as JSON.

`stream-json` writes one JSON object per line as the turn happens (`event_json` maps each agent event to
one; events a program has no use for, such as "still waiting", map to none), then the `result` object;
`json` writes the `result` object alone, once the turn ended. The schema is documented in docs/headless.md
and versioned by `SCHEMA_VERSION` (carried by the `start` event and the `result`): a field added keeps the
version, a field removed or changed in meaning raises it.

Text in the JSON is the model's and the tools' own, unsanitised (a program wants it exact), and every line is
ASCII (`ensure_ascii`): escapes and bidi controls are `\\u` sequences, so the output cannot drive a terminal
it is printed on. What is not data — notices, the hint for `--allow` — still goes to stderr as with `-p`.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, TextIO

from tui_agent.agent.events import (
    AgentEvent,
    ApprovalRequested,
    AssistantMessageFinished,
    AssistantMessageStarted,
    AssistantPartDelta,
    AssistantTextDelta,
    ReplyReplaced,
    ReplyWaiting,
    SubAgentEvent,
    TeamStopped,
    ToolCallUpdated,
    TurnFinished,
    TurnStarted,
    UsageUpdated,
)
from tui_agent.agent.headless import EXIT_STATUS, answer_unattended, counted
from tui_agent.status import TurnEndReason
from tui_agent.tool_call import CallKey, ToolCall

SCHEMA_VERSION = 1
OUTPUT_FORMATS = ("text", "json", "stream-json")
INPUT_FORMATS = ("text", "stream-json")

Json = dict[str, Any]


def dumps(value: Json) -> str:
    """One line of output: compact, ASCII only (nothing in it can drive a terminal)."""
    return json.dumps(value, ensure_ascii=True, separators=(",", ":"))


def call_json(call: ToolCall) -> Json:
    """A tool call as it stands: what it was asked, how it went, what it changed."""
    changes = [{"path": change.path, "added": added, "removed": removed} for change, (added, removed) in counted(call)]
    return {
        "id": call.call_id,
        "name": call.name,
        "arguments": dict(call.readable_arguments()),
        "status": call.status.value,
        "result": call.result,
        "error": call.error,
        "file_changes": changes,
    }


def event_json(event: AgentEvent, calls: dict[CallKey, str]) -> list[Json]:
    """The stream-json lines for `event` (none for an event a program has no use for, such as "still
    waiting"). `calls`: how far each call has been told ("tool.started", "tool.finished")."""
    if isinstance(event, AssistantTextDelta):
        return [{"type": "text", "message_id": event.message_id, "text": event.text}]
    if isinstance(event, ToolCallUpdated):
        return tool_events(event.call, calls)
    if isinstance(event, SubAgentEvent):
        return [
            {
                "type": "subagent",
                "agent": event.agent,
                "session_id": event.session_id,
                "call_id": event.call[1],
                "event": inner,
            }
            for inner in event_json(event.event, calls)
        ]
    line = single_event_json(event)
    return [] if line is None else [line]


def single_event_json(event: AgentEvent) -> Json | None:
    """The line for an event that makes at most one."""
    if isinstance(event, AssistantPartDelta):  # reasoning, refusal, ...: kept apart from the answer
        return {"type": "part", "message_id": event.message_id, "kind": event.kind, "text": event.text}
    if isinstance(event, TurnStarted):
        return {
            "type": "turn.started",
            "session_id": event.session_id,
            "turn_id": event.turn_id,
            "prompt": event.prompt,
        }
    if isinstance(event, AssistantMessageStarted):
        return {"type": "message.started", "message_id": event.message_id, "agent": event.agent}
    if isinstance(event, AssistantMessageFinished):
        return {"type": "message.finished", "message_id": event.message_id, "status": event.status.value}
    if isinstance(event, ReplyReplaced):
        return {"type": "message.replaced", "message_id": event.message_id}
    if isinstance(event, ApprovalRequested):
        return {"type": "approval.requested", "call": call_json(event.call)}
    if isinstance(event, UsageUpdated):
        return {"type": "usage", "input_tokens": event.prompt_tokens, "output_tokens": event.completion_tokens}
    if isinstance(event, ReplyWaiting):
        return retry_json(event)
    if isinstance(event, TeamStopped):
        return {"type": "team.stopped", "team": event.team, "reason": event.reason, "rounds": event.rounds}
    if isinstance(event, TurnFinished):
        return {"type": "turn.finished", "reason": event.reason.value, "error": event.error}
    return None


def tool_events(call: ToolCall, calls: dict[CallKey, str]) -> list[Json]:
    """`tool.started` once a call's arguments are whole, `tool.finished` when it ends: each once, in that
    order (a call that ends before its arguments parse is started and finished at once)."""
    told = calls.get(call.key)
    lines: list[Json] = []
    if told is None and (call.arguments is not None or call.status.is_final):
        lines.append({"type": "tool.started", "call": call_json(call)})
        told = calls[call.key] = "tool.started"
    if told == "tool.started" and call.status.is_final:
        lines.append({"type": "tool.finished", "call": call_json(call)})
        calls[call.key] = "tool.finished"
    return lines


def retry_json(event: ReplyWaiting) -> Json | None:
    """A rate limit or server error before the reply: when the request goes out again."""
    retry = event.retry
    if retry is None:
        return None
    wait = round(max(0.0, retry.at - time.monotonic()), 1)
    return {
        "type": "retry",
        "status": retry.status,
        "attempt": retry.attempt,
        "retries": retry.retries,
        "in_seconds": wait,
    }


@dataclass
class TurnResult:
    """What the `result` object says, gathered from the turn's events as they pass."""

    session_id: str | None = None
    text: list[str] = field(default_factory=list)
    calls: dict[CallKey, ToolCall] = field(default_factory=dict)
    stop_reason: str = TurnEndReason.ERROR.value
    errors: list[str] = field(default_factory=list)
    team_stopped: str | None = None

    def see(self, event: AgentEvent) -> None:
        if isinstance(event, AssistantTextDelta):
            self.text.append(event.text)
        elif isinstance(event, AssistantMessageStarted) and self.text:
            self.text.append("\n\n")  # each model response its own paragraph, as `-p` text prints it
        elif isinstance(event, ReplyReplaced):
            self.text.clear()  # a retry: the reply that follows replaces it
        elif isinstance(event, ToolCallUpdated):
            self.calls[event.key] = event.call
        elif isinstance(event, TurnStarted):
            self.session_id = event.session_id
        elif isinstance(event, TeamStopped):
            self.team_stopped = event.reason
        elif isinstance(event, TurnFinished):
            self.stop_reason = event.reason.value
            if event.error:
                self.errors.append(event.error)

    def to_json(self, agent: Any, exit_code: int) -> Json:
        meter = agent.meter
        cost: Decimal | None = meter.session_cost
        return {
            "type": "result",
            "schema": SCHEMA_VERSION,
            "session_id": self.session_id or agent.current_session_id,
            "model": agent.model,
            "text": "".join(self.text),
            "tool_calls": [call_json(call) for call in self.calls.values()],
            "usage": {
                "input_tokens": meter.tokens_in,
                "output_tokens": meter.tokens_out,
                "cached_input_tokens": meter.cached_in,
                "cost_usd": None if cost is None else float(cost),
            },
            "stop_reason": self.stop_reason,
            "team_stopped": self.team_stopped,
            "errors": self.errors,
            "exit_code": exit_code,
        }


def answer(event: AgentEvent, err: TextIO, on_approval: Callable[[ApprovalRequested, TextIO], None]) -> list[Json]:
    """Answers an approval request (a sub-agent's too) with `on_approval`: the `approval.answered` line, inside
    the same `subagent` lines as its request; no lines for another event."""
    if isinstance(event, SubAgentEvent):
        return [
            {
                "type": "subagent",
                "agent": event.agent,
                "session_id": event.session_id,
                "call_id": event.call[1],
                "event": inner,
            }
            for inner in answer(event.event, err, on_approval)
        ]
    if not isinstance(event, ApprovalRequested):
        return []
    on_approval(event, err)  # nobody to ask: denied (stderr says how to allow it)
    if not event.answer.done() or event.answer.cancelled():
        return []
    return [{"type": "approval.answered", "call_id": event.call.call_id, "decision": event.answer.result().value}]


def start_json(agent: Any, team: str | None = None) -> Json:
    """The first stream-json line: the schema version, and what answers (the session id comes with the turn;
    `team`: the team the prompts go to, else the session's)."""
    return {
        "type": "start",
        "schema": SCHEMA_VERSION,
        "session_id": agent.current_session_id,
        "model": agent.model,
        "agent": agent.agent or None,
        "team": team or agent.team or None,
    }


def failure_json(message: str, exit_code: int) -> Json:
    """The `result` of a run that ended before its turn could start (no endpoint, a session not found...)."""
    return {
        "type": "result",
        "schema": SCHEMA_VERSION,
        "session_id": None,
        "model": None,
        "text": "",
        "tool_calls": [],
        "usage": {"input_tokens": 0, "output_tokens": 0, "cached_input_tokens": 0, "cost_usd": None},
        "stop_reason": TurnEndReason.ERROR.value,
        "team_stopped": None,
        "errors": [message],
        "exit_code": exit_code,
    }


class JsonPrinter:
    """Writes a run's JSON to `out`: every event line for stream-json, the `result` line for both."""

    def __init__(self, out: TextIO, stream: bool) -> None:
        self.out = out
        self.stream = stream

    def line(self, value: Json) -> None:
        self.out.write(dumps(value) + "\n")
        self.out.flush()

    def event(self, value: Json) -> None:
        if self.stream:
            self.line(value)


async def print_json_turn(
    agent: Any,
    printer: JsonPrinter,
    err: TextIO,
    events: AsyncIterator[AgentEvent],
    *,
    on_approval: Callable[[ApprovalRequested, TextIO], None] = answer_unattended,
) -> int:
    """Run one turn's `events`, writing them as `printer` says and then its `result`; returns the exit status
    (as `-p` text's: 0 done, 1 error, 3 budget, 4 cut off at the token limit, 130 cancelled)."""
    result = TurnResult()
    calls: dict[CallKey, str] = {}
    status = 1
    try:
        async for event in events:
            result.see(event)
            for line in event_json(event, calls):
                printer.event(line)
            for line in answer(event, err, on_approval):
                printer.event(line)
            if isinstance(event, TurnFinished):
                status = EXIT_STATUS[event.reason]
                break
    except asyncio.CancelledError:  # Ctrl+C: the result still says what the turn came to, then the run ends
        result.stop_reason = TurnEndReason.CANCELLED.value
        printer.line(result.to_json(agent, EXIT_STATUS[TurnEndReason.CANCELLED]))
        raise
    finally:
        close = getattr(events, "aclose", None)  # closed here, while history is still open (as print_turn does)
        if close is not None:
            await close()
    printer.line(result.to_json(agent, status))
    return status
