"""Provides the jobs and handlers of a chat turn, built on the commander as the Agere tutorial does.

    ChatJob ──> ResponseJob ──> respond ─┬─> show_reply   (reasoning and text, saved as they stream)
                     ^                   └─> run_tools    (collect calls, run them, loop)
                     └────────────────────────────┘  puts the next ResponseJob after a tool round

The ChatJob completes only when its whole subtree has; its end callbacks (`at_job_end`,
`at_terminate`, `at_exception`) close the turn in history and announce `TurnFinished`.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, assert_never

from tui_agent.agent.channel import Channel
from tui_agent.agent.events import MessageStatus, ToolStatus, TurnEndReason
from tui_agent.agent.tool_calls import ToolCallCollector, ToolStreamEvent
from tui_agent.agent.turn import Turn
from tui_agent.commander import HandlerCoroutine, Job, as_handler
from tui_agent.llm.errors import LLMError
from tui_agent.llm.events import (
    ReasoningDelta,
    RetryScheduled,
    StreamEnd,
    StreamEvent,
    TextDelta,
    ToolCallArgumentsDelta,
    ToolCallInvalid,
    ToolCallReady,
    ToolCallStarted,
    ToUserDelta,
    Usage,
)

ReplyPiece = TextDelta | ToUserDelta | ReasoningDelta
"""What `show_reply` shows, in the order it streamed."""
STREAM_SLICE = 0.004
"""Seconds of stream events handled in a row before the loop runs its other work (the UI's keys, frames)."""


class ChatJob(Job):
    """One turn: starts the first response and closes the turn when everything under it has ended."""

    def __init__(self, turn: Turn) -> None:
        super().__init__()
        self.turn = turn
        self.add_callback_functions("at_job_end", {"function": self._ended})
        self.add_callback_functions("at_terminate", {"function": self._cancelled})
        self.add_callback_functions("at_exception", {"function": self._crashed, "inject_exception": True})

    async def run(self) -> None:
        await self.put_job(ResponseJob(self.turn))

    async def _ended(self) -> None:
        await self.turn.end(TurnEndReason.BUDGET if self.turn.budget_note else TurnEndReason.DONE)

    async def _cancelled(self) -> None:
        await self.turn.end(TurnEndReason.CANCELLED)

    async def _crashed(self, exception: BaseException | None) -> None:
        self.turn.fail(f"The turn failed unexpectedly: {exception}")
        await self.turn.end(TurnEndReason.ERROR)


class ResponseJob(Job):
    """Asks the model for one response and hands it to the response handler."""

    def __init__(self, turn: Turn) -> None:
        super().__init__()
        self.turn = turn

    async def run(self) -> HandlerCoroutine:
        return respond(self.turn)


@as_handler
async def respond(node: HandlerCoroutine, turn: Turn) -> None:
    """Stream one response, forking reasoning and text to `show_reply` and tool calls to `run_tools`."""
    text: Channel[ReplyPiece] = Channel()
    calls: Channel[ToolStreamEvent] = Channel()
    reply = node.call_handler(show_reply(turn, text))
    node.call_handler(run_tools(turn, calls, reply))
    slice_end = time.monotonic() + STREAM_SLICE
    try:
        async for event in turn.stream():
            if time.monotonic() > slice_end:  # a stream already buffered never suspends: let the UI in
                await asyncio.sleep(0)
                slice_end = time.monotonic() + STREAM_SLICE
            _route(event, turn, text, calls)
    except LLMError as error:
        turn.fail(turn.explain(error))
    except Exception as error:  # a bug must end the turn with a message, not hang it
        turn.fail(f"Reading the reply failed: {error}")
    finally:
        text.close()
        calls.close()


def _route(event: StreamEvent, turn: Turn, text: Channel[ReplyPiece], calls: Channel[ToolStreamEvent]) -> None:
    """Send one stream event where it belongs; a kind left out here fails mypy (`assert_never`)."""
    match event:
        case TextDelta() | ToUserDelta() | ReasoningDelta():
            text.put(event)
        case ToolCallStarted() | ToolCallArgumentsDelta() | ToolCallReady() | ToolCallInvalid():
            calls.put(event)
        case Usage():
            turn.add_usage(event)
        case RetryScheduled():
            turn.retrying(event)
        case StreamEnd():
            turn.finish_reason = event.finish_reason
        case _:
            assert_never(event)


@as_handler
async def show_reply(node: HandlerCoroutine, turn: Turn, text: Channel[ReplyPiece]) -> None:
    """The user handler: show and save the reply's reasoning and text as they arrive."""
    try:
        async for piece in text:
            if isinstance(piece, ReasoningDelta):
                turn.show_reasoning(piece.text)
            else:
                turn.show_text(piece.text)
    except Exception as error:  # never leave the turn without a reason
        turn.fail(f"Showing the reply failed: {error}")
        raise


@as_handler
async def run_tools(node: HandlerCoroutine, turn: Turn, events: Channel[ToolStreamEvent], reply: Any) -> None:
    """The tool handler: collect this response's calls, run them, and loop with the next ResponseJob."""
    try:
        await _tool_round(node, turn, events, reply)
    except Exception as error:  # never leave the turn without a reason
        turn.fail(f"Running tools failed: {error}")
        raise


async def _tool_round(node: HandlerCoroutine, turn: Turn, events: Channel[ToolStreamEvent], reply: Any) -> None:
    collector = ToolCallCollector(turn.message_id, turn.show_call)
    async for event in events:
        collector.feed(event)
    await reply.wait()  # every piece of this response's text is shown before we move on
    calls = collector.ordered()
    if turn.error is not None or not calls:
        return
    await turn.record_calls(calls)
    answers = await _answer(turn, collector)
    turn.conclude_round(answers)
    if turn.budget_note is not None:
        return
    await turn.finish_message(MessageStatus.COMPLETE)
    if turn.over_token_budget():
        turn.budget_note = f"Stopped: this turn used its budget of {turn.budget.max_tokens} tokens."
        return
    await turn.start_message()
    await node.put_job(ResponseJob(turn))


async def _answer(turn: Turn, collector: ToolCallCollector) -> dict[str, str]:
    answers: dict[str, str] = {}
    for call in collector.invalid():
        reason = call.invalid_reason or "The tool call was cut off before its arguments were complete."
        answers[call.call_id] = await turn.answer_without_running(call, ToolStatus.FAILED, reason)
    valid = collector.valid()
    if turn.rounds >= turn.budget.max_tool_rounds:
        turn.budget_note = f"Stopped: this turn reached its limit of {turn.budget.max_tool_rounds} tool rounds."
        for call in valid:
            text = f"Not run: {turn.budget_note}"
            answers[call.call_id] = await turn.answer_without_running(call, ToolStatus.DENIED, text)
        return answers
    turn.rounds += 1
    answers.update(await turn.runner_run(valid))
    return answers
