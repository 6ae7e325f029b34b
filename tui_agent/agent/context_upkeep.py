"""Provides `ContextUpkeep`: what keeps a session's context in bounds — the context windows the server serves
its models with (learned in the background for the gauge and compaction; once more after the first reply when
the model in use had none) and compaction (the older turns of the active branch summarised into one message the
model is sent in their place; `tui_agent.agent.compaction` says which, `tui_agent.agent.summariser` asks the
summary in pieces that fit, `tui_agent.agent.compaction_backoff` pauses automatic compaction after a failure).
It owns the asking for windows; it compacts the session of a `ChatState`, holding `Turns` busy meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib

from tui_agent.agent.chat_state import ChatState
from tui_agent.agent.compaction import (
    Compaction,
    CompactionFailedError,
    NothingToCompactError,
    older_turns,
    stored_usage,
    to_summarise,
)
from tui_agent.agent.compaction_backoff import CompactionBackoff
from tui_agent.agent.turns import Turns
from tui_agent.llm.errors import LLMError

WINDOWS_WAIT = 5.0
"""Seconds the server may take to say its models' context windows (`learn_context_windows`)."""


class ContextUpkeep:
    """Context windows and compaction for one chat's session."""

    def __init__(self, state: ChatState, turns: Turns) -> None:
        self._state, self._turns = state, turns
        self._windows_task: asyncio.Task[None] | None = None
        self._windows_asked_again = False
        """The server was asked again, once a reply had loaded the model (see `windows_learnt`)."""

    def stop(self) -> None:
        """Stop asking for the windows (the chat closes)."""
        if self._windows_task is not None:
            self._windows_task.cancel()

    def learn_context_windows(self) -> asyncio.Future[None]:
        """Ask the server, in the background and once, which context windows it gives its models (the gauge
        uses them; a server that says none, or does not answer within `WINDOWS_WAIT`, leaves the other
        sources). A turn starting meanwhile waits for the answer, so the request order is always the same.
        Returns the asking, done once the answer is in the meter."""
        if self._windows_task is not None:
            return self._windows_task

        async def learn() -> None:
            with contextlib.suppress(LLMError, TimeoutError):
                windows = await asyncio.wait_for(self._state.services.client.context_windows(), WINDOWS_WAIT)
                self._state.services.meter.served_windows.update(windows)

        self._windows_task = asyncio.get_running_loop().create_task(learn(), name="context-windows")
        return self._windows_task

    async def windows_learnt(self) -> None:
        """Wait for the asking (a turn starts only once the answer is in the meter, so requests keep one order).
        When the server said no window for the model in use, it is asked once more after the first reply:
        Ollama says the window a model is served with once it is loaded, which that reply did."""
        learnt = self._windows_task is not None and self._windows_task.done()
        if learnt and not self._windows_asked_again and self._turns.ended is not None:
            self._windows_asked_again = True
            if self._state.model not in self._state.services.meter.served_windows:
                self._windows_task = None
                self.learn_context_windows()
        if self._windows_task is not None and not self._windows_task.done():
            await asyncio.wait({self._windows_task})

    async def compact(self, *, auto: bool = False) -> Compaction:
        """Summarise the older turns of the active branch into one message the model is sent in their place
        (see `tui_agent.agent.compaction`); the originals stay in history and on screen, marked compacted.
        A failure pauses automatic compaction (`CompactionBackoff`), and says so; `auto`: the context is full,
        a prompt waits (an automatic compaction is not tried while paused)."""
        meter = self._state.services.meter
        try:
            done = await self._compact()
        except (CompactionFailedError, NothingToCompactError) as error:
            meter.backoff.failed(meter.context_tokens)
            if auto or meter.snapshot(self._state.model).needs_compaction:  # said once: the next prompts do not retry
                why = f"{error.user_message} {CompactionBackoff.explain(meter.window(self._state.model))}"
                raise type(error)(why) from error
            raise
        meter.backoff.succeeded()
        return done

    async def _compact(self) -> Compaction:
        self._turns.check_idle()
        await self._turns.saved()
        state = self._state
        store, services = state.store, state.services
        session = state.session
        if session is None:
            raise NothingToCompactError("Nothing to compact yet: the conversation is empty.")
        if store.unsaved is not None:  # compaction is read from and written to history, which lags now
            raise CompactionFailedError(f"Cannot compact while history is not saved ({store.unsaved}).")
        path = await store.load_tail(session.id, await store.count_messages(session.id))
        older, before_cut = older_turns(path)
        if not older:
            raise NothingToCompactError("Nothing to compact yet: only the latest turn would be left, and it is kept.")
        with self._turns.compacting():
            # deferred: the summariser's classes (a few ms) are for a compaction, which a short run never reaches
            from tui_agent.agent.summariser import Summariser

            summariser = Summariser(services.client, services.meter.window(state.model))
            made = await summariser.summarise(to_summarise(before_cut, session.system_prompt))
            text, usage = made.text, made.usage
            compacted = [message.id for message in older]
            summary = await store.add_summary(session.id, text, compacted, model=state.model)
            if usage is not None:  # asking for the summary is paid for like a reply, and counted like one
                services.meter.add(state.model, usage)
                services.totals.prompt_tokens += usage.prompt_tokens
                services.totals.completion_tokens += usage.completion_tokens
                await store.finish_message(summary.id, summary.status, usage=stored_usage(usage))
            await state.reload_conversation(session)
        return Compaction(summary, compacted, usage, made.pieces)
