"""Provides `ChatScreen`: the conversation (left), tool panels (right), prompt and status line (bottom).

It sends intents to the engine's `ChatBackend` (send, cancel, retry and continue the last reply), awaited
from the app's `EngineSlot`, and shows the `AgentEvent`s a turn yields, in a worker (`TurnRunner` runs the turns,
`TurnView` puts each event where it goes); it knows nothing of the agent beyond those events.
Until the engine is built the status bar shows what boot read.
A prompt sent while a turn runs waits in `QueuedPrompts` above the prompt and is sent when the turn ends.
Ctrl+Up selects a message (`MessageCursor`, or the `HoverBar` under the pointer) to edit, regenerate, copy,
fork or switch version; `Branches` sends those through the port and keeps the log and tool column in step.
The cursor, the hover bar, the attachment strip and the welcome join after the first frame (`LaterWidgets`).
"""

from __future__ import annotations

import contextlib
import time
from functools import cached_property
from typing import TYPE_CHECKING, NamedTuple, cast

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.events import Enter, Resize
from textual.widget import AwaitMount

from tui_agent.agent.endpoint import OFFLINE_LABEL
from tui_agent.agent.port import ChatBackend
from tui_agent.config_fields import settings_of
from tui_agent.errors import EngineUnavailableError
from tui_agent.ui.engine import EngineSlot
from tui_agent.ui.history_view import HistoryView, attach_history
from tui_agent.ui.mode_words import describe_mode
from tui_agent.ui.screens.chat_columns import SideColumns
from tui_agent.ui.screens.chat_later import LaterWidgets
from tui_agent.ui.screens.chat_slash import SlashPrompts
from tui_agent.ui.screens.chat_turns import TurnRunner, Unsent
from tui_agent.ui.screens.reporting import ReportingScreen
from tui_agent.ui.screens.turn_view import TurnView
from tui_agent.ui.team_choice import follow_team
from tui_agent.ui.team_pause import pause_team
from tui_agent.ui.textual_private import ToastRack
from tui_agent.ui.widgets.chat_log import ChatLog
from tui_agent.ui.widgets.log_window import LogWindow
from tui_agent.ui.widgets.prompt import AttachLimits, PromptInput
from tui_agent.ui.widgets.queued import QueuedPrompts
from tui_agent.ui.widgets.status_bar import StatusBar
from tui_agent.ui.widgets.tool_panel import Clock, ToolPanel, ToolPanels

if TYPE_CHECKING:  # the events load with the engine, after the first paint
    from collections.abc import Iterable, Sequence

    from tui_agent.agent.records import Attachment, AttachmentRef
    from tui_agent.agent.tree import Unsubscribe
    from tui_agent.ui.screens.chat_branches import Branches
    from tui_agent.ui.screens.chat_rewind import Rewinds
    from tui_agent.ui.team_choice import TeamApp
    from tui_agent.ui.widgets.attachment_chips import AttachmentChips
    from tui_agent.ui.widgets.branch_mark import BranchMark
    from tui_agent.ui.widgets.message_cursor import MessageCursor
    from tui_agent.ui.widgets.messages import MarkedMessage
    from tui_agent.ui.widgets.task_tree import TaskTree
    from tui_agent.ui.widgets.welcome import Welcome


class ChatSettings(NamedTuple):
    """What every chat screen of a run is built with besides the run's settings, which it reads from the app
    (`settings_of`): the app's clock and cursor blink (tests fix them). The app makes them once; a screen drawn
    in place of another (new session, fork, an opened session, compaction) takes the one before's."""

    clock: Clock = time.monotonic
    cursor_blink: bool = True


class ChatScreen(ReportingScreen[None]):
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
    BINDINGS += [  # the palette's commands a person reaches for often; keys no terminal or prompt key takes
        Binding("ctrl+n", "app.new_session", "New session", id="new_session"),  # as on the session screen
        Binding("f9", "compact", "Compact the conversation", id="compact"),
    ]
    BINDINGS += [  # with priority: over focus-previous, as Claude Code takes it
        Binding("shift+tab", "cycle_mode", "Permission mode (cycle)", priority=True, id="cycle_mode"),
    ]
    BINDINGS += [Binding("f8", "pause_team", "Pause the team for your message", show=False, id="pause_team")]

    def __init__(
        self,
        engine: EngineSlot,
        settings: ChatSettings | None = None,
        *,
        note: str | None = None,
        then_send: Sequence[str] = (),
        unsent: Unsent | None = None,
        at: str | None = None,
    ) -> None:
        """`note` and `then_send`: a line to add once the history is shown, and prompts to send then (a screen
        drawn again after a compaction); `unsent`: what the screen before held unsent, put in the prompt box;
        `at`: a message the history is shown from, marked, instead of its end (a search hit opened)."""
        super().__init__()
        self._note, self._then_send, self._at = note, list(then_send), at
        self._unsent = unsent
        self.settings = settings or ChatSettings()
        self.engine = engine
        self.backend: ChatBackend | None = None
        """The engine's backend once this screen is plugged into it (`connected`)."""
        self._clock = self.settings.clock
        self._task_tree_mount: AwaitMount | None = None
        self.task_tree: TaskTree | None = None
        self.turn_view = TurnView(self, self._clock)
        self.turns = TurnRunner(self, self.turn_view)
        self.slash = SlashPrompts(self)
        """What a prompt starting with `/` does: a built-in command, the run's own, or text with a notice."""
        self._stop_watching_unsaved: Unsubscribe = lambda: None
        self._stop_watching_mcp: Unsubscribe = lambda: None
        self.later = LaterWidgets(self, self.slash.catalogue)
        """The message cursor, the hover bar, the attachment strip and the `/` menu (mounted after the first frame)."""
        self.columns = SideColumns(self)
        """Folds the tool column and the task tree away on a narrow screen."""
        self.retired = False
        """Replaced for good by a fresh chat screen, and removed (`on_unmount`): nothing is shown here any more."""

    def compose(self) -> ComposeResult:
        ui = settings_of(self.app).ui
        with Horizontal(id="main"):
            yield ChatLog(id="chat-log", reasoning=ui.reasoning)
            yield ToolPanels(clock=self._clock, id="tool-panels")
        yield QueuedPrompts(id="queued")
        yield PromptInput(
            id="prompt",
            cursor_blink=self.settings.cursor_blink,
            attach_limits=AttachLimits(ui.attach_paste_over, ui.attach_max_bytes),
            files_in_history=self._files_in_history,
            mcp_resources=lambda: self.engine.ready.mcp_servers if self.engine.ready is not None else None,
        )
        yield StatusBar(id="status")

    @cached_property
    def branches(self) -> Branches:
        """The conversation tree: `‹2/3›` marks, edit, regenerate, switch branch, fork (loaded when first used)."""
        from tui_agent.ui.screens.chat_branches import Branches  # deferred: after the first frame (test_import_hygiene)

        return Branches(self)

    @cached_property
    def rewinds(self) -> Rewinds:
        """The files the tree carries: rewind to here, the files offered along on a switch, undo (loaded when
        first used)."""
        from tui_agent.ui.screens.chat_rewind import Rewinds  # deferred: after the first frame (test_import_hygiene)

        return Rewinds(self)

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
        # deferred: after the first frame (test_import_hygiene)
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

    # -- its turns: `TurnRunner` runs them; the keys and the prompt box's messages come to the screen ----------
    @property
    def busy(self) -> bool:
        """A turn is running: Esc stops it."""
        return self.turns.busy

    @property
    def idle(self) -> bool:
        """No turn is running or still draining its closing events, and no prompt waits to be sent."""
        return self.turns.idle

    def take_unsent(self) -> Unsent:
        """What was written here and not sent, taken out (see `TurnRunner.take_unsent`)."""
        return self.turns.take_unsent()

    def on_prompt_input_submitted(self, event: PromptInput.Submitted) -> None:
        if not self.slash.submitted(event):
            self.turns.submitted(event)

    def action_cycle_mode(self) -> None:
        """Step to the next permission mode (ask → auto-edit → auto → plan → read-only), said in a notice."""
        if self.backend is None:
            self.notify("The permission mode can change once the engine has started.")
            return
        mode, skipped = self.backend.permissions.cycle()
        self.status_bar.set_mode(mode)
        self.notify(describe_mode(mode) + (f" (auto skipped: {skipped})" if skipped else ""), title="Permission mode")

    def offer_plan(self) -> None:
        """In plan mode, after a reply: its plan (a checklist) to edit and approve; approving switches to the
        mode chosen and sends the plan as the work to do. A reply with no checklist offers nothing."""
        backend = self.backend
        if backend is None or backend.permissions.mode != "plan" or not self.chat_log.assistant_messages:
            return
        from tui_agent.agent.plan import checklist, plan_steps, work_prompt  # deferred: with plan mode's first plan
        from tui_agent.ui.screens.plan import PlanApproval, PlanScreen  # deferred: with plan mode's first plan

        steps = plan_steps(self.chat_log.assistant_messages[-1].text)  # the markdown, not as drawn
        if not steps:
            return

        def approved(approval: PlanApproval | None) -> None:
            if approval is None:
                self.notify("Still in plan mode: ask for changes to the plan, or Shift+Tab to leave it.")
                return
            reason = backend.permissions.switch(approval.mode)
            self.status_bar.set_mode(backend.permissions.mode)
            if reason is not None:
                self.notify(f"{reason}; the work runs in {backend.permissions.mode} mode.", severity="warning")
            self.turns.send_prompts([work_prompt(approval.steps)])

        self.app.push_screen(PlanScreen(checklist(steps)), callback=approved)

    def action_compact(self) -> None:
        """Summarise the older turns into one message sent in their place (the palette's "Compact conversation")."""
        self.turns.compact()

    def action_retry_reply(self) -> None:
        """Ctrl+R: ask again for the last reply; the old one stays, dimmed, and the model no longer sees it."""
        self.turns.retry()

    def action_continue_reply(self) -> None:
        """Ctrl+G: have the model go on with the last reply where it stopped (a new version of it)."""
        self.turns.continue_reply()

    def action_pause_team(self) -> None:
        """F8: the team working now lets the person speak after its current member (`ui/team_pause.py`)."""
        pause_team(self.backend, self.notify)

    def action_cancel_turn(self) -> None:
        """Esc: take the newest queued prompt back to edit (on an empty prompt), else stop the reply."""
        self.turns.cancel()

    def on_branch_mark_wanted(self, event: BranchMark.Wanted) -> None:
        self.branches.want(cast("MarkedMessage", event.entry), event.message_id)  # only they post it

    def on_enter(self, event: Enter) -> None:
        """The pointer moved onto something: over a message, its hover bar of actions."""
        self.later.hover_bar.hover(event.node)

    def on_mount(self) -> None:
        self.call_after_refresh(self._after_first_frame)
        self.history: HistoryView = attach_history(
            self, self.engine, self.chat_log, self.tool_panels, on_loaded=self._show_loaded_session, at=self._at
        )
        self.watch(self.chat_log, "scroll_y", self.later.hide_hover_bar, init=False)
        self.show_status()
        self.columns.fit(self.app.size.width)
        self._take_over(self._unsent)
        if team := getattr(self.app, "team", None):  # `--team NAME`
            self.notify(f"Your prompts go to team {team} (Ctrl+P, Run a team: another, or none).")
        self.run_worker(self._connect(), group="engine", exit_on_error=False, description="connect to the engine")

    def _take_over(self, unsent: Unsent | None) -> None:
        """The prompts the screen before held unsent (queued, or in its box) wait in this prompt box, to send or
        edit: they were meant for the conversation that screen showed, so none is sent here unasked."""
        if unsent is None or not (unsent.text or unsent.attachments):
            return
        box = self.prompt_input
        box.load_text(unsent.text)
        box.set_attachments(unsent.attachments)
        box.move_cursor(box.document.end)
        if count := unsent.waiting:
            what, where = (
                ("A prompt that waited was", "It is")
                if count == 1
                else (f"{count} prompts that waited were", "They are")
            )
            notice = f"{what} not sent: the conversation changed. {where} in the prompt box, to send or edit."
            # after the switch to this screen: raised during it, the notice was lost
            self.call_after_refresh(self.notify, notice, severity="warning", timeout=10, markup=False)

    def _after_first_frame(self) -> None:
        self.later.mount()
        if self.engine.early_page is None:  # a resumed session's page is on its way: no welcome to flash before it
            # after the first frame: laying out the welcome made the first frame ~5% slower
            self.chat_log.show_welcome(self._welcome())

    async def _connect(self) -> None:
        with contextlib.suppress(EngineUnavailableError):  # the app's build worker reports it
            await self.connected()

    async def connected(self) -> ChatBackend:
        """The engine's backend, this screen plugged into it once: unsaved state, task tree."""
        backend = await self.engine.engine()
        if self.backend is None:
            self.backend = backend
            self._stop_watching_unsaved = backend.watch_unsaved(self.status_bar.set_unsaved)
            self._watch_mcp_servers()
            # for the context gauge (the first turn waits for it); a resumed session's shows its window at once
            backend.learn_context_windows().add_done_callback(self._show_gauge)
            follow_team(cast("TeamApp", self.app), backend)  # `--team`, or the resumed session's team
            self.show_status()
        await self._add_task_tree()
        return backend

    async def _files_in_history(self, refs: list[AttachmentRef]) -> list[Attachment]:
        """An earlier prompt's files, read back for Up in the prompt."""
        return await (await self.connected()).stored_attachments(refs)

    def _show_gauge(self, _: object) -> None:
        if self.is_attached and not self.retired and self.backend is not None:
            self.status_bar.set_meter(self.backend.meter)

    def on_unmount(self) -> None:
        """Replaced for good (a new, opened or forked session, a compaction): Textual removes the screen, its
        timers and workers with it; what runs outside it (the engine's callbacks) finds it retired."""
        self.retired = True
        if "branches" in self.__dict__:  # its marks are asked for on a timer, which would find no widgets
            self.branches.stop()
        self._stop_watching_history()
        self._stop_watching_mcp()
        self._stop_watching_mcp = lambda: None

    def _watch_mcp_servers(self) -> None:
        """The status bar names the MCP servers still starting (a prompt meanwhile goes without their tools)."""
        engine = self.engine.ready
        servers = engine.mcp_servers if engine is not None else None
        if servers is not None:
            self._stop_watching_mcp = servers.watch_starting(self.status_bar.set_starting)

    def _stop_watching_history(self) -> None:
        """The status bar no longer follows history's unsaved state (idempotent)."""
        self._stop_watching_unsaved()
        self._stop_watching_unsaved = lambda: None

    def _add_task_tree(self) -> AwaitMount:
        """The task tree (Ctrl+T) starts hidden and follows no turn yet, so it joins once the engine is there,
        before the first turn (it must see the turn from its first node)."""
        if self._task_tree_mount is None:
            from tui_agent.ui.widgets.task_tree import TaskTree  # deferred: after the first frame (test_import_hygiene)

            assert self.backend is not None
            tree = self.task_tree = TaskTree(self.backend, clock=self._clock, id="task-tree")
            self._task_tree_mount = self.query_one("#main").mount(tree, after=self.chat_log)
        return self._task_tree_mount

    def on_resize(self, event: Resize) -> None:
        self.columns.fit(event.size.width)

    def on_task_tree_toggled(self) -> None:
        self.columns.fit(self.size.width)  # the tool column makes room for the tree, or comes back

    def on_tool_panels_toggled(self) -> None:
        self.call_after_refresh(self.fit_toasts)  # the conversation's width changed: toasts stay over it

    def on_log_window_window_moved(self, event: LogWindow.WindowMoved) -> None:
        self.tool_panels.hide_calls_of(event.let_go)

    def on_tool_panel_open_session(self, event: ToolPanel.OpenSession) -> None:
        """`o` on a sub-agent's call: its session, read only (or opened as the current one)."""
        # deferred: history's records, with the first sub-agent session shown
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

    def on_screen_suspend(self) -> None:
        """A dialog on top shows the notices in its own rack, elsewhere (see `fit_toasts`): not twice."""
        for rack in self.query(ToastRack):
            rack.display = False

    def on_screen_resume(self) -> None:
        for rack in self.query(ToastRack):
            rack.display = True

    def action_page_up(self) -> None:
        """Page back through the conversation (older pages load at the top, as with the mouse wheel)."""
        self.chat_log.scroll_page_up(animate=False)

    def action_page_down(self) -> None:
        self.chat_log.scroll_page_down(animate=False)

    def _show_loaded_session(self) -> None:
        """The session's history is shown: its title and the tokens it used before (it may be resumed)."""
        self.show_status()
        self.status_bar.set_usage(*(self.backend.session_usage if self.backend else self.history.early_usage))
        note, self._note = self._note, None
        if note is not None:
            self.chat_log.add_system(note)
        prompts, self._then_send = self._then_send, []
        self.turns.send_prompts(prompts)

    def show_status(self) -> None:
        self.status_bar.set_team(getattr(self.app, "team", None) or "")  # where the prompts go, before the agent
        if (backend := self.backend) is not None:
            self.status_bar.set_agent(backend.agent)
            self.status_bar.show(model=backend.model, endpoint=backend.endpoint, title=backend.session_title)
            self.status_bar.set_meter(backend.meter)
            self.status_bar.set_mode(backend.permissions.mode)
            self.status_bar.set_sandboxed(backend.permissions.sandbox_ready() is None)
        else:  # what boot read, and the title of the early page, until the engine is there
            self.status_bar.show(model=self.engine.model, endpoint=self.engine.endpoint, title=self.history.early_title)

    def on_prompt_input_attachments_changed(self, event: PromptInput.AttachmentsChanged) -> None:
        self.later.attachment_chips.show(event.refs)

    def on_attachment_chips_removed(self, event: AttachmentChips.Removed) -> None:
        self.prompt_input.remove_attachment(event.index)
        self.prompt_input.focus()
