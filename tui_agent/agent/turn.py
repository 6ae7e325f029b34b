"""Provides `Turn`: the state one chat turn shares between its jobs and handlers, and its side effects.

Everything that happens in a turn goes through here exactly once: text and reasoning are shown (events) and
saved (coalesced by `StreamingSaver`), tool calls are recorded before they run and updated as they change,
and the end — done, cancelled, budget or error — is written to history and announced with
`TurnFinished`. Jobs and handlers (`tui_agent.agent.turn_jobs`) decide *when*; this module does *what*.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable, Coroutine, Iterable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from tui_agent.agent.conversation import INTERRUPTED_RESULT, AnsweredCall, Conversation
from tui_agent.agent.events import (
    AgentEvent,
    AssistantMessageFinished,
    AssistantMessageStarted,
    AssistantReasoningDelta,
    AssistantTextDelta,
    MessageStatus,
    ReplyWaiting,
    ToolCallUpdated,
    ToolStatus,
    TurnEndReason,
    TurnFinished,
    UsageUpdated,
)
from tui_agent.agent.tool_calls import CollectedCall
from tui_agent.history.models import Message
from tui_agent.history.models import Usage as StoredUsage
from tui_agent.history.saver import StreamingSaver
from tui_agent.history.store import HistoryStore
from tui_agent.llm.errors import AuthenticationFailedError, LLMError
from tui_agent.llm.events import RetryScheduled, StreamEvent, Usage
from tui_agent.status import CUT_OFF, Role
from tui_agent.tools.calls import ToolCallState
from tui_agent.tools.runner import ToolRunner

if TYPE_CHECKING:  # the openai client is imported only when a client is built
    from tui_agent.llm.client import ChatClient


CONTINUE_PROMPT = ("Continue exactly where you stopped: your reply above was cut off. Do not repeat any of it "
                   "and do not comment on the interruption; start with the very next word.")
"""Sent after a cut-off reply to have it continued; servers differ on assistant prefill, every one takes this."""


@dataclass
class TurnBudget:
    """Limits on one turn; reaching one ends the turn with reason BUDGET."""

    max_tool_rounds: int = 10
    """How many times the model may call tools (and be asked again) in one turn."""
    max_tokens: int | None = None
    """Completion tokens allowed in one turn (None: no limit)."""


@dataclass
class SessionTotals:
    """Token counts for the whole session, shown in the status bar."""

    prompt_tokens: int = 0
    completion_tokens: int = 0

    @classmethod
    def of(cls, messages: Iterable[Message]) -> SessionTotals:
        """The totals of stored messages (each reply keeps its own usage)."""
        used = [message.usage for message in messages if message.usage is not None]
        return cls(sum(usage.prompt_tokens for usage in used), sum(usage.completion_tokens for usage in used))


@dataclass
class TurnServices:
    """What a turn talks to."""

    client: ChatClient
    runner: ToolRunner
    store: HistoryStore
    model: str
    totals: SessionTotals = field(default_factory=SessionTotals)
    missing_key_message: str | None = None
    """Said instead of the server's 401 message when no API key was configured at all."""


class Turn:
    """One prompt's worth of work: zero or more tool rounds, each a model response."""

    def __init__(
        self, services: TurnServices, session_id: str, conversation: Conversation, budget: TurnBudget,
        emit: Callable[[AgentEvent], None],
    ) -> None:
        self.services, self.session_id, self.conversation, self.budget = services, session_id, conversation, budget
        self._emit = emit
        self.rounds = 0
        self.error: str | None = None
        self.budget_note: str | None = None
        self.finish_reason: str | None = None
        """Why the current response ended, as the server said (`length`: cut at the token limit)."""
        self.message_id = ""
        self._continuing = ""
        self._saver: StreamingSaver | None = None
        self._api_text: list[str] = []
        self._usage = StoredUsage()
        self._turn_completion_tokens = 0
        self._calls: dict[tuple[str, str], ToolCallUpdated] = {}
        """The latest state of each call of the turn, by `ToolCallUpdated.key` (rounds reuse call ids)."""
        self._recorded: set[tuple[str, str]] = set()
        self._unanswered: list[CollectedCall] = []
        self._writes: asyncio.Task[None] | None = None
        self.finished = False

    # -- the assistant message being streamed -------------------------------------------------------
    def attach_message(self, message_id: str, text: str = "", usage: StoredUsage | None = None) -> None:
        """Use an assistant message that is already committed (the turn's first): a `streaming` placeholder,
        or a reply to continue whose `text` so far the model is shown once, with `CONTINUE_PROMPT` after it
        (its `usage` so far is added to the continuation's)."""
        self.message_id = message_id
        self._saver = StreamingSaver(self.services.store, message_id, text=text)
        self._api_text, self._usage = [text] if text else [], usage or StoredUsage()
        self._continuing, self.finish_reason = text, None
        self._emit(AssistantMessageStarted(message_id, text))

    async def start_message(self) -> None:
        """Commit a new `streaming` assistant message for the next model response."""
        store = self.services.store
        message = await store.append_message(self.session_id, Role.ASSISTANT, "", MessageStatus.STREAMING,
                                             model=self.services.model)
        self.attach_message(message.id)

    async def stream(self) -> AsyncIterator[StreamEvent]:
        """Ask the model for the next response, with the tools offered now (the person sees it is awaited until
        its first token; tool sources still starting, MCP servers, are waited for first; each bounds its own
        wait, and Esc cancels it)."""
        self._emit(ReplyWaiting(self.message_id, time.monotonic()))
        registry = self.services.runner.registry
        await registry.settled()
        messages = self.conversation.request()
        if self._continuing:  # asked once, not stored: history keeps one reply, its text continued
            messages = [*messages, {"role": "assistant", "content": self._continuing},
                        {"role": "user", "content": CONTINUE_PROMPT}]
            self._continuing = ""
        async for event in self.services.client.stream_chat(messages, registry.openai_tools() or None):
            yield event

    def retrying(self, retry: RetryScheduled) -> None:
        """The request failed before the reply began and goes again at `retry.at`: say so, with a timer."""
        self._emit(ReplyWaiting(self.message_id, retry.at, retry))

    def show_text(self, text: str) -> None:
        """Show and save reply text (`to_user` text included: the model said it to the user, so a resumed
        conversation and a live one send the model the same message)."""
        self._emit(AssistantTextDelta(self.message_id, text))
        if self._saver is not None:
            self._saver.push(text)
        self._api_text.append(text)

    def show_reasoning(self, text: str) -> None:
        """Show and save the model's reasoning; it is kept out of `model_text`, so it never goes back to the model."""
        self._emit(AssistantReasoningDelta(self.message_id, text))
        if self._saver is not None:
            self._saver.push_reasoning(text)

    def add_usage(self, usage: Usage) -> None:
        """Count tokens for this message, the turn and the session."""
        totals = self.services.totals
        totals.prompt_tokens += usage.prompt_tokens
        totals.completion_tokens += usage.completion_tokens
        self._turn_completion_tokens += usage.completion_tokens
        earlier = self._usage  # a continued reply's own tokens so far (one usage per response otherwise)
        self._usage = StoredUsage(earlier.prompt_tokens + usage.prompt_tokens,
                                  earlier.completion_tokens + usage.completion_tokens)
        self._emit(UsageUpdated(totals.prompt_tokens, totals.completion_tokens))

    def over_token_budget(self) -> bool:
        limit = self.budget.max_tokens
        return limit is not None and self._turn_completion_tokens >= limit

    def explain(self, error: LLMError) -> str:
        """The sentence to show (and store) for a model error, with its endpoint and request id."""
        if isinstance(error, AuthenticationFailedError) and self.services.missing_key_message:
            return self.services.missing_key_message
        return error.report

    def fail(self, message: str) -> None:
        """Remember the first failure; the turn ends with it once its jobs have unwound."""
        self.error = self.error or message

    async def finish_message(self, status: MessageStatus, error: str | None = None) -> None:
        """Write the current message's final text and status."""
        if self._saver is None:
            return
        saver, self._saver = self._saver, None
        await saver.finish(status, error=error, usage=self._usage if self._usage.total_tokens else None)
        self._emit(AssistantMessageFinished(self.message_id, status, error))

    @property
    def model_text(self) -> str:
        return "".join(self._api_text)

    # -- tool calls -----------------------------------------------------------------------------------
    def show_call(self, update: ToolCallUpdated) -> None:
        """Show a call's latest state (the UI replaces the panel's content with it)."""
        self._calls[update.key] = update
        self._emit(update)

    async def record_calls(self, calls: list[CollectedCall]) -> None:
        """Commit the calls before any of them runs, so a crash can never re-run them."""
        self._unanswered = list(calls)
        store = self.services.store
        for call in calls:
            await store.record_tool_call(self.message_id, call.call_id, call.name, call.raw_text, call.arguments)
            self._recorded.add((self.message_id, call.call_id))

    def runner_update(self, state: ToolCallState) -> None:
        """Follow the runner: show the change now, save it in order in the background."""
        previous = self._calls.get((self.message_id, state.call_id))
        raw = previous.arguments if previous is not None else json.dumps(dict(state.arguments), ensure_ascii=False)
        update = ToolCallUpdated(state.call_id, self.message_id, state.name, raw, state.status,
                                 state.started_at, state.finished_at, state.result, state.error)
        self.show_call(update)
        self._save_in_order(self.services.store.update_tool_call(
            self.message_id, state.call_id, update.status, result=state.result, error=state.error))

    async def answer_without_running(self, call: CollectedCall, status: ToolStatus, text: str) -> str:
        """Give a call that will not run (invalid, over budget) its final state and answer."""
        update = ToolCallUpdated(call.call_id, self.message_id, call.name, call.raw_text, status,
                                 result=text, error=text)
        self.show_call(update)
        await self.services.store.update_tool_call(self.message_id, call.call_id, status, result=text, error=text)
        return text

    def conclude_round(self, answers: dict[str, str]) -> None:
        """Put the response and the answers to its calls into the conversation."""
        calls = [AnsweredCall(c.call_id, c.name, _raw_for_model(c), answers.get(c.call_id, INTERRUPTED_RESULT))
                 for c in self._unanswered]
        self.conversation.add_assistant(self.model_text, calls)
        self._unanswered, self._api_text = [], []

    async def runner_run(self, calls: list[CollectedCall]) -> dict[str, str]:
        """Run valid calls concurrently; returns the answer text per call id."""
        results = await self.services.runner.run([call.request() for call in calls], self.runner_update,
                                                   self.session_id)
        return {result.call_id: result.content for result in results}

    def _save_in_order(self, write: Coroutine[Any, Any, None]) -> None:
        previous = self._writes

        async def after_previous() -> None:
            if previous is not None:
                await asyncio.wait((previous,))
            await write

        self._writes = asyncio.get_running_loop().create_task(after_previous())

    async def _writes_done(self) -> None:
        if self._writes is not None:
            await asyncio.wait((self._writes,))

    # -- the end ------------------------------------------------------------------------------------
    async def end(self, reason: TurnEndReason) -> None:
        """Write the final state of everything still open and announce how the turn ended."""
        if self.finished:
            return
        self.finished = True
        reason = self._final_reason(reason)
        await self._interrupt_open_calls()
        await self._writes_done()
        status = {TurnEndReason.CANCELLED: MessageStatus.INTERRUPTED, TurnEndReason.LENGTH: MessageStatus.INTERRUPTED,
                  TurnEndReason.ERROR: MessageStatus.FAILED}.get(reason, MessageStatus.COMPLETE)
        if self._unanswered or self._api_text:
            self.conclude_round({})
        note = {TurnEndReason.ERROR: self.error, TurnEndReason.LENGTH: self._cut_off_note()}.get(reason,
                                                                                                   self.budget_note)
        await self.finish_message(status, note)
        self._emit(TurnFinished(reason, note))

    def _final_reason(self, reason: TurnEndReason) -> TurnEndReason:
        if reason is not TurnEndReason.DONE:
            return reason
        if self.error:
            return TurnEndReason.ERROR
        return TurnEndReason.LENGTH if self.finish_reason == "length" else reason

    def _cut_off_note(self) -> str:
        limit = self.services.client.max_tokens
        where = f" (max_tokens = {limit})" if limit is not None else ""
        return f"{CUT_OFF}{where}: the reply above is incomplete."

    async def _interrupt_open_calls(self) -> None:
        store = self.services.store
        for update in list(self._calls.values()):
            if update.status not in (ToolStatus.PENDING, ToolStatus.AWAITING_APPROVAL, ToolStatus.RUNNING):
                continue
            self.show_call(replace(update, status=ToolStatus.INTERRUPTED, error="interrupted"))
            if update.key not in self._recorded:  # cut off while the model was still writing it
                self._save_in_order(store.record_tool_call(
                    update.message_id, update.call_id, update.name, update.arguments, None, ToolStatus.INTERRUPTED))
            self._save_in_order(store.update_tool_call(
                update.message_id, update.call_id, ToolStatus.INTERRUPTED, error="interrupted"))

def _raw_for_model(call: CollectedCall) -> str:
    if call.arguments is not None:
        return json.dumps(call.arguments, ensure_ascii=False)
    return "{}"
