"""Provides `TurnRunner`: how the chat screen runs its turns, one at a time.

A prompt is sent, or queued while a turn runs (and sent when it ends); retry, continue, edit and regenerate
start a turn on a branch; Esc takes a queued prompt back or stops the reply. `_run_turn` reads the turn's
events from the backend and hands each to the screen's `TurnView`, a few milliseconds of them at a time so keys
and frames get in between. The chat screen holds one (`ChatScreen.turns`) and hands it its intents.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import time
from typing import TYPE_CHECKING, NamedTuple, Protocol

from tui_agent.errors import EngineUnavailableError, user_message
from tui_agent.status import TurnEndReason
from tui_agent.ui.long_lived import collect_while_reading
from tui_agent.ui.screens.chat_compaction import compact_then_send
from tui_agent.ui.widgets.prompt import PromptInput
from tui_agent.ui.widgets.status_bar import StatusBar

EVENT_SLICE = 0.004
"""Seconds of a turn's events shown in a row before the loop takes its other work (keys, frames)."""

if TYPE_CHECKING:  # the events load with the engine, after the first paint
    from collections.abc import AsyncIterator, Callable, Sequence

    from tui_agent.agent.events import AgentEvent
    from tui_agent.agent.port import ChatBackend
    from tui_agent.agent.records import Attachment
    from tui_agent.ui.screens.chat_compaction import CompactionHost
    from tui_agent.ui.screens.turn_view import TurnView
    from tui_agent.ui.widgets.messages import UserMessage

    TurnOf = Callable[[ChatBackend], AsyncIterator[AgentEvent]]
    """Starts a turn (send, retry, continue) on the backend."""

    class Edits(Protocol):
        """The screen's prompt edits (`Branches`): an edit in the prompt box is sent, or cancelled, as its own turn."""

        @property
        def editing(self) -> UserMessage | None: ...

        def send_edit(self, text: str, attachments: list[Attachment]) -> None: ...

        def cancel_edit(self) -> bool: ...

    class TurnHost(CompactionHost, Protocol):
        """What the turns use of their chat screen (a turn that finds the context full compacts first)."""

        @property
        def branches(self) -> Edits: ...

        def offer_plan(self) -> None: ...


class TurnRunner:
    """One chat screen's turns, one at a time: what is sent, queued, stopped (the screen holds one, `turns`)."""

    def __init__(self, screen: TurnHost, view: TurnView) -> None:
        self.screen = screen
        self.view = view
        self.busy = False
        """A turn is running: Esc stops it."""
        self._turn_lock = asyncio.Lock()
        self._stop = asyncio.Event()
        """Set by Esc for the newest turn started (each turn gets its own: `_run_in_worker`)."""
        self._engine_finishing: asyncio.Task[None] | None = None
        """The last turn's events after `TurnFinished`, read in the background: the engine's final writes."""
        self._queued_attachments: dict[str, list[Attachment]] = {}
        """The files of prompts waiting in the queue, by their text."""

    @property
    def turn_lock(self) -> asyncio.Lock:
        """Held while a turn (or a compaction) runs: prompts sent meanwhile are queued."""
        return self._turn_lock

    @property
    def idle(self) -> bool:
        """No turn is running or still draining its closing events, and no prompt waits to be sent."""
        return not self.busy and not self._turn_lock.locked() and not self.screen.queued.prompts

    def _set_busy(self, busy: bool) -> None:
        self.busy = busy
        self.screen.status_bar.set_busy(busy)

    # -- intents ------------------------------------------------------------------------------------
    def submitted(self, event: PromptInput.Submitted) -> None:
        """A prompt was sent from the prompt box (Enter)."""
        event.stop()
        if self.screen.branches.editing is not None:
            self.screen.branches.send_edit(event.text, event.attachments)
        elif self.busy or self._turn_lock.locked() or self.screen.queued.prompts:
            self.screen.queued.push(event.text)  # shown above the prompt, not under the reply still being written
            if event.attachments:
                self._queued_attachments[event.text] = event.attachments
        else:
            self._start_turn(event.text, event.attachments)

    def send_prompts(self, prompts: Sequence[str]) -> None:
        """Send the first of `prompts` now (without compacting first) and queue the others."""
        if prompts:
            self._start_turn(prompts[0], compact=False)
        for prompt in prompts[1:]:
            self.screen.queued.push(prompt)

    def compact(self) -> None:
        """Summarise the older turns into one message sent in their place (the palette's "Compact conversation")."""
        if not self.idle:
            self.screen.notify("A reply is running: compact once it has finished.", severity="warning")
            return
        self.screen.run_worker(
            compact_then_send(self.screen, None), group="turn", exit_on_error=False, description="compact"
        )

    def _start_turn(self, prompt: str, attachments: list[Attachment] | None = None, *, compact: bool = True) -> None:
        files = attachments or []
        full = self.screen.backend is not None and self.screen.backend.meter.compacts_first
        if compact and full and not files:  # full: compact first (a prompt with files is sent as it is; after a
            # failed compaction, prompts are sent as they are for a while: `CompactionBackoff`)
            self.screen.run_worker(
                compact_then_send(self.screen, prompt), group="turn", exit_on_error=False, description="compact"
            )
            return
        self.screen.chat_log.hide_actions()
        self.screen.chat_log.add_user(prompt, [a.ref for a in files])
        app = (
            self.screen.app
        )  # its team: `--team`, "Run a team" in the palette, or the resumed session's (read once the
        # engine is there, which restores it)
        self._run_in_worker(
            lambda backend: (
                backend.run_team(team, prompt)
                if (team := getattr(app, "team", None))
                else (backend.send(prompt, files) if files else backend.send(prompt))
            )
        )

    def retry(self) -> None:
        """Ctrl+R: ask again for the last reply; the old one stays, dimmed, and the model no longer sees it."""
        self._redo(lambda backend: backend.retry())

    def continue_reply(self) -> None:
        """Ctrl+G: have the model go on with the last reply where it stopped: a new version of it, its text and
        the rest (the cut-off one is kept, on its own branch)."""
        self._redo(lambda backend: backend.continue_reply())

    def _redo(self, turn: TurnOf) -> None:
        if not self.idle:
            self.screen.notify("A reply is running: press Esc to stop it first.", severity="warning")
            return
        self.start_branch_turn(turn)

    def start_branch_turn(self, turn: TurnOf) -> None:
        """Run a turn that is not a new prompt (retry, continue, edit, regenerate)."""
        self.screen.chat_log.hide_actions()
        self.screen.prompt_input.focus()  # a click on the link focused the log: typing goes to the prompt again
        self._run_in_worker(turn)

    def _run_in_worker(self, turn: TurnOf) -> None:
        """Run `turn` in the turn worker (after the turn before it); from now on Esc stops this one."""
        stop = self._stop = asyncio.Event()
        self._set_busy(True)
        self.screen.run_worker(
            self._run_turn(stoppable(turn, stop), stop), group="turn", exit_on_error=False, description="chat turn"
        )

    def cancel(self) -> None:
        """Esc: on an empty prompt with a prompt queued, take the newest queued one back to edit; otherwise
        stop the reply."""
        prompt = self.screen.prompt_input
        if self.screen.branches.cancel_edit():
            return
        if not prompt.text and (waiting := self.screen.queued.take_last()) is not None:
            prompt.load_text(waiting)
            prompt.set_attachments(self._queued_attachments.pop(waiting, []))
            prompt.move_cursor(prompt.document.end)
            return
        self.stop_reply()

    def take_unsent(self) -> Unsent:
        """What was written here and not sent, taken out: the prompts waiting in the queue, oldest first, then the
        prompt box's text, with their files (a screen drawn in this one's place puts them in its prompt box)."""
        waiting, files = [], []
        while (prompt := self.screen.queued.take_first()) is not None:
            waiting.append(prompt)
            files += self._queued_attachments.pop(prompt, [])
        box = self.screen.prompt_input
        draft, files = box.prompt_text, files + box.attachments
        return Unsent("\n\n".join(text for text in [*waiting, draft] if text.strip()), files, len(waiting))

    def stop_reply(self) -> None:
        """Stop the reply now; the backend's closing events arrive after and change nothing visible."""
        if not self.busy:
            return
        self._stop.set()  # for a turn the backend does not have yet: stopped when it has (`stoppable`)
        if self.screen.backend is not None:
            self.screen.backend.cancel()
        self.screen.chat_log.interrupt_streaming()
        self.screen.tool_panels.interrupt_open()
        self._set_busy(False)

    # -- the turn -----------------------------------------------------------------------------------
    async def _turn_events(self, turn: TurnOf) -> AsyncIterator[AgentEvent]:
        """The turn's events once the engine is there; a failed build ends the turn with its sentence."""
        try:
            backend = await self.screen.connected()
        except EngineUnavailableError as error:
            from tui_agent.agent.events import TurnFinished  # deferred: loads with the engine, which did not

            yield TurnFinished(TurnEndReason.ERROR, error.user_message)
            return
        async for event in turn(backend):
            yield event

    async def _run_turn(self, turn: TurnOf, stop: asyncio.Event) -> None:
        async with self._turn_lock:  # a cancelled turn may still be draining its last events
            if self._engine_finishing is not None:
                await self._engine_finishing
            self._set_busy(not stop.is_set())  # the turn before ended ("ready"): this one replies, unless stopped
            turn_events = self._turn_events(turn)
            done = False
            try:
                self.view.begin_turn()
                turn_slice = time.perf_counter() + EVENT_SLICE
                async for event in turn_events:
                    self.view.render_event(event)
                    if _finishes(event):  # ready now; the engine's last writes go on (a long reply: ~40 ms)
                        done = _done(event)
                        self._engine_finishing = asyncio.create_task(_read_to_end(turn_events))
                        self._engine_finishing.add_done_callback(self._engine_finished)
                        break
                    if time.perf_counter() > turn_slice:  # events already queued come without a pause:
                        await asyncio.sleep(0)  # let keys and frames in between
                        turn_slice = time.perf_counter() + EVENT_SLICE
            except Exception as error:  # the backend reports failures as events; anything else lands here
                self.screen.chat_log.add_error(user_message(error))
            finally:
                self.screen.chat_log.close_open()
                self._set_busy(False)
                self.screen.show_status()
        if (waiting := self.screen.queued.take_first()) is not None:  # the lock is free: the next turn may start
            self._start_turn(waiting, self._queued_attachments.pop(waiting, None))
        elif done:
            self.screen.offer_plan()  # in plan mode, the reply's plan to approve (nothing otherwise)

    def _engine_finished(self, _: asyncio.Task[None]) -> None:
        """The turn's last writes are done: the status line shows what they changed (a regeneration's own
        model is given back only then; the line said that model until the next turn)."""
        if self.screen.is_attached and self.screen.query(StatusBar):  # a screen retired meanwhile has no status line
            self.screen.show_status()
            if self.idle:  # after the frame that shows the turn's end, while the person reads it
                self.screen.call_after_refresh(self._collect_garbage)

    def _collect_garbage(self) -> None:
        screen = self.screen
        if not (screen.is_attached and screen.query(StatusBar)):  # retired under a fresh screen since: nothing to ask
            return
        if self.idle:  # a prompt sent in between: its turn runs first, and the next pause collects
            collect_while_reading()


class Unsent(NamedTuple):
    """Prompts written and not sent, as one text for a prompt box (see `TurnRunner.take_unsent`)."""

    text: str
    attachments: list[Attachment]
    waiting: int
    """How many of them waited in the queue (the rest is the box's own text)."""


def stoppable(turn: TurnOf, stop: asyncio.Event) -> TurnOf:
    """`turn`, cancelled at its first event when `stop` was set before: Esc pressed so soon after Enter that the
    backend did not have the turn yet (the engine still starting), so its `cancel` found nothing to stop."""

    async def events(backend: ChatBackend) -> AsyncIterator[AgentEvent]:
        first = True
        async for event in turn(backend):
            if first and stop.is_set():
                backend.cancel()
            first = False
            yield event

    return events


def _done(event: AgentEvent) -> bool:
    """Whether the turn ended as it should (not stopped, cut off or failed)."""
    return getattr(event, "reason", None) == TurnEndReason.DONE


def _finishes(event: AgentEvent) -> bool:
    return isinstance(event, _turn_finished())


@functools.cache
def _turn_finished() -> type[AgentEvent]:
    """`TurnFinished`, imported once (asked for each of a turn's events: 100,000 one-character deltas)."""
    from tui_agent.agent.events import TurnFinished  # deferred: loaded by the engine before any event exists

    return TurnFinished


async def _read_to_end(events: AsyncIterator[AgentEvent]) -> None:
    """What is left of a turn's events after `TurnFinished`: none, but reading to the end lets the engine
    commit the turn's final writes and take the next turn (a new turn waits for this first)."""
    with contextlib.suppress(Exception):  # the turn's end is shown; history reports its own failures
        async for _ in events:
            pass
