"""Provides `Turn`: the state one chat turn shares between its jobs and handlers, and its side effects.

Everything that happens in a turn goes through here exactly once: text and the reply's other parts (reasoning,
...; by kind, only the text goes back to the model) are shown (events) and saved (coalesced by `StreamingSaver`),
tool calls are recorded before they run and updated as they change (each
change a new `ToolCall` value, shown as `ToolCallUpdated`), a call that needs approval is asked as an
`ApprovalRequested` event whose future the UI answers, and the end — done, cancelled, budget or error — is
written to history and announced with `TurnFinished`. Jobs and handlers (`tui_agent.agent.turn_jobs`) decide
*when*; this module does *what*.
"""

from __future__ import annotations

import asyncio
import contextvars
import time
from collections.abc import AsyncIterator, Callable, Coroutine, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tui_agent.agent.conversation import Conversation
from tui_agent.agent.events import (
    AgentEvent,
    ApprovalRequested,
    AssistantMessageFinished,
    AssistantMessageStarted,
    AssistantPartDelta,
    AssistantTextDelta,
    MessageStatus,
    ReplyWaiting,
    ToolCallUpdated,
    ToolStatus,
    TurnEndReason,
    TurnFinished,
    UsageUpdated,
)
from tui_agent.agent.image_refusal import (
    INVALID_WHY,
    invalid_sentence,
    refusal_of,
    store_calls_left_out,
    store_left_out,
    unsupported_sentence,
)
from tui_agent.agent.meter import SessionMeter
from tui_agent.agent.plan import with_plan_instructions
from tui_agent.agent.text_runs import TextRuns
from tui_agent.agents.memory import with_memory
from tui_agent.history.attachments import Attachment
from tui_agent.history.models import PART_BREAK, Message
from tui_agent.history.models import Usage as StoredUsage
from tui_agent.history.saver import StreamingSaver
from tui_agent.history.store import HistoryStore
from tui_agent.llm.errors import AuthenticationFailedError, ContextTooLongError, LLMError, RequestRejectedError
from tui_agent.llm.events import RetryScheduled, StreamEvent, Usage
from tui_agent.status import CUT_OFF, Role
from tui_agent.tool_call import CallKey, Decision, ToolCall
from tui_agent.tools.runner import ToolRunner
from tui_agent.tracing.telemetry import Telemetry

if TYPE_CHECKING:  # the openai client is imported only when a client is built
    from tui_agent.llm.model_client import ModelClient


running_call: contextvars.ContextVar[tuple[Turn, ToolCall]] = contextvars.ContextVar("running_call")
"""The turn and call whose tool is running in this task: a tool that runs a sub-agent (`ask_<name>`) reads it
to know whose call it answers (the runner gives a tool its arguments only)."""

DEFAULT_AGENT_NAME = "assistant"
"""What hooks are told an agent is called when the session runs no named one (no agent files)."""
CONTINUE_PROMPT = (
    "Continue exactly where you stopped: your reply above was cut off. Do not repeat any of it "
    "and do not comment on the interruption; start with the very next word."
)
"""Sent after a cut-off reply to have it continued; servers differ on assistant prefill, every one takes this."""
IMAGES_REFUSED = (
    "The request carried an image, and this model may not accept images. Your prompt and its image are kept; "
    "from now on the image is left out of what is sent (a note stands for it): press Ctrl+R to ask again "
    "without it, or switch to a model that reads images."
)
"""Added to a 400 for a request with images (a text-only model's answer)."""
CONTEXT_FULL = (
    "To go on, press F9 to compact the conversation (in the app: `tui-agent --continue` opens this session "
    "there): its older turns are summarised into one message, in pieces that fit the window; then press Ctrl+R "
    "to ask again. Or start a new session (Ctrl+N)."
)
"""Added to a refusal for a request longer than the model's context window."""


@dataclass(frozen=True)
class Continuation:
    """A cut-off reply that a turn goes on from, in a new sibling reply that starts with its text: the model is
    shown `text` once, with `CONTINUE_PROMPT` after it; the reply's other `parts` by kind are kept, and the
    continuation's of the same kind follow them after `PART_BREAK`. Only the new response's tokens are the
    sibling's usage (the cut-off one keeps its own: every branch is counted)."""

    of: str
    """The cut-off reply's id (it stays, on its own branch)."""
    text: str
    parts: Mapping[str, str] = field(default_factory=dict)


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

    client: ModelClient
    runner: ToolRunner
    store: HistoryStore
    model: str
    totals: SessionTotals = field(default_factory=SessionTotals)
    meter: SessionMeter = field(default_factory=SessionMeter)
    """Cost and context for the status line (each response's usage is counted into it)."""
    missing_key_message: str | None = None
    """Said instead of the server's 401 message when no API key was configured at all."""
    temperature: float | None = None
    """Sent with every request when set (the agent's or the config's); None: the server's default."""
    memory: str = ""
    """The memory files' block added to every request's system prompt (`agents.memory`); "": none."""
    telemetry: Telemetry = field(default_factory=Telemetry)
    """Told each model and tool call as it ends, for a tracer (`tui_agent.tracing`); shared with sub-agents."""


class Turn:
    """One prompt's worth of work: zero or more tool rounds, each a model response."""

    def __init__(
        self,
        services: TurnServices,
        session_id: str,
        conversation: Conversation,
        budget: TurnBudget,
        emit: Callable[[AgentEvent], None],
        turn_id: str = "",
    ) -> None:
        self.services, self.session_id, self.conversation, self.budget = services, session_id, conversation, budget
        self._emit = emit
        self.id = turn_id
        """Every event of this turn carries it (`turn_id`)."""
        self.rounds = 0
        self.error: str | None = None
        self.budget_note: str | None = None
        self.finish_reason: str | None = None
        """Why the current response ended, as the server said (`length`: cut at the token limit)."""
        self.cut_calls: list[str] = []
        """The tools whose calls the token limit cut while the model wrote them (not run: Continue is offered)."""
        self.message_id = ""
        self._continuing = ""
        self._breaks: set[str] = set()
        """Kinds whose next piece starts a continuation's own (after `PART_BREAK`)."""
        self._saver: StreamingSaver | None = None
        self._api_text = TextRuns()
        self._usage = StoredUsage()
        self._turn_completion_tokens = 0
        self._calls: dict[CallKey, ToolCall] = {}
        """The latest value of each call of the turn, by key (rounds reuse call ids)."""
        self._recorded: set[CallKey] = set()
        self._unanswered: list[ToolCall] = []
        self._writes: asyncio.Task[None] | None = None
        self.finished = False
        """`end` has begun: the end is announced, or about to be."""
        self._saved = asyncio.Event()
        self.agent: str | None = None
        """The team member this turn is (its messages carry the name); None: the session's own agent."""
        self.runs = DEFAULT_AGENT_NAME
        """The agent whose turn this is, as hooks are told it: the session's agent or a sub-agent, by name (a team
        member's name is `agent`)."""
        self.hook_context = ""
        """What command hooks added for the model to the prompt (prompt submitted, session start): sent with the
        turn's first request, never stored."""
        self.stop_after_tools = False
        """End the turn after the current tool round instead of asking the model again (a team's control tools)."""
        self.reply_text = ""
        """The text of the turn's last response, once it has ended (a team passes it to the next member)."""
        self._asked = False
        self.end_reason: TurnEndReason | None = None
        """How the turn ended, once `end` has begun."""

    # -- the assistant message being streamed -------------------------------------------------------
    def attach_message(self, message_id: str, continuation: Continuation | None = None) -> None:
        """Use an assistant message that is already committed (the turn's first): a `streaming` placeholder, or
        the sibling that continues a cut-off reply (see `Continuation`)."""
        text, parts = (continuation.text, continuation.parts) if continuation is not None else ("", None)
        self.message_id = message_id
        self._saver = StreamingSaver(self.services.store, message_id, text=text, parts=parts)
        self._breaks = {kind for kind, held in (parts or {}).items() if held}
        self._api_text, self._usage = TextRuns(text), StoredUsage()
        self._continuing, self.finish_reason = text, None
        continues = continuation.of if continuation is not None else None
        self._emit(AssistantMessageStarted(message_id, text, agent=self.agent, continues=continues, turn_id=self.id))

    async def start_message(self) -> None:
        """Commit a new `streaming` assistant message for the next model response."""
        store = self.services.store
        message = await store.append_message(
            self.session_id, Role.ASSISTANT, "", MessageStatus.STREAMING, model=self.services.model, agent=self.agent
        )
        self.attach_message(message.id)

    async def stream(self) -> AsyncIterator[StreamEvent]:
        """Ask the model for the next response, with the tools offered now (the person sees it is awaited until
        its first token; tool sources still starting, MCP servers, are waited for first only when the prompt names
        them (`ToolRegistry.settled_for`); each bounds its own wait, and Esc cancels it)."""
        self._emit(ReplyWaiting(self.message_id, time.monotonic(), turn_id=self.id))
        runner = self.services.runner
        messages = with_memory(self.conversation.request(), self.services.memory)
        await runner.registry.settled_for(_last_prompt(messages))  # MCP servers still starting: only those named
        if not self._asked:  # the turn's first request: hooks may rewrite what the agent receives
            self._asked = True
            messages = await self._before_agent(messages)
        if self._continuing:  # asked once, not stored: history keeps one reply, its text continued
            messages = [
                *messages,
                {"role": "assistant", "content": self._continuing},
                {"role": "user", "content": CONTINUE_PROMPT},
            ]
            self._continuing = ""
        if runner.permissions.mode == "plan":  # look and think, then a checklist (`agent/plan.py`)
            messages = with_plan_instructions(messages)
        temperature = self.services.temperature
        options = {} if temperature is None else {"temperature": temperature}
        watch = self.services.telemetry.model_call(self.services.model, self.agent or self.runs, self.session_id)
        if watch is None:  # tracing off: the stream as it comes
            async for event in self.services.client.stream_chat(messages, runner.offered_tools() or None, **options):
                yield event
            return
        error: str | None = "cancelled"
        try:
            async for event in self.services.client.stream_chat(messages, runner.offered_tools() or None, **options):
                watch.see(event)
                yield event
            error = None
        except Exception as failure:
            error = str(failure) or type(failure).__name__
            raise
        finally:
            watch.end(error)

    async def _before_agent(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """`messages` with their last user message as the `before_agent` hooks leave it (the record unchanged)."""
        hooks = self.services.runner.registry.hooks
        last = messages[-1] if messages else {}
        if not (hooks.count() or self.hook_context) or last.get("role") != "user":
            return messages
        if not isinstance(last.get("content"), str):  # a message of parts, with images: the context as a part
            extra = [{"type": "text", "text": _with_context("", self.hook_context)}] if self.hook_context else []
            return [*messages[:-1], {**last, "content": [*last.get("content", []), *extra]}]
        text = await hooks.before_agent(self.agent or self.runs, last["content"])
        return [*messages[:-1], {**last, "content": _with_context(text, self.hook_context)}]

    def retrying(self, retry: RetryScheduled) -> None:
        """The request failed before the reply began and goes again at `retry.at`: say so, with a timer."""
        self._emit(ReplyWaiting(self.message_id, retry.at, retry, turn_id=self.id))

    def show_text(self, text: str) -> None:
        """Show and save reply text (`to_user` text included: the model said it to the user, so a resumed
        conversation and a live one send the model the same message)."""
        self._emit(AssistantTextDelta(self.message_id, text, turn_id=self.id))
        if self._saver is not None:
            self._saver.push(text)
        self._api_text.append(text)

    def show_part(self, kind: str, text: str) -> None:
        """Show and save a part of the reply other than its text (reasoning, ...); it is kept out of the text
        the model is sent, so no such part ever goes back to the model."""
        if kind in self._breaks:  # a continuation's first piece of a kind the reply already has
            self._breaks.discard(kind)
            text = PART_BREAK + text
        self._emit(AssistantPartDelta(self.message_id, kind, text, turn_id=self.id))
        if self._saver is not None:
            self._saver.push_part(kind, text)

    def add_usage(self, usage: Usage) -> None:
        """Count tokens for this message, the turn and the session."""
        totals = self.services.totals
        totals.prompt_tokens += usage.prompt_tokens
        totals.completion_tokens += usage.completion_tokens
        self.services.meter.add(self.services.model, usage)
        self._turn_completion_tokens += usage.completion_tokens
        earlier = self._usage  # this message's (a continuation's own: the cut-off reply keeps its tokens)
        self._usage = StoredUsage(
            earlier.prompt_tokens + usage.prompt_tokens,
            earlier.completion_tokens + usage.completion_tokens,
            earlier.cached_tokens + usage.cached_tokens,
            earlier.cache_write_tokens + usage.cache_write_tokens,
        )
        self._emit(UsageUpdated(totals.prompt_tokens, totals.completion_tokens, turn_id=self.id))

    def over_token_budget(self) -> bool:
        limit = self.budget.max_tokens
        return limit is not None and self._turn_completion_tokens >= limit

    def explain(self, error: LLMError) -> str:
        """The sentence to show (and store) for a model error, with its endpoint and request id."""
        if isinstance(error, AuthenticationFailedError) and self.services.missing_key_message:
            return self.services.missing_key_message
        if isinstance(error, ContextTooLongError):  # the gauge learns the window and the size the server said
            self.services.meter.overflowed(self.services.model, error.window, error.prompt_tokens)
            said = error.user_message
            return error.report.replace(said, f"{said}\n\n{CONTEXT_FULL}", 1)
        if isinstance(error, RequestRejectedError) and self.conversation.has_images:
            said = error.user_message  # the why before where (the endpoint and request id line)
            return error.report.replace(said, f"{said}\n\n{self._leave_out_images(said)}", 1)
        return error.report

    def _leave_out_images(self, said: str) -> str:
        """The server refused a request with images: leave them out of what is sent from now on (the prompt
        stays), and say why. A broken image is left out for good (stored with its prompt); images a model does
        not take, while it is used (`image_refusal`)."""
        refusal = refusal_of(said)
        if refusal != "invalid":
            self.conversation.refuse_images()
            return unsupported_sentence() if refusal == "unsupported" else IMAGES_REFUSED
        calls = self.conversation.leave_out_newest_images(INVALID_WHY)  # None: a prompt's images
        if calls is None:
            self._save_in_order(store_left_out(self.services.store, self.session_id, INVALID_WHY))
        else:
            self._save_in_order(store_calls_left_out(self.services.store, calls, INVALID_WHY))
        return invalid_sentence()

    def fail(self, message: str) -> None:
        """Remember the first failure; the turn ends with it once its jobs have unwound."""
        self.error = self.error or message

    async def finish_message(self, status: MessageStatus, error: str | None = None) -> None:
        """Announce the current message's final status, then write it with its final text."""
        await self._save_final(self._announce_final(status, error), status, error)

    def _announce_final(self, status: MessageStatus, error: str | None) -> StreamingSaver | None:
        """Tell the UI the current message has ended; returns its saver, whose final write is the caller's."""
        if self._saver is None:
            return None
        saver, self._saver = self._saver, None
        self._emit(AssistantMessageFinished(self.message_id, status, error, turn_id=self.id))
        return saver

    async def _save_final(self, saver: StreamingSaver | None, status: MessageStatus, error: str | None) -> None:
        if saver is not None:
            await saver.finish(status, error=error, usage=self._usage if self._usage.total_tokens else None)

    @property
    def model_text(self) -> str:
        return self._api_text.text

    # -- tool calls -----------------------------------------------------------------------------------
    def show_call(self, call: ToolCall) -> None:
        """Show a call's latest value (the UI replaces the panel's content with it)."""
        self._calls[call.key] = call
        self._emit(ToolCallUpdated(call, turn_id=self.id))

    async def record_calls(self, calls: list[ToolCall]) -> None:
        """Commit the calls before any of them runs, so a crash can never re-run them."""
        self._unanswered = list(calls)
        store = self.services.store
        for call in calls:
            await store.record_tool_call(
                call.message_id,
                call.call_id,
                call.name,
                call.raw_arguments,
                None if call.arguments is None else dict(call.arguments),
            )
            self._recorded.add(call.key)

    def follow_call(self, call: ToolCall) -> None:
        """Follow the runner: show the change now, save it in order in the background."""
        self.show_call(call)
        # The files a finished call changed are kept for rewind (`file_rows`), in its final status's transaction.
        changes = call.file_changes if call.status.is_final else ()
        self._save_in_order(
            self.services.store.update_tool_call(
                call.message_id, call.call_id, call.status, result=call.result, error=call.error, file_changes=changes
            )
        )
        if call.attachments and call.status.is_final:  # what it returned besides text (an image), stored once
            returned = [Attachment.restored(r, call.attachment_data[r.hash]) for r in call.attachments]
            self._save_in_order(self._store_returned(call, returned))

    def follow_agent_call(self, call: ToolCall) -> None:
        """Follow a call an external agent runs itself (`agent/external_turn.py`): recorded when first seen (and
        again when its title or input changes), in order with its changes, then followed as the runner's are."""
        earlier = self._calls.get(call.key)
        renamed = earlier is not None and (earlier.name, earlier.raw_arguments) != (call.name, call.raw_arguments)
        if call.key not in self._recorded or renamed:  # recorded again: agents often name a call better later
            if call.key not in self._recorded:
                self._recorded.add(call.key)
                self._unanswered.append(call)
            arguments = None if call.arguments is None else dict(call.arguments)
            store = self.services.store
            self._save_in_order(
                store.record_tool_call(call.message_id, call.call_id, call.name, call.raw_arguments, arguments)
            )
        self.follow_call(call)

    async def _store_returned(self, call: ToolCall, returned: list[Attachment]) -> None:
        await self.services.store.attach_to_call(call.message_id, call.call_id, returned)

    async def ask(self, call: ToolCall, *, external: bool = False) -> Decision:
        """Put `call` to the user as an `ApprovalRequested` event and wait for the answer; a cancelled turn
        (or call) cancels the question. `external`: an external agent asks for its own tool."""
        answer: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()
        self._emit(ApprovalRequested(call, answer, turn_id=self.id, external=external))
        asking = self.agent or self.runs
        self.services.runner.registry.hooks.notify(f"{asking} asks for approval to run {call.name}", self.session_id)
        try:
            return await answer
        finally:
            answer.cancel()  # no-op once answered

    async def run_call(self, call: ToolCall) -> ToolCall:
        """Run one valid call to its final value (validation, approval, timeout and cap are the runner's)."""
        token = running_call.set((self, call))
        try:
            final = await self.services.runner.run_one(call, self.follow_call, self.ask, self.agent or self.runs)
        finally:
            running_call.reset(token)
        self.services.telemetry.tool_call_ended(final, self.agent or self.runs)
        return final

    def relay(self, event: AgentEvent) -> None:
        """Put an event of a sub-agent's turn (wrapped in `SubAgentEvent`) on this turn's stream."""
        self._emit(event)

    def add_sub_usage(self, prompt_tokens: int, completion_tokens: int) -> None:
        """Count a sub-agent's tokens in this session's totals (its own replies keep their own usage)."""
        totals = self.services.totals
        totals.prompt_tokens += prompt_tokens
        totals.completion_tokens += completion_tokens
        self._emit(UsageUpdated(totals.prompt_tokens, totals.completion_tokens, turn_id=self.id))

    async def answer_without_running(self, call: ToolCall, status: ToolStatus, text: str) -> None:
        """Give a call that will not run (invalid, over budget) its final value and answer."""
        final = call.replace(status=status, result=text, error=text)
        self.show_call(final)
        self.services.telemetry.tool_call_ended(final, self.agent or self.runs)
        await self.services.store.update_tool_call(final.message_id, final.call_id, status, result=text, error=text)

    def conclude_round(self) -> None:
        """Put the response and the answers to its calls (each call's latest value) into the conversation."""
        calls = [self._calls.get(call.key, call) for call in self._unanswered]
        self.reply_text = self.model_text
        self.conversation.add_assistant(self.reply_text, calls)
        self._unanswered, self._api_text = [], TextRuns()

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
        """Announce how the turn ended, then write the final state of everything still open.

        The announcement comes first so the UI is ready at once (the final write of a long reply, with its
        search index, takes tens of milliseconds); the turn's job, and the agent's stream of its events, end
        only once the writes are committed (`saved`), so whoever reads history after a turn finds them."""
        if self.finished:
            return
        self.finished = True
        reason = self.end_reason = self._final_reason(reason)
        await self._interrupt_open_calls()
        status = {
            TurnEndReason.CANCELLED: MessageStatus.INTERRUPTED,
            TurnEndReason.LENGTH: MessageStatus.INTERRUPTED,
            TurnEndReason.ERROR: MessageStatus.FAILED,
        }.get(reason, MessageStatus.COMPLETE)
        if self._api_text:
            self.reply_text = self.model_text
        if self._unanswered or self._api_text:
            self.conclude_round()
        note = {TurnEndReason.ERROR: self.error, TurnEndReason.LENGTH: self._cut_off_note()}.get(
            reason, self.budget_note
        )
        saver = self._announce_final(status, note)
        self._emit(TurnFinished(reason, note, turn_id=self.id))
        try:
            await self._writes_done()  # the calls' last states, then the reply's: the order they had before
            await self._save_final(saver, status, note)
        finally:
            self._saved.set()
        hooks = self.services.runner.registry.hooks
        if reason is TurnEndReason.DONE:
            await hooks.after_agent(self.agent or self.runs, self.reply_text)
        await hooks.turn_end(self.agent or self.runs, self.reply_text, reason.value, self.session_id)

    async def saved(self) -> None:
        """Wait until the final writes `end` makes after announcing the end are committed (or kept in memory)."""
        await self._saved.wait()

    def _final_reason(self, reason: TurnEndReason) -> TurnEndReason:
        if reason is not TurnEndReason.DONE:
            return reason
        if self.error:
            return TurnEndReason.ERROR
        return TurnEndReason.LENGTH if self.finish_reason == "length" else reason

    def _cut_off_note(self) -> str:
        limit = self.services.client.max_tokens
        where = f" (max_tokens = {limit})" if limit is not None else ""
        if self.cut_calls:
            names = ", ".join(dict.fromkeys(self.cut_calls))
            return (
                f"{CUT_OFF}{where} while the model was writing its call to {names}: the call was not run. "
                "Continue has the model write it again."
            )
        return f"{CUT_OFF}{where}: the reply above is incomplete."

    async def _interrupt_open_calls(self) -> None:
        store = self.services.store
        for call in list(self._calls.values()):
            if call.status.is_final:
                continue
            self.show_call(call.replace(status=ToolStatus.INTERRUPTED, error="interrupted"))
            if call.key not in self._recorded:  # cut off while the model was still writing it
                self._save_in_order(
                    store.record_tool_call(
                        call.message_id, call.call_id, call.name, call.raw_arguments, None, ToolStatus.INTERRUPTED
                    )
                )
            self._save_in_order(
                store.update_tool_call(call.message_id, call.call_id, ToolStatus.INTERRUPTED, error="interrupted")
            )


def _last_prompt(messages: list[dict[str, Any]]) -> str:
    """The text of the last user message of a request (its text parts when it has images)."""
    for message in reversed(messages):
        if message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, str):
                return content
            if isinstance(content, list):
                return " ".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
            return ""
    return ""


def _with_context(text: str, context: str) -> str:
    """`text` with what command hooks added for the model, delimited so the model can tell it from the prompt."""
    if not context:
        return text
    return f"{text}\n\n<hook-context>\n{context}\n</hook-context>".lstrip("\n")
