"""Provides `Telemetry`: what a run's turns tell a tracer — each model call and each tool call, as it ends.

A turn tells it two kinds of value: `ModelCallEnded` (the model, when it was asked and answered, its tokens and
finish reason, or why it failed) and `ToolCallEnded` (a call's final value). Each names the commander node it
happened in, so a tracer puts it in the task tree it follows (`CommanderAsync.subscribe`). Nobody listens unless
tracing is on: then a turn makes one small value per call, and without a listener not even that (`listening`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from tui_agent.commander.errors import CommanderError
from tui_agent.commander.node import current_node
from tui_agent.llm.events import StreamEnd, StreamEvent, Usage
from tui_agent.tool_call import ToolCall


@dataclass(frozen=True, slots=True)
class ModelCallEnded:
    """One request to the model, from asking to the end of its stream (times are `time.monotonic()`)."""

    node_id: int | str | None
    """The commander node the request was made in (the turn's `respond` handler); None outside a tree."""
    model: str
    agent: str
    """The agent whose turn asked (the session's, a sub-agent's or a team member's name)."""
    session_id: str
    started_at: float
    ended_at: float
    input_tokens: int | None = None
    output_tokens: int | None = None
    """None: the server reported no usage."""
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    """The parts of `input_tokens` read from and written to the provider's prompt cache."""
    finish_reason: str | None = None
    error: str | None = None
    """Why the request failed ("cancelled" when it was); None: it was answered."""


@dataclass(frozen=True, slots=True)
class ToolCallEnded:
    """A tool call reached its final value (done, failed, denied, interrupted)."""

    node_id: int | str | None
    """The node it ran in (its handler's); None for a call that never ran (invalid, over budget), or the node
    it was refused in."""
    call: ToolCall
    agent: str


Told = ModelCallEnded | ToolCallEnded
log = logging.getLogger("tui_agent.tracing")
Listener = Callable[[Told], None]


class Telemetry:
    """The listeners of a run's turns (a tracer); the turns and their sub-agents share one."""

    def __init__(self) -> None:
        self._listeners: list[Listener] = []

    @property
    def listening(self) -> bool:
        return bool(self._listeners)

    def listen(self, listener: Listener) -> Callable[[], None]:
        """Tell `listener` every value from now on; returns how to stop."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def tell(self, value: Told) -> None:
        for listener in list(self._listeners):
            try:
                listener(value)
            except Exception:  # a trace never ends a turn
                log.exception("a telemetry listener failed on %s", type(value).__name__)

    def model_call(self, model: str, agent: str, session_id: str) -> ModelCallWatch | None:
        """A watch over one request's stream, or None when nobody listens (then nothing is paid)."""
        return ModelCallWatch(self, model, agent, session_id) if self._listeners else None

    def tool_call_ended(self, call: ToolCall, agent: str) -> None:
        if self._listeners:
            self.tell(ToolCallEnded(here(), call, agent))


class ModelCallWatch:
    """Follows one request's stream: its usage and finish reason as they pass, then tells how it ended."""

    def __init__(self, telemetry: Telemetry, model: str, agent: str, session_id: str) -> None:
        self._telemetry, self._model, self._agent, self._session_id = telemetry, model, agent, session_id
        self._node = here()
        self._started = time.monotonic()
        self._input: int | None = None
        self._output: int | None = None
        self._cache = (0, 0)
        self._finish: str | None = None

    def see(self, event: StreamEvent) -> None:
        if isinstance(event, Usage):  # each report adds, as the turn counts them (`Turn.add_usage`)
            self._input = (self._input or 0) + event.prompt_tokens
            self._output = (self._output or 0) + event.completion_tokens
            self._cache = (self._cache[0] + event.cached_tokens, self._cache[1] + event.cache_write_tokens)
        elif isinstance(event, StreamEnd):
            self._finish = event.finish_reason

    def end(self, error: str | None = None) -> None:
        ended = ModelCallEnded(
            self._node,
            self._model,
            self._agent,
            self._session_id,
            self._started,
            time.monotonic(),
            self._input,
            self._output,
            cache_read_tokens=self._cache[0],
            cache_write_tokens=self._cache[1],
            finish_reason=self._finish,
            error=error,
        )
        self._telemetry.tell(ended)


def here() -> int | str | None:
    """The id of the commander node running this code, if any."""
    node = current_node.get()
    try:
        return node.id if node is not None else None
    except CommanderError:  # a node not in a tree yet has no id
        return None
