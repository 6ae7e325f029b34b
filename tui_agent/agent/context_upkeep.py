"""Provides `ContextUpkeep`: what keeps a session's context in bounds — the context windows the server serves
its models with (learned in the background for the gauge and compaction; once more after the first reply when
the model in use had none) and compaction (the older turns of the active branch summarised into one message the
model is sent in their place; `tui_agent.agent.compaction` says which, `tui_agent.agent.summariser` asks the
summary in pieces that fit, `tui_agent.agent.compaction_backoff` pauses automatic compaction after a failure).
`Agent` mixes it in.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING

from tui_agent.agent.compaction import (
    Compaction,
    CompactionFailedError,
    NothingToCompactError,
    older_turns,
    stored_usage,
    to_summarise,
)
from tui_agent.agent.compaction_backoff import CompactionBackoff
from tui_agent.agent.sessions import SessionActions
from tui_agent.agent.summariser import Summariser
from tui_agent.llm.errors import LLMError

if TYPE_CHECKING:  # the openai client is imported only when a client is built
    from tui_agent.llm.model_client import ModelClient

WINDOWS_WAIT = 5.0
"""Seconds the server may take to say its models' context windows (`learn_context_windows`)."""


class ContextUpkeep(SessionActions):
    """Context windows and compaction for `Agent` (which provides what is declared here)."""

    client: ModelClient
    _windows_task: asyncio.Task[None] | None
    _compacting: bool
    _ended: object | None
    _windows_asked_again = False
    """The server was asked again, once a reply had loaded the model (see `windows_learnt`)."""

    if TYPE_CHECKING:

        @property
        def model(self) -> str: ...

        def _check_idle(self) -> None: ...

        async def _turn_saved(self) -> None: ...

    def learn_context_windows(self) -> asyncio.Future[None]:
        """Ask the server, in the background and once, which context windows it gives its models (the gauge
        uses them; a server that says none, or does not answer within `WINDOWS_WAIT`, leaves the other
        sources). A turn starting meanwhile waits for the answer, so the request order is always the same.
        Returns the asking, done once the answer is in the meter."""
        if self._windows_task is not None:
            return self._windows_task

        async def learn() -> None:
            with contextlib.suppress(LLMError, TimeoutError):
                windows = await asyncio.wait_for(self.client.context_windows(), WINDOWS_WAIT)
                self._services.meter.served_windows.update(windows)

        self._windows_task = asyncio.get_running_loop().create_task(learn(), name="context-windows")
        return self._windows_task

    async def windows_learnt(self) -> None:
        """Wait for the asking (a turn starts only once the answer is in the meter, so requests keep one order).
        When the server said no window for the model in use, it is asked once more after the first reply:
        Ollama says the window a model is served with once it is loaded, which that reply did."""
        learnt = self._windows_task is not None and self._windows_task.done()
        if learnt and not self._windows_asked_again and self._ended is not None:
            self._windows_asked_again = True
            if self.model not in self._services.meter.served_windows:
                self._windows_task = None
                self.learn_context_windows()
        if self._windows_task is not None and not self._windows_task.done():
            await asyncio.wait({self._windows_task})

    async def compact(self, *, auto: bool = False) -> Compaction:
        """Summarise the older turns of the active branch into one message the model is sent in their place
        (see `tui_agent.agent.compaction`); the originals stay in history and on screen, marked compacted.
        A failure pauses automatic compaction (`CompactionBackoff`), and says so; `auto`: the context is full,
        a prompt waits (an automatic compaction is not tried while paused)."""
        meter = self._services.meter
        try:
            done = await self._compact()
        except (CompactionFailedError, NothingToCompactError) as error:
            meter.backoff.failed(meter.context_tokens)
            if auto or meter.snapshot(self.model).needs_compaction:  # said once: the next prompts do not retry
                why = f"{error.user_message} {CompactionBackoff.explain(meter.window(self.model))}"
                raise type(error)(why) from error
            raise
        meter.backoff.succeeded()
        return done

    async def _compact(self) -> Compaction:
        self._check_idle()
        await self._turn_saved()
        session = self._session
        if session is None:
            raise NothingToCompactError("Nothing to compact yet: the conversation is empty.")
        if self.store.unsaved is not None:  # compaction is read from and written to history, which lags now
            raise CompactionFailedError(f"Cannot compact while history is not saved ({self.store.unsaved}).")
        path = await self.store.load_tail(session.id, await self.store.count_messages(session.id))
        older, before_cut = older_turns(path)
        if not older:
            raise NothingToCompactError("Nothing to compact yet: only the latest turn would be left, and it is kept.")
        self._compacting = True
        try:
            summariser = Summariser(self.client, self._services.meter.window(self.model))
            made = await summariser.summarise(to_summarise(before_cut, session.system_prompt))
            text, usage = made.text, made.usage
            compacted = [message.id for message in older]
            summary = await self.store.add_summary(session.id, text, compacted, model=self.model)
            if usage is not None:  # asking for the summary is paid for like a reply, and counted like one
                self._services.meter.add(self.model, usage)
                self._services.totals.prompt_tokens += usage.prompt_tokens
                self._services.totals.completion_tokens += usage.completion_tokens
                await self.store.finish_message(summary.id, summary.status, usage=stored_usage(usage))
            await self._reload_conversation(session)
        finally:
            self._compacting = False
        return Compaction(summary, compacted, usage, made.pieces)
