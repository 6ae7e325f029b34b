"""Provides `TaskTracer`: the task tree as OpenTelemetry spans, with the GenAI semantic conventions' attributes.

It follows the commander's node events and the turns' telemetry (`tracing/telemetry.py`). Every node the person
would name (`NodeEvent.title`) is a span, under the nearest such ancestor: a turn or a sub-agent's turn or a team
member's (`invoke_agent`), a tool call (`execute_tool`, its node's id starts "tool:"), a team run and its rounds.
Each model request is a `chat` span under the turn that made it, with its model, tokens and finish reason; the
turn's span adds up its requests' tokens. A top-level turn or team run starts a trace of its own; the session id
(`gen_ai.conversation.id`) ties a session's traces together. Tool arguments and results are never recorded (a
tool's span has its name, call id and status). Imported only when tracing is on: it imports OpenTelemetry.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode, Tracer

from tui_agent.commander.events import (
    NodeCancelled,
    NodeCreated,
    NodeEnded,
    NodeEvent,
    NodeFailed,
)
from tui_agent.status import ToolStatus
from tui_agent.tracing.telemetry import ModelCallEnded, Told, ToolCallEnded

log = logging.getLogger("tui_agent.tracing")
TOOL_NODE = "tool:"
"""How a tool call's node id starts (`agent/turn_jobs.tool_node_id`)."""
TASK = "tui_agent.task"
"""The node's title ("turn 3", "round 2", "researcher") for every span but a tool's (its title has arguments)."""
STATUS = "tui_agent.status"
"""How the node or the call ended, in our words: done, failed, cancelled, denied, interrupted."""


@dataclass
class _AgentSpan:
    """What a turn's span adds up over its model requests."""

    input_tokens: int = 0
    output_tokens: int = 0
    models: list[str] = field(default_factory=list)


class TaskTracer:
    """Spans for one run's task tree; give `follow_node` the commander's events, `follow` the telemetry."""

    def __init__(self, tracer: Tracer, provider: str = "openai") -> None:
        self._tracer = tracer
        self._provider = provider
        """`gen_ai.provider.name`: the protocol spoken ("openai", "anthropic")."""
        self._spans: dict[int | str, Span] = {}
        self._up: dict[int | str, int | str | None] = {}
        """Each live node's parent, to find the nearest ancestor with a span."""
        self._agents: dict[int | str, _AgentSpan] = {}
        self._named: set[int | str] = set()
        """The traces' top spans that name their session already."""
        self._said: set[int | str] = set()
        """The nodes whose span says how they ended already (a call's status, a failed request's turn)."""
        self._wall = time.time_ns() - int(time.monotonic() * 1e9)
        """Added to a `time.monotonic()` reading (node events', telemetry's) to make it an epoch time."""

    def follow_node(self, event: NodeEvent) -> None:
        """One commander node event (a failure here is logged: a trace never ends a turn)."""
        try:
            self._follow_node(event)
        except Exception:
            log.exception("tracing failed on %s", type(event).__name__)

    def follow(self, told: Told) -> None:
        """One telemetry value (a failure here is logged: a trace never ends a turn)."""
        try:
            if isinstance(told, ModelCallEnded):
                self._model_call(told)
            else:
                self._tool_call(told)
        except Exception:
            log.exception("tracing failed on %s", type(told).__name__)

    def end_all(self) -> None:
        """End what is still open (the run is closing)."""
        for node_id in list(self._spans):
            self._spans.pop(node_id).end()
        self._up.clear()

    # -- nodes ------------------------------------------------------------------------------------
    def _follow_node(self, event: NodeEvent) -> None:
        if isinstance(event, NodeCreated):
            self._up[event.node_id] = event.parent_id
            if event.title:
                self._start(event)
        elif isinstance(event, NodeEnded):
            self._up.pop(event.node_id, None)
            span = self._spans.pop(event.node_id, None)
            if span is not None:
                self._end(span, event)
                self._agents.pop(event.node_id, None)
                self._named.discard(event.node_id)
                self._said.discard(event.node_id)

    def _start(self, event: NodeCreated) -> None:
        if _is_tool_node(event.node_id):
            name = f"execute_tool {event.name}"
            attributes = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": event.name}
        else:
            name, attributes = event.title, {TASK: event.title}
        parent = self._span_above(event.parent_id)
        self._spans[event.node_id] = self._tracer.start_span(
            name, _context_of(parent), SpanKind.INTERNAL, attributes, start_time=self._ns(event.at)
        )

    def _end(self, span: Span, event: NodeEnded) -> None:
        if isinstance(event, NodeFailed):
            span.set_attribute(STATUS, "failed")
            span.set_attribute("error.type", "failed")
            span.set_status(Status(StatusCode.ERROR, event.error))
        elif isinstance(event, NodeCancelled):  # a call's panel says "interrupted" (its `ToolStatus`)
            span.set_attribute(STATUS, "interrupted" if _is_tool_node(event.node_id) else "cancelled")
        elif event.node_id not in self._said:
            span.set_attribute(STATUS, "done")
        span.end(end_time=self._ns(event.at))

    def _span_above(self, node_id: int | str | None) -> Span | None:
        """The span of `node_id` or of its nearest ancestor that has one."""
        owner = self._owner_above(node_id)
        return self._spans[owner] if owner is not None else None

    def _name_conversation(self, owner: int | str, session_id: str) -> None:
        """The span at the top of `owner`'s trace (a turn, a team run) names the session its first request was
        made in: the session's own (a sub-agent's requests come after its caller's first)."""
        top = owner
        while (above := self._owner_above(self._up.get(top))) is not None:
            top = above
        if top not in self._named:
            self._named.add(top)
            self._spans[top].set_attribute("gen_ai.conversation.id", session_id)

    def _owner_above(self, node_id: int | str | None) -> int | str | None:
        seen = 0
        while node_id is not None and seen < 10_000:
            if node_id in self._spans:
                return node_id
            node_id = self._up.get(node_id)
            seen += 1
        return None

    # -- what the turns tell ------------------------------------------------------------------------
    def _model_call(self, told: ModelCallEnded) -> None:
        owner = self._owner_above(told.node_id)
        parent = self._spans[owner] if owner is not None else None
        attributes: dict[str, str | int | list[str]] = {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": self._provider,
            "gen_ai.request.model": told.model,
            "gen_ai.agent.name": told.agent,
            "gen_ai.conversation.id": told.session_id,
        }
        if told.input_tokens is not None:
            attributes["gen_ai.usage.input_tokens"] = told.input_tokens
        if told.output_tokens is not None:
            attributes["gen_ai.usage.output_tokens"] = told.output_tokens
        if told.cache_read_tokens:
            attributes["gen_ai.usage.cache_read.input_tokens"] = told.cache_read_tokens
        if told.cache_write_tokens:
            attributes["gen_ai.usage.cache_creation.input_tokens"] = told.cache_write_tokens
        if told.finish_reason is not None:
            attributes["gen_ai.response.finish_reasons"] = [told.finish_reason]
        span = self._tracer.start_span(
            f"chat {told.model}", _context_of(parent), SpanKind.CLIENT, attributes, start_time=self._ns(told.started_at)
        )
        if told.error is not None:
            cancelled = told.error == "cancelled"
            span.set_attribute(STATUS, "cancelled" if cancelled else "failed")
            if not cancelled:
                span.set_attribute("error.type", "model_error")
                span.set_status(Status(StatusCode.ERROR, told.error))
        span.end(end_time=self._ns(told.ended_at))
        if owner is not None and parent is not None:
            self._count(owner, parent, told)
            self._name_conversation(owner, told.session_id)

    def _count(self, owner: int | str, span: Span, told: ModelCallEnded) -> None:
        """The turn's span (the nearest titled node above a request) is the agent's invocation: its totals."""
        totals = self._agents.setdefault(owner, _AgentSpan())
        if not totals.models:
            span.update_name(f"invoke_agent {told.agent}")
            span.set_attributes(
                {
                    "gen_ai.operation.name": "invoke_agent",
                    "gen_ai.agent.name": told.agent,
                    "gen_ai.conversation.id": told.session_id,
                    "gen_ai.provider.name": self._provider,
                }
            )
        if told.model not in totals.models:
            totals.models.append(told.model)
            span.set_attribute("gen_ai.request.model", totals.models[0])
        totals.input_tokens += told.input_tokens or 0
        totals.output_tokens += told.output_tokens or 0
        span.set_attribute("gen_ai.usage.input_tokens", totals.input_tokens)
        span.set_attribute("gen_ai.usage.output_tokens", totals.output_tokens)
        if told.error is not None and told.error != "cancelled":
            self._said.add(owner)
            span.set_attribute(STATUS, "failed")
            span.set_attribute("error.type", "model_error")
            span.set_status(Status(StatusCode.ERROR, told.error))

    def _tool_call(self, told: ToolCallEnded) -> None:
        call = told.call
        node_id = told.node_id
        span = self._spans.get(node_id) if node_id is not None and _is_tool_node(node_id) else None
        if span is None:  # a call that never ran (invalid, over budget): an instant span under its turn
            parent = self._span_above(node_id)
            now = time.time_ns()
            attributes = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": call.name}
            span = self._tracer.start_span(
                f"execute_tool {call.name}", _context_of(parent), attributes=attributes, start_time=now
            )
            self._describe_tool(span, told)
            span.end(end_time=now)
            return
        assert node_id is not None
        self._said.add(node_id)
        self._describe_tool(span, told)

    def _describe_tool(self, span: Span, told: ToolCallEnded) -> None:
        call = told.call
        span.set_attributes(
            {
                "gen_ai.tool.call.id": call.call_id,
                "gen_ai.tool.type": "function",
                "gen_ai.agent.name": told.agent,
                STATUS: call.status.value,
            }
        )
        if call.status is ToolStatus.FAILED:
            span.set_attribute("error.type", "tool_error")
            span.set_status(Status(StatusCode.ERROR, call.error or "failed"))  # success stays unset, as the spec asks

    def _ns(self, monotonic: float) -> int:
        return self._wall + int(monotonic * 1e9)


def _is_tool_node(node_id: int | str | None) -> bool:
    return isinstance(node_id, str) and node_id.startswith(TOOL_NODE)


def _context_of(parent: Span | None) -> otel_context.Context:
    """The context a span starts in: under `parent`, or a new trace (never whatever span is current)."""
    return trace.set_span_in_context(parent) if parent is not None else otel_context.Context()
