"""Provides `TuiAgentApp`: the Textual application around the engine's `ChatBackend`, with tui-agent's themes.

The app is given the engine, or how to build it (`tui_agent.boot.build_engine`), which it runs in a worker
once its first frame is out; screens `await app.engine()`. It registers the shipped and user themes,
reports theme files it skipped and the engine's notices in notifications, runs the chat screen, and is the
one place a failed worker is reported (`on_worker_failed`): no failure vanishes silently.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from textual import on
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.message import Message
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from tui_agent.agent.endpoint import NO_ENDPOINT
from tui_agent.agent.port import ChatBackend, EarlyPage, Engine
from tui_agent.config_fields import DEFAULTS, RunFields
from tui_agent.errors import user_message
from tui_agent.sanitize import sanitize
from tui_agent.terminal import OutputLog
from tui_agent.ui.citations import Citation
from tui_agent.ui.command_wanted import BuiltinCommandWanted
from tui_agent.ui.engine import EngineBuild, EngineSlot
from tui_agent.ui.fresh_chat import FreshChatWanted
from tui_agent.ui.input_first import note_input
from tui_agent.ui.screens.chat import ChatScreen, ChatSettings
from tui_agent.ui.textual_private import frames_on_the_next_tick, inner_outer_by_colours, stop_input_without_waiting
from tui_agent.ui.themes import APP_VARIABLE_DEFAULTS, DEFAULT_THEME, ThemeStart
from tui_agent.ui.turn_notice import TurnNotice
from tui_agent.ui.widgets.tool_panel import Clock, ToolPanels

if TYPE_CHECKING:  # loads with the first Ctrl+C
    from rich.console import RenderableType

    from tui_agent.agent.records import Answer, Question, SamplingRequest, Verdict
    from tui_agent.ui.ctrl_c import CtrlC

Given = TypeVar("Given")
"""What a dialog answers with (`answer_of`)."""
ERROR_TIMEOUT = 30.0
"""Seconds an error notification stays up unless clicked away (information: Textual's few seconds)."""
ENGINE_START_DELAY = 0.05
"""Seconds after Ready before the engine's build starts: the first frame is out by then."""
STRAY_OUTPUT_CHECK = 1.0
"""Seconds between looks at the output log (a `stat`), until something has been written there."""


class TuiAgentApp(App[None]):
    """tui-agent's terminal UI."""

    TITLE = "tui-agent"
    CSS_PATH = "app.tcss"
    ENABLE_COMMAND_PALETTE = True
    BINDINGS = [Binding("ctrl+q", "quit", "Quit", priority=True, id="quit")]
    BINDINGS += [  # replaces Textual's ctrl+c bindings (copy in inputs and screens, "press ctrl+q" hint)
        Binding("ctrl+c", "interrupt", "Copy / stop reply / quit (x2)", priority=True, id="interrupt"),
    ]
    BINDINGS += [
        Binding("ctrl+t", "toggle_task_tree", "Task tree", priority=True, id="toggle_task_tree"),
        Binding("ctrl+b", "toggle_tool_panel", "Tool panel", priority=True, id="toggle_tool_panel"),
    ]
    BINDINGS += [
        Binding("f1", "help", "Help", priority=True, id="help"),
        Binding(
            App.COMMAND_PALETTE_BINDING,
            "command_palette",
            "Command palette",
            show=False,
            priority=True,
            id="command_palette",
        ),
    ]

    def __init__(
        self,
        engine: Engine | EngineBuild,
        *,
        model: str = "",
        endpoint: str = "",
        early_page: EarlyPage | None = None,
        settings: RunFields = DEFAULTS,
        theme_dirs: Iterable[Path] = (),
        clock: Clock = time.monotonic,
        cursor_blink: bool = True,
        output_log: OutputLog | None = None,
        team: str | None = None,
    ) -> None:
        super().__init__()
        frames_on_the_next_tick()  # a key pressed just after a frame is painted on the next tick, not the one after
        inner_outer_by_colours()  # a removed widget's rendered lines are freed (Textual's cache kept them)
        self.team = team
        """The team the prompts go to (`--team`, "Run a team" in the palette, or the resumed session's); None: the
        session's agent. It follows the session's choice (`tui_agent.ui.team_choice`)."""
        self.team_followed = False
        """Whether a chat screen met the engine yet (the first one makes `--team` the session's choice)."""
        self.engine_slot = EngineSlot(engine, model=model, endpoint=endpoint, early_page=early_page)
        """The engine, built after the first frame (`model`/`endpoint`: what the status bar shows until then)."""
        self._build_worker: Worker[Engine] | None = None
        self._output_log = output_log
        self._clock = clock
        self.settings = settings
        """The run's settings, one object read where used (`tui_agent.config_fields.settings_of`): what boot
        read for the first frame (the validated `Settings` is one too)."""
        self.chat_settings = ChatSettings(clock, cursor_blink)
        """What its chat screens are built with (a fresh one takes its predecessor's: `ChatScreen.settings`)."""
        self._engine_closed = False
        self._startup_notices: list[str] = []
        self._ctrl_c: CtrlC | None = None
        self.key_overrides: dict[str, str] = {}
        """The keymap in force: binding id -> keys, from the config's `[keys]` table (F1 shows it)."""
        self._themes = ThemeStart(self, theme_dirs)
        self._startup_notices.extend(self._themes.start(settings.theme or DEFAULT_THEME))
        if settings.keys:  # without overrides the bindings stand as declared (and the key module loads with F1)
            self._apply_keys(settings.keys)

    @property
    def turn_notice(self) -> TurnNotice:
        """How a long turn's end is announced while the terminal is not focused (`[ui] notify`, `notify_after`)."""
        return TurnNotice(self.settings.ui.notify, self.settings.ui.notify_after)

    def _apply_keys(self, keys: Mapping[str, str]) -> None:
        """The config's `[keys]` overrides become the keymap; unknown action names are reported once."""
        from tui_agent.ui.key_overrides import key_overrides  # deferred: ~25 ms, only with [keys]

        self.key_overrides, problem = key_overrides(self, keys)
        self.set_keymap(self.key_overrides)
        if problem is not None:
            self._startup_notices.append(problem)

    def post_message(self, message: Message) -> bool:
        note_input(self, message)  # a key on its way to the screen: a streaming reply's next batch waits for it
        return super().post_message(message)

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Textual's notification, except that an error stays up until read (or clicked away)."""
        if severity == "error":
            timeout = max(timeout or 0.0, ERROR_TIMEOUT)
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)
        screen = self.screen_stack[-1] if self.screen_stack else None  # none while the app shuts down
        if isinstance(screen, ChatScreen):
            self.call_after_refresh(screen.fit_toasts)

    async def engine(self) -> ChatBackend:
        """The engine's backend once it is built; raises `EngineUnavailableError` saying why it could not be."""
        return await self.engine_slot.engine()

    @property
    def alarms(self) -> list[str]:
        """The engine's notices worth repeating after the app has gone (none when it was never built)."""
        return self.engine_slot.ready.alarms if self.engine_slot.ready is not None else []

    def show_notice(self, notice: str) -> None:
        """A notice from the engine as it starts: who answers when no endpoint is set (the offline model, or OpenAI
        for a key alone) is a line in the conversation (the status bar names the model too); anything else is a
        notification."""
        if notice.startswith(NO_ENDPOINT) and isinstance(self.screen, ChatScreen):
            self.screen.chat_log.add_run_line(notice)
        else:  # it may quote a plugin, an MCP server's stderr or a file name: no escapes reach the terminal
            self.notify(sanitize(notice), timeout=8, markup=False)

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(APP_VARIABLE_DEFAULTS)

    def get_default_screen(self) -> Screen[Any]:
        """The chat screen is the app's base screen, so the first frame draws it (a screen pushed over an
        empty default one is drawn inside Textual's start-up batch, where the frame is dropped, and then
        only a frame later: ~12 ms more to the first frame)."""
        return ChatScreen(self.engine_slot, self.chat_settings)

    def on_mount(self) -> None:
        for notice in self._startup_notices:  # plain text: "[keys]" and paths are not markup
            self.notify(notice, severity="warning", timeout=10, markup=False)
        if self.engine_slot.ready is not None:  # given ready-made: said once the chat screen is up
            self.call_after_refresh(self._engine_built, self.engine_slot.ready)

    def on_ready(self) -> None:
        # Ready comes just before the first frame reaches the terminal (the driver's size event draws it).
        # The engine's build imports in a thread that would take the GIL from that frame, so it waits.
        self.set_timer(ENGINE_START_DELAY, self._after_first_frame)
        if self._output_log is not None:
            self._stray_output_timer = self.set_interval(STRAY_OUTPUT_CHECK, self._check_stray_output)

    def _check_stray_output(self) -> None:
        """Say once where output that bypassed the UI (fds 1 and 2: tools, plugins, child processes) went."""
        if self._output_log is not None and self._output_log.has_new_output():
            self._stray_output_timer.stop()
            self.notify(
                f"A tool or plugin wrote to the terminal; that output is in {self._output_log.path}",
                severity="warning",
                timeout=15,
            )

    def _after_first_frame(self) -> None:
        if self.engine_slot.needs_build:
            self._build_worker = self.run_worker(
                self._build_engine, group="engine", exit_on_error=False, description="build the engine"
            )
        self.register_every_theme()

    def register_every_theme(self) -> None:
        """Read every theme file now, if the first frame's work has not yet (once): the theme picker, opened
        before it on a slow machine, listed Textual's themes alone."""
        for problem in self._themes.finish():
            self.notify(problem, severity="warning", timeout=10, markup=False)

    async def _build_engine(self) -> Engine:
        engine = await self.engine_slot.build()
        self._engine_built(engine)
        return engine

    def _engine_built(self, engine: Engine) -> None:
        """Say what the engine had to say as it started, and whatever it says from now on."""
        for notice in engine.notices:
            self.show_notice(notice)
        engine.backend.watch_notices(self.show_notice)
        if engine.mcp_servers is not None:
            engine.mcp_servers.asker = self.ask_mcp_question
            engine.mcp_servers.sampling.approver = self.ask_mcp_sampling
            engine.mcp_servers.allow_sign_ins()  # someone is here to open a sign-in's address

    async def ask_mcp_question(self, question: Question) -> Answer:
        """Put an MCP server's request for input to the user (a form, or a page to visit); a call that ends
        first (cancelled) takes the form away."""
        from tui_agent.agent.records import Answer  # deferred: with the first question
        from tui_agent.ui.screens.elicitation import ElicitationScreen  # deferred: with the first question

        return await self.answer_of(ElicitationScreen(question), Answer("cancel"))

    async def ask_mcp_sampling(self, request: SamplingRequest) -> Verdict:
        """Show an MCP server's sampling request and wait for the user's verdict (a call that ends first takes
        the dialog away)."""
        from tui_agent.ui.screens.sampling import SamplingScreen  # deferred: with the first sampling request

        return await self.answer_of(SamplingScreen(request), "deny")

    async def answer_of(self, modal: Screen[Given], unanswered: Given) -> Given:
        """Show `modal` and wait for its answer (`unanswered`: closed without one); a call that ends first
        (cancelled) takes the dialog away."""
        answer: asyncio.Future[Given] = asyncio.get_running_loop().create_future()

        def answered(given: Given | None) -> None:
            if not answer.done():
                answer.set_result(unanswered if given is None else given)

        self.push_screen(modal, callback=answered)
        try:
            return await answer
        except asyncio.CancelledError:
            if self.screen is modal:
                self.pop_screen()
            raise

    @on(Worker.StateChanged)
    def on_worker_failed(self, event: Worker.StateChanged) -> None:
        """Every worker of the app that fails (they are all `exit_on_error=False`) is said in one notification."""
        if event.state is WorkerState.ERROR and event.worker.error is not None:
            self.notify(user_message(event.worker.error), severity="error", markup=False)

    def action_toggle_task_tree(self) -> None:
        """Show or hide the current turn's task tree (Ctrl+T); hiding it gives the prompt back its focus."""
        from tui_agent.ui.widgets.task_tree import TaskTree  # deferred: after-paint (~12 ms with the events)

        for tree in self.screen.query(TaskTree):
            tree.toggle()
            if not tree.display:
                self.screen.query("#prompt").focus()

    def action_toggle_tool_panel(self) -> None:
        """Show or hide the tool panel on the right (Ctrl+B)."""
        for panels in self.screen.query(ToolPanels):
            panels.toggle()

    @on(FreshChatWanted)
    def fresh_chat_wanted(self, wanted: FreshChatWanted) -> None:
        """A chat screen's controller asked for the current session in a fresh chat screen."""
        from tui_agent.ui.screens.sessions import show_fresh_chat  # deferred: history's records (~9 ms), after paint

        show_fresh_chat(self, note=wanted.note, then_send=wanted.then_send)

    @on(BuiltinCommandWanted)
    def builtin_command_wanted(self, wanted: BuiltinCommandWanted) -> None:
        """A built-in `/` command typed in the prompt: its palette action (`ui/slash_builtins.py`)."""
        # deferred: loads pydantic (~55 ms): not before the first frame
        from tui_agent.ui.slash_builtins import run_builtin

        run_builtin(self, wanted.name, wanted.arguments)

    def action_sessions(self) -> None:
        """Open the session screen (Ctrl+S): list, filter, open, rename, fork, delete."""
        from tui_agent.ui.session_actions import open_sessions  # deferred: after-paint: history's records (~9 ms)

        self.run_worker(open_sessions(self), group="sessions", exclusive=True, exit_on_error=False)

    def action_new_session(self) -> None:
        """Start a new, empty session in a fresh chat screen."""
        from tui_agent.ui.session_actions import start_new_session  # deferred: after-paint: history's records (~9 ms)

        self.run_worker(start_new_session(self), group="sessions", exclusive=True, exit_on_error=False)

    def action_export_session(self) -> None:
        """Ask where (and as Markdown or JSON), then write the current session there and say so."""
        from tui_agent.ui.session_actions import ask_export  # deferred: after-paint: history's records (~9 ms)

        self.run_worker(ask_export(self), group="export", exit_on_error=False)

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """The command palette (Ctrl+P): tui-agent's commands, then Textual's."""
        # deferred: loads pydantic (~55 ms): not before the first frame
        from tui_agent.ui.commands import palette_commands

        yield from palette_commands(self, super().get_system_commands(screen))

    async def action_switch_model(self) -> None:
        """Pick another of the endpoint's models; the conversation is kept."""
        from tui_agent.ui.commands import switch_model  # deferred: loads pydantic (~55 ms): not before the first frame

        await switch_model(self)

    async def action_run_team(self) -> None:
        """Pick a team for the next prompts (or none: back to one agent)."""
        from tui_agent.ui.commands import pick_team  # deferred: loads pydantic (~55 ms): not before the first frame

        await pick_team(self)

    def action_pick_theme(self) -> None:
        """Pick a theme; the choice is saved in the config file."""
        from tui_agent.ui.commands import pick_theme  # deferred: loads pydantic (~55 ms): not before the first frame

        pick_theme(self)

    def action_change_theme(self) -> None:
        self.action_pick_theme()  # Textual's theme action, but saving the choice

    def action_copy_last_reply(self) -> None:
        """Copy the last reply's markdown to the clipboard."""
        # deferred: loads pydantic (~55 ms): not before the first frame
        from tui_agent.ui.commands import copy_last_reply

        copy_last_reply(self)

    def action_open_passage(self, path: str, first: int, last: int) -> None:
        """Show lines `first`..`last` of the file at `path` (a citation in a reply, clicked)."""
        from tui_agent.ui.screens.passage import PassageScreen  # deferred: loaded when a passage is first opened

        self.push_screen(PassageScreen([Citation(path, first, last)]))

    def action_show_config_path(self) -> None:
        """Say where the config file is."""
        # deferred: loads pydantic (~55 ms): not before the first frame
        from tui_agent.ui.commands import show_config_path

        show_config_path(self)

    def action_mcp_servers(self) -> None:
        """Show the MCP servers (state, restart, log, on/off for this run)."""
        engine = self.engine_slot.ready
        servers = engine.mcp_servers if engine is not None else None
        if servers is None or not servers.servers:
            self.notify(
                "No MCP servers are configured: add a [mcp_servers.NAME] table to the config file "
                "(see docs/extending.md), or wait a moment if tui-agent is still starting."
            )
            return
        from tui_agent.ui.screens.mcp import McpScreen  # deferred: after-paint: the MCP screen's widgets

        self.push_screen(McpScreen(servers))

    def action_help(self) -> None:
        """Show every key binding (F1); Esc or F1 again closes it."""
        from tui_agent.ui.screens.help import HelpScreen  # deferred: after-paint: every screen's bindings (~23 ms)

        if isinstance(self.screen, HelpScreen):
            self.screen.dismiss(None)
        else:
            self.push_screen(HelpScreen(self.key_overrides))

    async def action_interrupt(self) -> None:
        """Ctrl+C: copy the selection, else stop the running reply, else quit when pressed twice."""
        from tui_agent.ui.ctrl_c import CtrlC  # deferred: loads pydantic (~55 ms): not before the first frame

        if self._ctrl_c is None:
            self._ctrl_c = CtrlC(self._clock)
        await self._ctrl_c.press(self)

    async def action_quit(self) -> None:
        await self.close_engine()
        self.exit()

    def exit(self, result: None = None, return_code: int = 0, message: RenderableType | None = None) -> None:
        """End the app (however asked: Ctrl+Q, /quit, a signal, the terminal gone) without waiting the 0.1-0.2 s
        Textual's input thread takes to notice (`stop_input_without_waiting`)."""
        stop_input_without_waiting(self)
        super().exit(result, return_code, message)

    async def on_unmount(self) -> None:
        """However the app ends (quit, a signal, a test's `run_test` block), the engine is closed."""
        await self.close_engine()

    async def close_engine(self) -> None:
        """Close the engine once (quit, or the caller after `run`); a build still running is cancelled first.

        Waiting for it matters: the history store runs a non-daemon thread until it is closed, and a process
        with one left running never exits.
        """
        if self._engine_closed:
            return
        self._engine_closed = True
        if self._build_worker is not None and not self._build_worker.is_finished:
            self._build_worker.cancel()
            await asyncio.gather(self._build_worker.wait(), return_exceptions=True)
        await self.engine_slot.close()
