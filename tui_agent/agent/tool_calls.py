"""Provides `ToolCallCollector`: assembles the tool calls of one model response as their events stream in.

Each stream event makes a new `ToolCall` value (arguments growing while the model writes them), passed to
`on_change` for the UI; at the end of the response the calls are split into the valid ones, which run,
and the invalid ones (cut off, not JSON), which are answered with the reason. A call id the server already
gave another call of this response becomes `<id>~<n>`: the id names the call in history, on screen and in
the answer sent back, so two calls sharing one would overwrite each other. (Ids repeating across responses,
`call_0` in every reply, are fine: a call is keyed by its message too.)
"""

from __future__ import annotations

from collections.abc import Callable

from tui_agent.llm.events import ToolCallArgumentsDelta, ToolCallInvalid, ToolCallReady, ToolCallStarted
from tui_agent.tool_call import ToolCall

ToolStreamEvent = ToolCallStarted | ToolCallArgumentsDelta | ToolCallReady | ToolCallInvalid
CUT_OFF_CALL = "The tool call was cut off before its arguments were complete."


class ToolCallCollector:
    """Collects the calls of one response; reports each change through `on_change`."""

    def __init__(self, message_id: str, on_change: Callable[[ToolCall], None]) -> None:
        self.message_id = message_id
        self.calls: dict[int, ToolCall] = {}
        self.invalid_reasons: dict[str, str] = {}
        """Why a call cannot run, by call id (the model gets this back instead)."""
        self._raw: dict[int, list[str]] = {}
        self._on_change = on_change

    def feed(self, event: ToolStreamEvent) -> None:
        """Take one tool-call event from the stream."""
        call = self.calls.get(event.index)
        if call is None:
            call = ToolCall(self._unused(event.id), getattr(event, "name", ""), message_id=self.message_id)
            self._raw[event.index] = []
        raw = self._raw[event.index]
        if isinstance(event, ToolCallArgumentsDelta):
            raw.append(event.text)
        elif isinstance(event, ToolCallReady):
            raw[:] = [event.raw]
            call = call.replace(name=event.name, arguments=event.arguments)
        elif isinstance(event, ToolCallInvalid):
            raw[:] = [event.raw]
            call = call.replace(name=event.name)
            self.invalid_reasons[call.call_id] = event.reason
        call = call.replace(raw_arguments="".join(raw))
        self.calls[event.index] = call
        self._on_change(call)

    def _unused(self, call_id: str) -> str:
        taken = {call.call_id for call in self.calls.values()}
        unique, number = call_id, 1
        while unique in taken:
            number += 1
            unique = f"{call_id}~{number}"
        return unique

    def runnable(self, call: ToolCall) -> bool:
        return call.call_id not in self.invalid_reasons and call.arguments is not None

    def why_invalid(self, call: ToolCall) -> str:
        return self.invalid_reasons.get(call.call_id, CUT_OFF_CALL)

    def valid(self) -> list[ToolCall]:
        """Calls that can be handed to the runner."""
        return [call for call in self.ordered() if self.runnable(call)]

    def invalid(self) -> list[ToolCall]:
        """Calls that cannot run; the model gets the reason back instead."""
        return [call for call in self.ordered() if not self.runnable(call)]

    def ordered(self) -> list[ToolCall]:
        return [self.calls[index] for index in sorted(self.calls)]
