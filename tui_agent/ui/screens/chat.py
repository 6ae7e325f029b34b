"""Provides `ChatScreen`: the conversation (left), tool panels (right), prompt and status line (bottom).

It sends intents to the engine's `ChatBackend` (send, cancel, retry and continue the last reply), awaited
from the app's `EngineSlot`, and shows the `AgentEvent`s a turn yields, in a worker (`TurnView` puts each
where it goes); it knows nothing of the agent beyond those events.
Until the engine is built the status bar shows what boot read.
A prompt sent while a turn runs waits in `QueuedPrompts` above the prompt and is sent when the turn ends.
Ctrl+Up selects a message (`MessageCursor`, or the `HoverBar` under the pointer) to edit, regenerate, copy,
fork or switch version; `Branches` sends those through the port and keeps the log and tool column in step.
The cursor, the hover bar, the attachment strip and the welcome join after the first frame (`LaterWidgets`).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import time
from functools import cached_property
from typing import TYPE_CHECKING, cast

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.events import Enter
from textual.widget import AwaitMount

from tui_agent.agent.endpoint import OFFLINE_LABEL
from tui_agent.agent.port import ChatBackend
from tui_agent.errors import EngineUnavailableError, user_message
from tui_agent.status import TurnEndReason
from tui_agent.ui.compaction import compact_then_send
from tui_agent.ui.engine import EngineSlot
from tui_agent.ui.history_view import HistoryView, attach_history
from tui_agent.ui.screens.chat_later import LaterWidgets
from tui_agent.ui.screens.turn_view import TurnView
from tui_agent.ui.team_choice import follow_team
from tui_agent.ui.textual_private import ToastRack
from tui_agent.ui.widgets.chat_log import ChatLog
from tui_agent.ui.widgets.log_window import LogWindow
from tui_agent.ui.widgets.prompt import AttachLimits, PromptInput
from tui_agent.ui.widgets.queued import QueuedPrompts
from tui_agent.ui.widgets.status_bar import StatusBar
from tui_agent.ui.widgets.tool_panel import Clock, ToolPanel, ToolPanels

EVENT_SLICE = 0.004
"""Seconds of a turn's events shown in a row before the loop takes its other work (keys, frames)."""

if TYPE_CHECKING:  # the events load with the engine, after the first paint
    from collections.abc import AsyncIterator, Callable, Iterable, Sequence

    from tui_agent.agent.events import (
        AgentEvent,
        AssistantMessageFinished,
    )
    from tui_agent.agent.tree import Unsubscribe
    from tui_agent.history.attachments import Attachment
    from tui_agent.ui.app import TuiAgentApp
    from tui_agent.ui.branches import Branches
    from tui_agent.ui.widgets.attachment_chips import AttachmentChips
    from tui_agent.ui.widgets.branch_mark import BranchMarked
    from tui_agent.ui.widgets.message_cursor import MessageCursor
    from tui_agent.ui.widgets.task_tree import TaskTree
    from tui_agent.ui.widgets.welcome import Welcome

    TurnOf = Callable[[ChatBackend], AsyncIterator[AgentEvent]]
    """Starts a turn (send, retry, continue) on the backend."""


class ChatScreen(TurnView):
    """The main screen."""

    AUTO_FOCUS = "#prompt"  # focused as the screen mounts: no focus moves (and restyles) before the first frame

    BINDINGS = [Binding("escape", "cancel_turn", "Stop reply / take back queued", id="cancel_turn")]
    BINDINGS += [Binding("ctrl+s", "app.sessions", "Sessions", id="sessions")]
    BINDINGS += [  # with priority: over the prompt's F6
        Binding("f6", "focus_tools", "Tool calls / prompt (focus)", priority=True, id="focus_tools"),
    ]
    BINDINGS += [
        Binding("ctrl+r", "retry_reply", "Retry the last reply", show=False, id="retry_reply"),
        Binding("ctrl+g", "continue_reply", "Continue the last reply", show=False, id="continue_reply"),
    ]
    BINDINGS += [  # the prompt keeps the focus: these scroll the conversation from it
        Binding("pageup", "page_up", "Scroll the conversation up", show=False, priority=True, id="page_up"),
        Binding("pagedown", "page_down", "Scroll the conversation down", show=False, priority=True, id="page_down"),
    ]
    BINDINGS += [Binding("ctrl+up", "select_message", "Select a message to act on", id="select_message")]

    def __init__(
        self,
        engine: EngineSlot,
        *,
        clock: Clock = time.monotonic,
        cursor_blink: bool = True,
        reasoning: str = "collapsed",
        note: str | None = None,
        then_send: Sequence[str] = (),
        attach_limits: AttachLimits | None = None,
    ) -> None:
        """`note` and `then_send`: a line to add once the history is shown, and prompts to send then (a screen
        drawn again after a compaction)."""
        super().__init__()
        self._note, self._then_send = note, list(then_send)
        self._attach_limits = attach_limits
        """`[ui] attach_paste_over` and `attach_max_bytes` (the prompt's attachments)."""
        self._queued_attachments: dict[str, list[Attachment]] = {}
        """The files of prompts waiting in the queue, by their text."""
        self.engine = engine
        self.backend: ChatBackend | None = None
        """The engine's backend once this screen is plugged into it (`_connected`)."""
        self._clock = clock
        self._cursor_blink = cursor_blink
        self._reasoning = reasoning
        """How replies' reasoning is shown (the `[ui] reasoning` setting; see `ChatLog`)."""
        self._turn_lock = asyncio.Lock()
        self._engine_finishing: asyncio.Task[None] | None = None
        """The last turn's events after `TurnFinished`, read in the background: the engine's final writes."""
        self.busy = False
        self._waiting = False
        """The status bar says what the reply waits for (until its first text, tool call or end)."""
        self._turn_began = 0.0
        """When the running turn's events began (`clock`), for the notice of a long turn's end."""
        self._last_finished: AssistantMessageFinished | None = None
        """The turn's latest reply to reach its final status (retry and continue are offered for it)."""
        self._task_tree_mount: AwaitMount | None = None
        self._task_tree: TaskTree | None = None
        self._stop_watching_unsaved: Unsubscribe = lambda: None
        self.later = LaterWidgets(self)
        """The message cursor, the hover bar and the attachment strip (mounted after the first frame)."""

    def compose(self) -> ComposeResult:
        with Horizontal(id="main"):
            yield ChatLog(id="chat-log", reasoning=self._reasoning)
            yield ToolPanels(clock=self._clock, id="tool-panels")
        yield QueuedPrompts(id="queued")
        yield PromptInput(id="prompt", cursor_blink=self._cursor_blink, attach_limits=self._attach_limits)
        yield StatusBar(id="status")

    @cached_property
    def branches(self) -> Branches:
        """The conversation tree: `‹2/3›` marks, edit, regenerate, switch branch, fork (loaded when first used)."""
        from tui_agent.ui.branches import Branches

        return Branches(self)

    @property
    def turn_lock(self) -> asyncio.Lock:
        """Held while a turn (or a compaction) runs: prompts sent meanwhile are queued."""
        return self._turn_lock

    @property
    def idle(self) -> bool:
        """No turn is running or still draining its closing events, and no prompt waits to be sent."""
        return not self.busy and not self._turn_lock.locked() and not self.queued.prompts

    @cached_property
    def chat_log(self) -> ChatLog:
        """Looked up once (composed once): every streamed delta comes through here, and a query per delta
        was a third of the delta's cost in the UI."""
        return self.query_one(ChatLog)

    @property
    def tool_panels(self) -> ToolPanels:
        return self.query_one(ToolPanels)

    @property
    def prompt_input(self) -> PromptInput:
        return self.query_one(PromptInput)

    @property
    def queued(self) -> QueuedPrompts:
        return self.query_one(QueuedPrompts)

    @property
    def status_bar(self) -> StatusBar:
        return self.query_one(StatusBar)

    def _welcome(self) -> Welcome:
        from tui_agent.ui.widgets.welcome import KeyHint, Welcome

        app_bindings = type(self.app).BINDINGS
        keys = [KeyHint("enter", "send; shift+enter or ctrl+j for a new line")]
        keys += [
            KeyHint(self._key_in_force(bindings, binding), does)
            for bindings, binding, does in (
                (self.BINDINGS, "cancel_turn", "stop the reply"),
                (app_bindings, "command_palette", "commands: new session, model, theme, export…"),
                (self.BINDINGS, "sessions", "sessions: open, search, rename, fork"),
                (app_bindings, "help", "every key"),
            )
        ]
        offline = self.engine.endpoint == OFFLINE_LABEL
        return Welcome(model=self.engine.model, endpoint=self.engine.endpoint, offline=offline, keys=keys, id="welcome")

    def _key_in_force(self, bindings: Iterable[object], binding_id: str) -> str:
        """The key a binding has now: its `[keys]` override, else its own (without the key map module, which
        would cost the first frame ~25 ms)."""
        overrides: dict[str, str] = getattr(self.app, "key_overrides", {})
        if binding_id in overrides:
            return overrides[binding_id]
        return next((b.key for b in bindings if isinstance(b, Binding) and b.id == binding_id), "")

    @property
    def message_cursor(self) -> MessageCursor:
        return self.later.message_cursor

    def action_select_message(self) -> None:
        """Ctrl+Up: select the newest message (then up/down, e, r, c, y, f, left/right; Esc back)."""
        self.message_cursor.enter()

    def on_branch_marked_mark_wanted(self, event: BranchMarked.MarkWanted) -> None:
        self.branches.want(event.entry, event.message_id)

    def on_enter(self, event: Enter) -> None:
        """The pointer moved onto something: over a message, its hover bar of actions."""
        self.later.hover_bar.hover(event.node)

    def on_mount(self) -> None:
        self.call_after_refresh(self._after_first_frame)
        self.history: HistoryView = attach_history(
            self, self.engine, self.chat_log, self.tool_panels, on_loaded=self._show_loaded_session
        )
        self.watch(self.chat_log, "scroll_y", self.later.hide_hover_bar, init=False)
        self._show_status()
        if team := getattr(self.app, "team", None):  # `--team NAME`
            self.notify(f"Your prompts go to team {team} (Ctrl+P, Run a team: another, or none).")
        self.run_worker(self._connect(), group="engine", exit_on_error=False, description="connect to the engine")

    def _after_first_frame(self) -> None:
        self.later.mount()
        if self.engine.early_page is None:  # a resumed session's page is on its way: no welcome to flash before it
            # after the first frame: laying out the welcome made the first frame ~5% slower
            self.chat_log.show_welcome(self._welcome())

    async def _connect(self) -> None:
        with contextlib.suppress(EngineUnavailableError):  # the app's build worker reports it
            await self._connected()

    async def _connected(self) -> ChatBackend:
        """The engine's backend, this screen plugged into it once: unsaved state, task tree."""
        backend = await self.engine.engine()
        if self.backend is None:
            self.backend = backend
            self._stop_watching_unsaved = backend.watch_unsaved(self.status_bar.set_unsaved)
            backend.learn_context_windows()  # for the context gauge; the first turn waits for it
            follow_team(cast("TuiAgentApp", self.app), backend)  # `--team`, or the resumed session's team
            self._show_status()
        await self._add_task_tree()
        return backend

    def on_unmount(self) -> None:
        self._stop_watching_history()

    def _stop_watching_history(self) -> None:
        """The status bar no longer follows history's unsaved state (idempotent)."""
        self._stop_watching_unsaved()
        self._stop_watching_unsaved = lambda: None

    def _add_task_tree(self) -> AwaitMount:
        """The task tree (Ctrl+T) starts hidden and follows no turn yet, so it joins once the engine is there,
        before the first turn (it must see the turn from its first node)."""
        if self._task_tree_mount is None:
            from tui_agent.ui.widgets.task_tree import TaskTree

            assert self.backend is not None
            tree = self._task_tree = TaskTree(self.backend, clock=self._clock, id="task-tree")
            self._task_tree_mount = self.query_one("#main").mount(tree, after=self.chat_log)
        return self._task_tree_mount

    async def retire(self) -> None:
        """Stop and empty this screen for good (a fresh chat screen now covers it): no turn, no history
        paging, no task-tree subscription, no widgets left."""
        self.workers.cancel_node(self)
        self._stop_watching_history()
        await self.remove_children()

    def on_tool_panels_toggled(self) -> None:
        self.call_after_refresh(self.fit_toasts)  # the conversation's width changed: toasts stay over it

    def on_log_window_window_moved(self, event: LogWindow.WindowMoved) -> None:
        self.tool_panels.hide_calls_of(event.let_go)

    def on_tool_panel_open_session(self, event: ToolPanel.OpenSession) -> None:
        """`o` on a sub-agent's call: its session, read only (or opened as the current one)."""
        from tui_agent.ui.screens.sub_session import show_sub_session

        event.stop()
        self.run_worker(show_sub_session(self, event.panel), group="sub-session", exit_on_error=False)

    def on_task_tree_typed(self, event: TaskTree.Typed) -> None:
        """A key typed in the task tree: the prompt takes it, and the keys from then on."""
        self.prompt_input.focus()
        self.prompt_input.insert(event.character)

    def action_focus_tools(self) -> None:
        """F6: focus the newest tool panel (showing the column if hidden); from the column, back to the prompt."""
        panels = self.tool_panels.panels
        if isinstance(self.focused, ToolPanel):
            self.prompt_input.focus()
        elif not panels:
            self.notify("No tool calls yet.", timeout=3)
        else:
            self.tool_panels.unfold()
            panels[-1].focus()

    def fit_toasts(self) -> None:
        """Keep toasts over the conversation: the toast rack (docked at the top, toasts at its right, see
        app.tcss) is made as wide as the chat log, which the task tree and the tool column narrow."""
        width = self.chat_log.outer_size.width
        for rack in self.query(ToastRack):
            if width > 0:
                rack.styles.width = width

    def action_page_up(self) -> None:
        """Page back through the conversation (older pages load at the top, as with the mouse wheel)."""
        self.chat_log.scroll_page_up(animate=False)

    def action_page_down(self) -> None:
        self.chat_log.scroll_page_down(animate=False)

    def _show_loaded_session(self) -> None:
        """The session's history is shown: its title and the tokens it used before (it may be resumed)."""
        self._show_status()
        self.status_bar.set_usage(*(self.backend.session_usage if self.backend else self.history.early_usage))
        note, self._note = self._note, None
        if note is not None:
            self.chat_log.add_system(note)
        prompts, self._then_send = self._then_send, []
        self.send_prompts(prompts)

    def _show_status(self) -> None:
        self.status_bar.set_team(getattr(self.app, "team", None) or "")  # where the prompts go, before the agent
        if (backend := self.backend) is not None:
            self.status_bar.set_agent(backend.agent)
            self.status_bar.show(model=backend.model, endpoint=backend.endpoint, title=backend.session_title)
            self.status_bar.set_meter(backend.meter)
        else:  # what boot read, and the title of the early page, until the engine is there
            self.status_bar.show(model=self.engine.model, endpoint=self.engine.endpoint, title=self.history.early_title)

    def _set_busy(self, busy: bool) -> None:
        self.busy = busy
        self.status_bar.set_busy(busy)

    # -- intents ------------------------------------------------------------------------------------
    def on_prompt_input_submitted(self, event: PromptInput.Submitted) -> None:
        event.stop()
        if self.branches.editing is not None:
            self.branches.send_edit(event.text, event.attachments)
        elif self.busy or self._turn_lock.locked() or self.queued.prompts:
            self.queued.push(event.text)  # shown above the prompt, not under the reply still being written
            if event.attachments:
                self._queued_attachments[event.text] = event.attachments
        else:
            self._start_turn(event.text, event.attachments)

    def on_prompt_input_attachments_changed(self, event: PromptInput.AttachmentsChanged) -> None:
        self.later.attachment_chips.show(event.refs)

    def on_attachment_chips_removed(self, event: AttachmentChips.Removed) -> None:
        self.prompt_input.remove_attachment(event.index)
        self.prompt_input.focus()

    def send_prompts(self, prompts: Sequence[str]) -> None:
        """Send the first of `prompts` now (without compacting first) and queue the others."""
        if prompts:
            self._start_turn(prompts[0], compact=False)
        for prompt in prompts[1:]:
            self.queued.push(prompt)

    def action_compact(self) -> None:
        """Summarise the older turns into one message sent in their place (the palette's "Compact conversation")."""
        if not self.idle:
            self.notify("A reply is running: compact once it has finished.", severity="warning")
            return
        self.run_worker(compact_then_send(self, None), group="turn", exit_on_error=False, description="compact")

    def _start_turn(self, prompt: str, attachments: list[Attachment] | None = None, *, compact: bool = True) -> None:
        files = attachments or []
        full = self.backend is not None and self.backend.meter.needs_compaction
        if compact and full and not files:  # full: compact first (a prompt with files is sent as it is)
            self.run_worker(compact_then_send(self, prompt), group="turn", exit_on_error=False, description="compact")
            return
        self.chat_log.hide_actions()
        self.chat_log.add_user(prompt, [a.ref for a in files])
        self._set_busy(True)
        app = self.app  # its team: `--team`, "Run a team" in the palette, or the resumed session's (read once the
        # engine is there, which restores it)
        self.run_worker(
            self._run_turn(
                lambda backend: (
                    backend.run_team(team, prompt)
                    if (team := getattr(app, "team", None))
                    else (backend.send(prompt, files) if files else backend.send(prompt))
                )
            ),
            group="turn",
            exit_on_error=False,
            description="chat turn",
        )

    def action_retry_reply(self) -> None:
        """Ctrl+R: ask again for the last reply; the old one stays, dimmed, and the model no longer sees it."""
        self._redo(lambda backend: backend.retry())

    def action_continue_reply(self) -> None:
        """Ctrl+G: have the model go on with the last reply where it stopped: a new version of it, its text and
        the rest (the cut-off one is kept, on its own branch)."""
        self._redo(lambda backend: backend.continue_reply())

    def _redo(self, turn: TurnOf) -> None:
        if not self.idle:
            self.notify("A reply is running: press Esc to stop it first.", severity="warning")
            return
        self.start_branch_turn(turn)

    def start_branch_turn(self, turn: TurnOf) -> None:
        """Run a turn that is not a new prompt (retry, continue, edit, regenerate)."""
        self.chat_log.hide_actions()
        self.prompt_input.focus()  # a click on the link focused the log: typing goes to the prompt again
        self._set_busy(True)
        self.run_worker(self._run_turn(turn), group="turn", exit_on_error=False, description="chat turn")

    def action_cancel_turn(self) -> None:
        """Esc: on an empty prompt with a prompt queued, take the newest queued one back to edit; otherwise
        stop the reply."""
        prompt = self.prompt_input
        if self.branches.cancel_edit():
            return
        if not prompt.text and (waiting := self.queued.take_last()) is not None:
            prompt.load_text(waiting)
            prompt.set_attachments(self._queued_attachments.pop(waiting, []))
            prompt.move_cursor(prompt.document.end)
            return
        self.stop_reply()

    def stop_reply(self) -> None:
        """Stop the reply now; the backend's closing events arrive after and change nothing visible."""
        if not self.busy:
            return
        if self.backend is not None:
            self.backend.cancel()
        self.chat_log.interrupt_streaming()
        self.tool_panels.interrupt_open()
        self._set_busy(False)

    # -- the turn -----------------------------------------------------------------------------------
    async def _turn_events(self, turn: TurnOf) -> AsyncIterator[AgentEvent]:
        """The turn's events once the engine is there; a failed build ends the turn with its sentence."""
        try:
            backend = await self._connected()
        except EngineUnavailableError as error:
            from tui_agent.agent.events import TurnFinished  # loads with the engine, which did not

            yield TurnFinished(TurnEndReason.ERROR, error.user_message)
            return
        async for event in turn(backend):
            yield event

    async def _run_turn(self, turn: TurnOf) -> None:
        async with self._turn_lock:  # a cancelled turn may still be draining its last events
            if self._engine_finishing is not None:
                await self._engine_finishing
            self._set_busy(True)
            turn_events = self._turn_events(turn)
            # Everything that exists now (the log, history, the app) is long-lived: take it out of the
            # collector's full passes, which otherwise stall a streaming frame by tens of milliseconds.
            gc.freeze()
            try:
                self._last_finished = None
                self._turn_began = self._clock()
                turn_slice = time.perf_counter() + EVENT_SLICE
                async for event in turn_events:
                    self.render_event(event)
                    if _finishes(event):  # ready now; the engine's last writes go on (a long reply: ~40 ms)
                        self._engine_finishing = asyncio.create_task(_read_to_end(turn_events))
                        self._engine_finishing.add_done_callback(self._engine_finished)
                        break
                    if time.perf_counter() > turn_slice:  # events already queued come without a pause:
                        await asyncio.sleep(0)  # let keys and frames in between
                        turn_slice = time.perf_counter() + EVENT_SLICE
            except Exception as error:  # the backend reports failures as events; anything else lands here
                self.chat_log.add_error(user_message(error))
            finally:
                self.chat_log.close_open()
                self._set_busy(False)
                self._show_status()
        if (waiting := self.queued.take_first()) is not None:  # the lock is free: the next turn may start
            self._start_turn(waiting, self._queued_attachments.pop(waiting, None))

    def _engine_finished(self, _: asyncio.Task[None]) -> None:
        """The turn's last writes are done: the status line shows what they changed (a regeneration's own
        model is given back only then; the line said that model until the next turn)."""
        if self.is_attached and self.query(StatusBar):  # a screen retired meanwhile has no status line
            self._show_status()


def _finishes(event: AgentEvent) -> bool:
    from tui_agent.agent.events import TurnFinished  # loaded by the engine before any event exists

    return isinstance(event, TurnFinished)


async def _read_to_end(events: AsyncIterator[AgentEvent]) -> None:
    """What is left of a turn's events after `TurnFinished`: none, but reading to the end lets the engine
    commit the turn's final writes and take the next turn (a new turn waits for this first)."""
    with contextlib.suppress(Exception):  # the turn's end is shown; history reports its own failures
        async for _ in events:
            pass
