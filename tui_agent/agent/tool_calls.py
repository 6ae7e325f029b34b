"""Provides `ToolCallCollector`: assembles the tool calls of one model response as their events stream in.

It turns stream events into the `ToolCallUpdated` states the UI shows (arguments growing while the
model writes them) and, at the end of the response, into runner requests — invalid calls included, so
each one still gets an answer. A call id the server already gave another call of this response becomes
`<id>~<n>`: the id names the call in history, on screen and in the answer sent back, so two calls sharing
one would overwrite each other. (Ids repeating across responses, `call_0` in every reply, are fine: a call
is keyed by its message too.)
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
            call = CollectedCall(event.index, self._unused(event.id), getattr(event, "name", ""))
            self.calls[event.index] = call
        if isinstance(event, ToolCallArgumentsDelta):
            call.raw.append(event.text)
        elif isinstance(event, ToolCallReady):
            call.name, call.raw, call.arguments = event.name, [event.raw], event.arguments
        elif isinstance(event, ToolCallInvalid):
            call.name, call.raw, call.invalid_reason = event.name, [event.raw], event.reason
        self._on_update(self.pending_state(call))

    def _unused(self, call_id: str) -> str:
        taken = {call.call_id for call in self.calls.values()}
        unique, number = call_id, 1
        while unique in taken:
            number += 1
            unique = f"{call_id}~{number}"
        return unique

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
