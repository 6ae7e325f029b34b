"""Provides `ToolCallCollector`: assembles the tool calls of one model response as their events stream in.

It turns stream events into the `ToolCallUpdated` states the UI shows (arguments growing while the
model writes them) and, at the end of the response, into runner requests — invalid calls included, so
each one still gets an answer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tui_agent.agent.events import ToolCallUpdated, ToolStatus
from tui_agent.llm.events import ToolCallArgumentsDelta, ToolCallInvalid, ToolCallReady, ToolCallStarted
from tui_agent.tools.calls import ToolCallRequest

ToolStreamEvent = ToolCallStarted | ToolCallArgumentsDelta | ToolCallReady | ToolCallInvalid


@dataclass
class CollectedCall:
    """One tool call of the response being streamed."""

    index: int
    call_id: str
    name: str
    raw: list[str] = field(default_factory=list)
    arguments: dict[str, Any] | None = None
    invalid_reason: str | None = None

    @property
    def raw_text(self) -> str:
        return "".join(self.raw)

    def request(self) -> ToolCallRequest:
        return ToolCallRequest(self.call_id, self.name, self.arguments if self.arguments is not None else {})


class ToolCallCollector:
    """Collects the calls of one response; reports each change through `on_update`."""

    def __init__(self, message_id: str, on_update: Callable[[ToolCallUpdated], None]) -> None:
        self.message_id = message_id
        self.calls: dict[int, CollectedCall] = {}
        self._on_update = on_update

    def feed(self, event: ToolStreamEvent) -> None:
        """Take one tool-call event from the stream."""
        call = self.calls.get(event.index)
        if call is None:
            call = self.calls[event.index] = CollectedCall(event.index, event.id, getattr(event, "name", ""))
        if isinstance(event, ToolCallArgumentsDelta):
            call.raw.append(event.text)
        elif isinstance(event, ToolCallReady):
            call.name, call.raw, call.arguments = event.name, [event.raw], event.arguments
        elif isinstance(event, ToolCallInvalid):
            call.name, call.raw, call.invalid_reason = event.name, [event.raw], event.reason
        call.call_id = event.id or call.call_id
        self._on_update(self.pending_state(call))

    def pending_state(self, call: CollectedCall) -> ToolCallUpdated:
        """The call as it stands while the model is still writing it."""
        return ToolCallUpdated(call.call_id, self.message_id, call.name, call.raw_text, ToolStatus.PENDING)

    def valid(self) -> list[CollectedCall]:
        """Calls that can be handed to the runner."""
        return [call for call in self.ordered() if call.invalid_reason is None and call.arguments is not None]

    def invalid(self) -> list[CollectedCall]:
        """Calls that cannot run; the model gets the reason back instead."""
        return [call for call in self.ordered() if call.invalid_reason is not None or call.arguments is None]

    def ordered(self) -> list[CollectedCall]:
        return [self.calls[index] for index in sorted(self.calls)]
