"""Provides the jobs and handlers of a chat turn, built on the commander as the Agere tutorial does.

    ChatJob ──> ResponseJob ──> respond ─┬─> show_reply   (text and other parts, saved as they stream)
                     ^                   └─> run_tools ─┬─> <tool name>  (one handler per call, node id
                     |                                  └─> <tool name>   `tool_node_id(call)`)
                     └────────────────────────────┘  puts the next ResponseJob after a tool round

Cancelling one tool node interrupts that call only: it ends `interrupted`, the model gets that answer and
the turn goes on. `TURN_SHAPE` is the tree a turn opens before any tool runs (test doubles draw it).

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
from tui_agent.commander.events import NodeKind
from tui_agent.llm.errors import LLMError
from tui_agent.llm.events import (
    PartDelta,
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
from tui_agent.tool_call import ToolCall

ReplyPiece = TextDelta | ToUserDelta | PartDelta
"""What `show_reply` shows, in the order it streamed."""
STREAM_SLICE = 0.004
"""Seconds of stream events handled in a row before the loop runs its other work (the UI's keys, frames)."""


class ChatJob(Job):
    """One turn: starts the first response and closes the turn when everything under it has ended.

    `title` is the turn in the user's words, for the task tree: "turn 3", or the agent a sub-agent's turn is."""

    def __init__(self, turn: Turn, title: str = "") -> None:
        super().__init__()
        self.turn = turn
        self.title = title
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
    """Stream one response, forking text and other parts to `show_reply` and tool calls to `run_tools`."""
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
        case TextDelta() | ToUserDelta() | PartDelta():
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
    """The user handler: show and save the reply's text and other parts as they arrive."""
    try:
        async for piece in text:
            if isinstance(piece, PartDelta):
                turn.show_part(piece.kind, piece.text)
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
    await _answer(node, turn, collector)
    turn.conclude_round()
    if turn.finish_reason == "length":  # a call cut at the token limit: the user is offered Continue, and the
        turn.cut_calls = [call.name for call in collector.invalid()]  # model is not asked again by itself
        return
    if turn.budget_note is not None or turn.stop_after_tools:
        return
    await turn.finish_message(MessageStatus.COMPLETE)
    if turn.over_token_budget():
        turn.budget_note = f"Stopped: this turn used its budget of {turn.budget.max_tokens} tokens."
        return
    await turn.start_message()
    await node.put_job(ResponseJob(turn))


async def _answer(node: HandlerCoroutine, turn: Turn, collector: ToolCallCollector) -> None:
    """Answer the invalid calls, and run the valid ones (one handler node each) unless over budget."""
    for call in collector.invalid():
        await turn.answer_without_running(call, ToolStatus.FAILED, collector.why_invalid(call))
    valid = collector.valid()
    if turn.rounds >= turn.budget.max_tool_rounds:
        turn.budget_note = f"Stopped: this turn reached its limit of {turn.budget.max_tool_rounds} tool rounds."
        for call in valid:
            await turn.answer_without_running(call, ToolStatus.DENIED, f"Not run: {turn.budget_note}")
        return
    turn.rounds += 1
    turn.services.runner.begin_session(turn.session_id)
    handlers = []
    for call in valid:
        handler = run_call(turn, call).named(call.name, call.headline())
        handler.id = tool_node_id(call)
        handlers.append(node.call_handler(handler))
    for handler in handlers:  # a cancelled call's node ends `cancelled`; the others run on
        await handler.wait()


def tool_node_id(call: ToolCall) -> str:
    """The commander node id of a call's handler: the UI ties the call's updates to its node with it."""
    return f"tool:{call.message_id}/{call.call_id}"


@as_handler
async def run_call(node: HandlerCoroutine, turn: Turn, call: ToolCall) -> None:
    """One tool call's handler: the runner takes it to its final value (cancelling the node interrupts it)."""
    try:
        await turn.run_call(call)
    except Exception as error:  # never leave the turn without a reason
        turn.fail(f"Running {call.name} failed: {error}")
        raise


TURN_SHAPE: tuple[tuple[str, NodeKind, int | None], ...] = (
    (ChatJob.__name__, NodeKind.JOB, None),
    (ResponseJob.__name__, NodeKind.JOB, 0),
    (respond.name, NodeKind.HANDLER, 1),
    (show_reply.name, NodeKind.HANDLER, 2),
    (run_tools.name, NodeKind.HANDLER, 2),
)
"""The nodes a turn opens for each response, in creation order: (label, kind, index of the parent here or None
for the commander). Tool calls then hang under `run_tools` (last) as one node each. A test checks it against
a real turn's tree."""
