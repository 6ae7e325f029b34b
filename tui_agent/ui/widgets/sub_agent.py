"""Provides `SubAgentRun`: what the panel of an `ask_<agent>` tool call shows of the sub-agent it runs.

A run is kept from the sub-agent's events (each reaches the caller's stream wrapped in a `SubAgentEvent`;
deeper delegation nests them) and drawn as a few lines of `Content`: who it is and what it is doing, its
reasoning as one collapsed line (its newest lines when the panel is expanded), its own tool calls as one
line each with status and time (a delegate's delegate as a line under its call), and the newest lines of
its text, plain and sanitised. Taking an event is a few list and dict writes; drawing reads only the
newest `TAIL_CHARS` of the text, so a long answer costs no more than a short one (its session has it all).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from textual.content import Content

from tui_agent.agent import events
from tui_agent.sanitize import StreamSanitizer, reveal, sanitize
from tui_agent.status import MessageStatus, ToolStatus, TurnEndReason
from tui_agent.ui.widgets.tool_status import STATUS_LABEL, format_elapsed

if TYPE_CHECKING:
    from collections.abc import Callable

    from tui_agent.tool_call import CallKey, ToolCall

TEXT_LINES = 8
"""Lines of the sub-agent's text a panel shows (the newest)."""
TEXT_CHARS = 1200
"""At most this much of the newest text is shown (a line of thousands of characters wraps to a page)."""
TAIL_CHARS = 4000
"""The newest text kept for drawing; the rest is counted, not kept."""
PENDING_PIECES = 512
"""Pieces of text kept unjoined before they are joined into the kept tail anyway."""
CALL_LINES = 5
"""Tool calls of the sub-agent listed (the newest)."""
PART_LINES = 6
"""Lines of reasoning shown when the panel is expanded."""
END_WORDS = {
    TurnEndReason.DONE: "finished",
    TurnEndReason.CANCELLED: "cancelled",
    TurnEndReason.BUDGET: "stopped at its budget",
    TurnEndReason.ERROR: "failed",
    TurnEndReason.LENGTH: "cut off at its token limit",
}
"""How a sub-agent's turn ended, in the panel's header (one word set per `TurnEndReason`: a missing one broke the
caller's whole turn in the chat screen)."""


def innermost(event: events.SubAgentEvent) -> tuple[list[str], events.AgentEvent]:
    """The chain of agents a nested sub-agent event comes through (outermost first) and the event itself."""
    agents: list[str] = []
    inner: events.AgentEvent = event
    while isinstance(inner, events.SubAgentEvent):
        agents.append(inner.agent)
        inner = inner.event
    return agents, inner


class Tail:
    """A growing text of which only the newest `TAIL_CHARS` are kept; pieces are joined when drawn."""

    def __init__(self) -> None:
        self._sanitizer = StreamSanitizer()
        self._pending: list[str] = []
        self._kept = ""
        self.lines = 0
        """Line breaks in the whole text."""
        self.chars = 0

    def add(self, text: str) -> None:
        self._pending.append(self._sanitizer.feed(text))
        if len(self._pending) >= PENDING_PIECES:  # a text nobody draws (a delegate's delegate's) stays small
            _ = self.text

    def break_line(self) -> None:
        """A new message begins: a blank line between it and the one before."""
        if self.chars or self._pending:
            self.add("\n\n")

    @property
    def text(self) -> str:
        """The newest text (all of it when short), with what came since it was last read."""
        if self._pending:
            added = "".join(self._pending)
            self._pending.clear()
            self.lines += added.count("\n")
            self.chars += len(added)
            self._kept = (self._kept + added)[-TAIL_CHARS:]
        return self._kept

    def newest(self, lines: int, chars: int) -> tuple[str, int]:
        """The newest `lines` lines (at most `chars` of them), and how many lines come before those."""
        text = self.text.rstrip("\n")
        shown = "\n".join(text.split("\n")[-lines:])[-chars:].lstrip("\n")
        every = self.lines - (len(self.text) - len(text)) + 1 if text else 0
        return shown, max(every - shown.count("\n") - 1, 0)


class SubAgentRun:
    """One sub-agent's turn as its caller's panel shows it."""

    def __init__(self, agent: str, session_id: str | None = None, *, clock: Callable[[], float] | None = None) -> None:
        self.agent = agent
        self.session_id = session_id
        """The sub-agent's own (child) session; None until its first event (or, resumed, until looked up)."""
        self._clock = clock or time.monotonic
        self.doing = ""
        """What it does now, in words ("writing", "running read_file"...); "" before its first event."""
        self.ended: TurnEndReason | None = None
        self.error: str | None = None
        self.text = Tail()
        self.parts: dict[str, Tail] = {}
        """Its reasoning (and any other part kind), by kind."""
        self.calls: dict[CallKey, ToolCall] = {}
        self.delegates: dict[CallKey, SubAgentRun] = {}
        """The runs of its own `ask_*` calls."""

    def take(self, event: events.AgentEvent) -> None:
        """Take one event of the sub-agent's turn."""
        match event:
            case events.AssistantTextDelta():
                self.text.add(event.text)
                self.doing = "writing"
            case events.AssistantPartDelta():
                self.parts.setdefault(event.kind, Tail()).add(event.text)
                self.doing = "thinking" if event.kind == "reasoning" else f"writing its {event.kind}"
            case events.SubAgentEvent():
                run = self.delegates.get(event.call)
                if run is None:
                    run = self.delegates[event.call] = SubAgentRun(event.agent, event.session_id, clock=self._clock)
                run.take(event.event)
            case _:
                self._take_state(event)

    def _take_state(self, event: events.AgentEvent) -> None:
        match event:
            case events.ToolCallUpdated():
                self.calls[event.key] = event.call
                self.doing = _doing(event.call)
            case events.ApprovalRequested():
                self.doing = f"asks to run {reveal(event.call.name)}"
            case events.AssistantMessageStarted():
                self.text.break_line()
                self.text.add(event.text)
                self.doing = "replying"
            case events.ReplyWaiting():
                self.doing = "waiting for the server"
            case events.AssistantMessageFinished() if event.status is MessageStatus.FAILED:
                self.error = event.error
            case events.TurnStarted():
                self.doing = "started"
            case events.TurnFinished():
                self.ended, self.doing = event.reason, END_WORDS[event.reason]
                self.error = event.error or self.error

    # -- drawing ----------------------------------------------------------------------------------
    def render(
        self,
        *,
        expanded: bool = False,
        call_status: ToolStatus | None = None,
        answered: bool = False,
        hint: bool = False,
    ) -> Content:
        """The run in a few lines; `call_status`: its call's, which says how it ended when the sub-agent did
        not (interrupted by Esc before its own end arrived, or a stored call); `answered`: the call has its
        result (the sub-agent's final answer, shown under it), so the text is only counted; `hint`: say how to
        open its session (its panel has the focus)."""
        lines = [self._header(call_status)]
        lines.extend(self._part_lines(expanded))
        lines.extend(self._call_lines(cut=self.ended is None and call_status is not None and call_status.is_final))
        text, earlier = self.text.newest(TEXT_LINES, TEXT_CHARS)
        if answered:
            if text:
                count = earlier + text.count("\n") + 1
                lines.append(Content.styled(f"… its text: {count} line{'s' if count != 1 else ''}", "dim italic"))
        elif earlier:
            more = f"… {earlier} earlier line{'s' if earlier != 1 else ''}"
            lines.append(Content.styled(more + (" (o: open its session)" if self.session_id else ""), "dim italic"))
        if text and not answered:
            lines.append(Content(text))
        if hint:
            lines.append(Content.styled("o: open its session", "dim italic"))
        return Content("\n").join(lines)

    def _header(self, call_status: ToolStatus | None) -> Content:
        doing = self.doing
        if self.ended is None and call_status is not None and (call_status.is_final or not doing):
            doing = STATUS_LABEL[call_status].split(" ", 1)[1]
        header = Content.assemble(("◆ ", "$accent"), (reveal(self.agent), "bold $accent"))
        if doing:
            style = "$text-error" if self.ended is TurnEndReason.ERROR else "italic"
            header = Content.assemble(header, " · ", (doing, style))
        if self.error and self.ended in (TurnEndReason.LENGTH, TurnEndReason.BUDGET):  # a note: its answer stands
            header = Content.assemble(header, "\n", (sanitize(self.error), "dim italic"))
        elif self.error:
            header = Content.assemble(header, "\n", (f"error: {sanitize(self.error)}", "$text-error"))
        return header

    def _part_lines(self, expanded: bool) -> list[Content]:
        lines: list[Content] = []
        for kind, tail in self.parts.items():
            text = tail.text
            name = "thinking" if kind == "reasoning" else kind
            lines.append(Content.styled(f"{'▾' if expanded else '▸'} {name} · {tail.chars:,} chars", "dim italic"))
            if expanded:
                shown, _ = tail.newest(PART_LINES, TEXT_CHARS)
                lines.append(Content.styled(shown or text, "dim"))
        return lines

    def _call_lines(self, *, cut: bool) -> list[Content]:
        """One line per tool call (`cut`: the run was cut short, so a call still open is interrupted)."""
        calls = list(self.calls.values())
        if cut:
            calls = [c if c.status.is_final else c.replace(status=ToolStatus.INTERRUPTED) for c in calls]
        lines: list[Content] = []
        if len(calls) > CALL_LINES:
            lines.append(Content.styled(f"  … {len(calls) - CALL_LINES} earlier tool calls", "dim"))
        for call in calls[-CALL_LINES:]:
            lines.append(self._call_line(call))
            if (run := self.delegates.get(call.key)) is not None:
                lines.append(Content.styled(f"    ↳ {reveal(run.agent)}: {run.doing or 'starting'}", "dim"))
        return lines

    def _call_line(self, call: ToolCall) -> Content:
        glyph, _ = STATUS_LABEL[call.status].split(" ", 1)
        line = Content.assemble("  ", (glyph, f"$tool-{call.status.value.replace('_', '-')}"), " ", reveal(call.name))
        if call.started_at is not None:
            end = call.finished_at if call.finished_at is not None else self._clock()
            line = Content.assemble(line, (f"  {format_elapsed(end - call.started_at)}", "dim"))
        if call.error:
            line = Content.assemble(line, (f"  {sanitize(call.error).splitlines()[0][:80]}", "$text-error"))
        return line


def _doing(call: ToolCall) -> str:
    name = reveal(call.name)
    if call.status is ToolStatus.AWAITING_APPROVAL:
        return f"asks to run {name}"
    if call.status.is_final:
        return f"{name} {STATUS_LABEL[call.status].split(' ', 1)[1]}"
    return f"running {name}" if call.status is ToolStatus.RUNNING else f"calling {name}"
