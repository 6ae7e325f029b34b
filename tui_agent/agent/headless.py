"""Provides `print_turn`: one turn without the UI, for `tui-agent -p PROMPT`.

The reply streams to stdout as plain text (terminal escapes and bidi overrides removed, a pipe
included); the text of each model response is its own paragraph, so a `to_user` sentence said before a
tool call and the answer that follows it are separated by a blank line. Tool calls and notices are
summarised on stderr, sanitised alike (a call's name and arguments are revealed: bidi and invisible
characters show as `⟨U+202E⟩`). The model's reasoning is left out unless `--show-reasoning` asks for it:
then it goes to stderr, sanitised too, dimmed only when stderr is a terminal. A reply's parts of other kinds
(a refusal, ...; see `tui_agent.llm.parts`) are left out unless `--show-part KIND` asks for them: then they go
to stderr the same way, each run of them after its kind ("refusal: "). A sub-agent's progress goes to stderr too, each
line after its agent (`[researcher] …`: what it was asked, then a line per tool call); its answer reaches
stdout through its caller's. A tool that asks for approval — a sub-agent's included — is
denied (one that `--allow` names never asks), with a line on stderr saying how to allow it. The exit status says
how the turn ended: 0 done, 1 error, 3 stopped by a budget, 4 the reply was cut off at the token limit
(`max_tokens`), 130 cancelled. A team's run (`-p --team NAME`) prints each member's reply under a `[name]`
line, and ends with a `[stopped] why` line. When stdout and stderr are both a terminal (one screen shows both), a
stderr line never continues the reply's unfinished line: the reply's line is ended first (a pipe gets the reply as
it came).
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any, Protocol, TextIO

from tui_agent.agent.events import (
    AgentEvent,
    ApprovalRequested,
    AssistantMessageStarted,
    AssistantPartDelta,
    AssistantTextDelta,
    ReplyWaiting,
    SubAgentEvent,
    TeamStopped,
    ToolCallUpdated,
    TurnEndReason,
    TurnFinished,
    TurnStarted,
    UsageUpdated,
)
from tui_agent.file_diffs import line_counts
from tui_agent.payloads import FileChange
from tui_agent.sanitize import StreamSanitizer, reveal, sanitize
from tui_agent.tool_call import Decision, ToolCall

EXIT_STATUS = {
    TurnEndReason.DONE: 0,
    TurnEndReason.ERROR: 1,
    TurnEndReason.BUDGET: 3,
    TurnEndReason.LENGTH: 4,
    TurnEndReason.CANCELLED: 130,
}
RESULT_PREVIEW = 200
DIM, UNDIM = "\x1b[2m", "\x1b[22m"


def say(err: Lines, text: str) -> None:
    """One `tui-agent: ...` line on stderr; `text` may quote a server, a plugin or a file, so it is sanitised."""
    err.write(f"tui-agent: {sanitize(text)}\n")


def tool_summary(update: ToolCallUpdated) -> str:
    """One line for stderr: the call, its status and the start of its result; then an `[edit] path +N −M`
    line for each file it changed."""
    call = update.call
    preview = sanitize(" ".join(call.outcome.split()))[:RESULT_PREVIEW]
    arguments = reveal(" ".join(call.raw_arguments.split()))  # as in the approval dialog: nothing hidden
    edits = [f"\n[edit] {reveal(change.path)} +{added} −{removed}" for change, (added, removed) in counted(call)]
    return f"[tool] {reveal(call.name)}({arguments}) {call.status.value}: {preview}" + "".join(edits)


def counted(call: ToolCall) -> list[tuple[FileChange, tuple[int, int]]]:
    """Each file the call changed, with the lines it added and removed."""
    return [(change, line_counts(change)) for change in call.file_changes]


def answer_unattended(request: ApprovalRequested, err: Lines) -> None:
    """Nobody can be asked in a `-p` run: the call is denied, and stderr says how to allow it (the tools
    `--allow` names never ask: the runner lets them run)."""
    if request.answer.done():
        return
    name = request.call.name
    if request.call.blocked:  # a -p run never runs a command outside the sandbox
        say(err, f"{name} was blocked by the OS sandbox; a -p run does not run it again outside it")
        request.answer.set_result(Decision.DENY)
        return
    how = "its agent's own settings can allow it" if request.external else f"`--allow {name}` lets it run"
    say(err, f"{name} needs approval, which nobody can give in a -p run: not run ({how})")
    request.answer.set_result(Decision.DENY)


def report_sub_agent(event: SubAgentEvent, err: Lines, reported: set[tuple[str, str]]) -> None:
    """A sub-agent's event (as deep as it is nested) on stderr: its task, its tool calls, its questions."""
    names, inner = [event.agent], event.event
    while isinstance(inner, SubAgentEvent):
        names.append(inner.agent)
        event, inner = inner, inner.event
    who = "".join(f"[{reveal(name)}] " for name in names)
    if isinstance(inner, TurnStarted):
        err.write(f"{who}asked: {sanitize(' '.join(inner.prompt.split()))[:RESULT_PREVIEW]}\n")
    elif isinstance(inner, ToolCallUpdated) and inner.call.status.is_final and inner.key not in reported:
        reported.add(inner.key)
        err.write(who + tool_summary(inner) + "\n")
    elif isinstance(inner, ApprovalRequested):
        answer_unattended(inner, err)
    elif isinstance(inner, TurnFinished) and inner.error:
        err.write(f"{who}{inner.reason.value}: {sanitize(inner.error)}\n")


class Lines(Protocol):
    """Where `-p` writes what is not the reply (stderr, or stderr kept off the reply's line)."""

    def write(self, text: str, /) -> int: ...

    def flush(self) -> None: ...

    def isatty(self) -> bool: ...


class ReplyWriter:
    """Writes reply text to stdout, sanitised, starting each model response's text on a new paragraph."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self._clean = StreamSanitizer()
        self._message_id: str | None = None
        self._tail = ""
        """The last two characters written (how many line breaks the next paragraph still needs)."""

    def write(self, delta: AssistantTextDelta) -> None:
        text = self._clean.feed(delta.text)
        if not text:
            return
        if delta.message_id != self._message_id and self._tail:
            text = "\n" * (2 - len(self._tail) + len(self._tail.rstrip("\n"))) + text
        self._message_id = delta.message_id
        self._tail = (self._tail + text)[-2:]
        self.out.write(text)
        self.out.flush()

    def finish(self) -> None:
        """The turn is over: the reply's last line ends."""
        self._tail = self._tail[-1:] + "\n"
        self.out.write("\n")

    def end_line(self, err: Lines) -> None:
        """Before a line on `err`: when both streams show on one terminal, end the reply's unfinished line."""
        if self._tail and not self._tail.endswith("\n") and self.out.isatty() and err.isatty():
            self._tail = self._tail[-1] + "\n"
            self.out.write("\n")
            self.out.flush()

    def header(self, agent: str) -> None:
        """A team member begins: `[name]` on a line of its own, as a paragraph of its own."""
        self.paragraph(f"[{sanitize(agent)}]\n")
        self._message_id, self._tail = None, ""  # the member's text follows the name directly

    def paragraph(self, text: str) -> None:
        """`text` (ours, not the model's) after a blank line."""
        if self._tail:
            text = "\n" * (2 - len(self._tail) + len(self._tail.rstrip("\n"))) + text
        self._tail = text[-2:]
        self.out.write(text)
        self.out.flush()


class Beside:
    """stderr as `print_turn` writes it: the reply's unfinished line is ended before each write (`end_line`)."""

    def __init__(self, err: TextIO, reply: ReplyWriter) -> None:
        self._err, self._reply = err, reply

    def write(self, text: str, /) -> int:
        self._reply.end_line(self._err)
        return self._err.write(text)

    def flush(self) -> None:
        self._err.flush()

    def isatty(self) -> bool:
        return self._err.isatty()


class PartWriter:
    """Writes the reply's parts of the `shown` kinds to stderr, sanitised, dimmed when stderr is a terminal;
    `end` closes a run of them (a run of a kind other than reasoning starts with its kind)."""

    def __init__(self, err: Lines, shown: frozenset[str]) -> None:
        self.err = err
        self.shown = shown
        self._clean = StreamSanitizer()
        self._dim = err.isatty()
        self._open: str | None = None
        """The kind of the run being written."""

    def write(self, delta: AssistantPartDelta) -> None:
        if delta.kind not in self.shown:
            return
        if self._open not in (None, delta.kind):
            self.end()
        text = self._clean.feed(delta.text)
        if not text:
            return
        if self._open is None:
            text = ("" if delta.kind == "reasoning" else f"{delta.kind}: ") + text
            text = DIM + text if self._dim else text
        self._open = delta.kind
        self.err.write(text)
        self.err.flush()

    def end(self) -> None:
        """The part stopped (the answer or a tool call follows): close its line and its dimming."""
        if self._open is not None:
            self.err.write(self._clean.flush() + (UNDIM if self._dim else "") + "\n")
            self.err.flush()
            self._open = None


async def print_turn(
    agent: Any,
    prompt: str,
    out: TextIO,
    err: TextIO,
    turn: AsyncIterator[AgentEvent] | None = None,
    *,
    show_parts: frozenset[str] = frozenset(),
) -> int:
    """Run one turn of `agent` (`turn`: a retry or continuation instead of sending `prompt`), writing as
    described in the module docstring (`show_parts`: the kinds of reply parts written too, "reasoning", ...);
    returns the exit status."""
    reply = ReplyWriter(out)
    aside = Beside(err, reply)
    parts = PartWriter(aside, show_parts)
    reported: set[tuple[str, str]] = set()
    speaker: str | None = None
    events = turn if turn is not None else agent.send(prompt)
    try:
        async for event in events:
            if isinstance(event, AssistantPartDelta):
                parts.write(event)
                continue
            if isinstance(event, SubAgentEvent):
                report_sub_agent(event, aside, reported)
                continue
            if isinstance(event, UsageUpdated):
                continue  # a count, written nowhere: a server may send it mid-reasoning, which must not cut the line
            parts.end()
            if isinstance(event, AssistantTextDelta):
                reply.write(event)
            elif isinstance(event, AssistantMessageStarted) and event.agent and event.agent != speaker:
                speaker = event.agent  # a team member's reply: under its name
                reply.header(event.agent)
            elif isinstance(event, TeamStopped):
                reply.paragraph(f"[stopped] {sanitize(event.reason)} (after {event.rounds} round(s))\n")
            elif isinstance(event, ToolCallUpdated) and event.call.status.is_final and event.key not in reported:
                reported.add(event.key)
                aside.write(tool_summary(event) + "\n")
            elif isinstance(event, ApprovalRequested):
                answer_unattended(event, aside)
            elif isinstance(event, ReplyWaiting) and event.retry is not None:
                say(aside, event.describe(time.monotonic()))  # "rate limited — retrying in 3 s (1 of 2)"
            elif isinstance(event, TurnFinished):
                reply.finish()
                for line in (event.error or "").splitlines():  # the sentence, then where: endpoint, request id
                    say(aside, line)
                return EXIT_STATUS[event.reason]
        return 1
    finally:
        # The stream is closed here, not left to the garbage collector: what the turn does after its
        # `TurnFinished` (a team reads its stops and messages back) runs while history is still open.
        close = getattr(events, "aclose", None)  # a generator's (every turn's); a plain iterator has nothing to close
        if close is not None:
            await close()
