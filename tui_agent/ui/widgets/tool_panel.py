"""Provides `ToolPanel` (one tool call, live) and `ToolPanels` (the column of them, keyed by `ToolCall.key`:
assistant message and call id, as servers that number calls per response reuse `call_0` in every reply).

A panel shows the tool's name, its arguments as a short form (`tool_body.py`: `key: value`, long strings folded,
paths and code highlighted, no `to_user`: the chat shows it; raw text while they are still streaming), its status
with a distinct colour and symbol each, the elapsed time (ticking while running) and the result (JSON, code and
diffs highlighted), folded when long (Enter or a click expands it, arguments too); a call that changed files
(`ToolCall.file_changes`) shows `path  +N −M` for each, and its diff when expanded. Everything shown is sanitised
`Content`; the name and arguments through `reveal`, so bidi and invisible characters in them show as `⟨U+202E⟩`.

The panel of an `ask_<agent>` call also shows the sub-agent it runs, live (`SubAgentRun`, in
`sub_agent.py`): what it does, its reasoning (one line; expanded, its newest lines), its own tool calls and
the newest lines of its text, redrawn at most every `SUB_AGENT_INTERVAL` however fast it streams; `o` asks
the screen to open the sub-agent's session (`ToolPanel.OpenSession`).

From the keyboard: F6 (the chat screen's `focus_tools`) focuses the newest panel, Up/Down or k/j move
between panels, Enter expands, `o` opens a sub-agent's session, Esc goes back to the prompt.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.events import Click
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Static

from tui_agent.sanitize import reveal, sanitize
from tui_agent.status import ToolStatus
from tui_agent.todo import TODO_TOOL
from tui_agent.ui.widgets.chips import chips_line
from tui_agent.ui.widgets.todo_list import TodoList
from tui_agent.ui.widgets.tool_status import STATUS_LABEL, format_elapsed
from tui_agent.ui.widgets.tool_title import panel_title

if TYPE_CHECKING:  # the event classes load with the engine, after the first paint
    from tui_agent.agent.events import SubAgentEvent
    from tui_agent.tool_call import ToolCall
    from tui_agent.ui.widgets.sub_agent import SubAgentRun

Clock = Callable[[], float]
CallKey = tuple[str, str]
"""(assistant message id, call id): one tool call of the session (`ToolCall.key`)."""
FOLLOW_DELAY = 0.25
"""Seconds the chat log must keep still before the column follows it."""
SUB_AGENT_INTERVAL = 0.1
"""Seconds between redraws of a panel whose sub-agent streams (its events come by the hundred a second)."""
PROGRESS_CHARS = 40
"""Characters of a running tool's progress words shown in its status line (the panel is ~50 wide)."""
ASK_PREFIX = "ask_"
"""How the name of a tool that delegates to an agent starts (`ask_<agent>`)."""


def pretty_arguments(raw: str) -> str:
    """Arguments as indented JSON when they parse, else the raw text (still streaming)."""
    import json  # deferred: with the first tool call, not before the first paint

    try:
        return json.dumps(json.loads(raw), indent=2, ensure_ascii=False)
    except ValueError:
        return raw


class ToolPanel(Static, can_focus=True):
    """One tool call."""

    DEFAULT_CSS = """
    ToolPanel {
        margin: 1 0 0 0;
        padding: 0 1;
        height: auto;
        border: round $tool-pending;
        border-title-style: bold;
        border-subtitle-color: $tool-pending;
    }
    ToolPanel:focus { background: $boost; }
    ToolPanel.-pending { border: round $tool-pending; border-subtitle-color: $tool-pending; }
    ToolPanel.-awaiting_approval {
        border: double $tool-awaiting-approval;
        border-subtitle-color: $tool-awaiting-approval;
    }
    ToolPanel.-running { border: heavy $tool-running; border-subtitle-color: $tool-running; }
    ToolPanel.-done { border: round $tool-done; border-subtitle-color: $tool-done; }
    ToolPanel.-failed { border: heavy $tool-failed; border-subtitle-color: $tool-failed; }
    ToolPanel.-denied { border: dashed $tool-denied; border-subtitle-color: $tool-denied; }
    ToolPanel.-interrupted { border: dashed $tool-interrupted; border-subtitle-color: $tool-interrupted; }
    """

    BINDINGS = [Binding("enter", "toggle_result", "Expand/collapse result", show=False, id="toggle_result")]
    BINDINGS += [
        Binding("down,j", "next_panel", "Next tool call", show=False, id="next_panel"),
        Binding("up,k", "previous_panel", "Previous tool call", show=False, id="previous_panel"),
        Binding("escape", "back_to_prompt", "Back to the prompt", show=False, id="back_to_prompt"),
        Binding("o", "open_session", "Open the sub-agent's session", show=False, id="open_session"),
    ]

    class OpenSession(Message):
        """Posted by an `ask_*` call's panel when the person asks to see the sub-agent's session."""

        def __init__(self, panel: ToolPanel) -> None:
            super().__init__()
            self.panel = panel
            """The panel asking (its `call` and `sub_agent` say which session)."""

    def __init__(self, call: ToolCall, clock: Clock, sub_agent: SubAgentRun | None = None) -> None:
        super().__init__(classes="tool-panel")
        self._clock = clock
        self.expanded = False
        self.sub_agent = sub_agent
        """The sub-agent an `ask_*` call runs, as far as its events have come (None for other tools)."""
        self._drawn_at = 0.0
        self._hint = False
        self._redraw: Timer | None = None
        self.call = call
        self.apply(call)

    @property
    def status(self) -> ToolStatus:
        return self.call.status

    def apply(self, update: ToolCall) -> None:
        """Show the call's latest state."""
        self.set_class(False, f"-{self.call.status.value}")
        self.call = update
        self.add_class(f"-{update.status.value}")
        self.border_title = Content(reveal(panel_title(update)))  # a skill's tools: which skill
        self.refresh_view()

    def elapsed(self) -> float | None:
        started = self.call.started_at
        if started is None:
            return None
        end = self.call.finished_at if self.call.finished_at is not None else self._clock()
        return end - started

    def refresh_view(self) -> None:
        """Redraw the status line and body (the elapsed time changes while running)."""
        elapsed = self.elapsed()
        label = STATUS_LABEL[self.call.status]
        if self.call.progress and self.call.status == ToolStatus.RUNNING:
            label = f"{label} · {sanitize(self.call.progress)[:PROGRESS_CHARS]}"
        if (verdict := self.call.hook_verdict) is not None:  # a hook denied it ("⊘ denied by a hook (guard)"),
            # or changed what ran ("✓ done · arguments changed by a hook (guard)")
            denied = self.call.status is ToolStatus.DENIED
            label = f"{label.split()[0]} {sanitize(verdict)}" if denied else f"{label} · {sanitize(verdict)}"
        self.border_subtitle = Content(f"{label} · {format_elapsed(elapsed)}" if elapsed is not None else label)
        self.update(self._body())

    def sub_agent_moved(self) -> None:
        """The sub-agent took events: redraw now if the last redraw is old enough, else once, soon."""
        if self._redraw is not None:
            return
        wait = self._drawn_at + SUB_AGENT_INTERVAL - time.monotonic()
        if wait <= 0:
            self.refresh_view()
        else:
            self._redraw = self.set_timer(wait, self.refresh_view, name="sub-agent-redraw")

    def _body(self) -> Content:
        if self._redraw is not None:
            self._redraw.stop()
            self._redraw = None
        self._drawn_at = time.monotonic()
        # deferred: it draws diffs with tool_body's highlighting (Pygments), loaded as late as that
        from tui_agent.ui.widgets.file_changes import change_title, changes_view

        # deferred: Pygments (the highlighting) loads with the first tool call, not before the first paint
        from tui_agent.ui.widgets.tool_body import arguments_view, result_view

        call = self.call
        parts = [arguments_view(call.raw_arguments, call.arguments, expanded=self.expanded)]
        if self.sub_agent is not None:
            answered = call.result is not None and call.status.is_final
            parts.append(
                self.sub_agent.render(
                    expanded=self.expanded, call_status=call.status, answered=answered, hint=self._hint
                )
            )
        if call.error:
            parts.append(Content.styled(f"error: {sanitize(call.error)}", "$text-error"))
        if call.result is not None:
            parts.append(Content.styled("── result ──", "dim"))
            parts.extend(result_view(sanitize(call.result), call.readable_arguments(), expanded=self.expanded))
        if call.file_changes:  # the files it changed: `path  +N −M` each, the diffs when expanded
            parts.extend(changes_view(call.file_changes) if self.expanded else map(change_title, call.file_changes))
        if call.attachments:  # what it returned besides text (an image), a chip each
            parts.append(chips_line(call.attachments))
        return Content("\n").join(parts)

    def action_toggle_result(self) -> None:
        self.expanded = not self.expanded
        self.refresh_view()

    def on_click(self, event: Click) -> None:
        self.action_toggle_result()

    def on_focus(self) -> None:
        self._show_hint(True)

    def on_blur(self) -> None:
        self._show_hint(False)  # (this runs before Textual's own handler clears `has_focus`)

    def _show_hint(self, shown: bool) -> None:
        """A focused sub-agent's panel says how to open its session."""
        self._hint = shown
        if self.sub_agent is not None:
            self.refresh_view()

    def action_open_session(self) -> None:
        if self.sub_agent is None:
            self.notify("Only a sub-agent's call has a session to open.", severity="warning", timeout=3)
        else:
            self.post_message(self.OpenSession(self))

    def action_next_panel(self) -> None:
        self._focus_neighbour(+1)

    def action_previous_panel(self) -> None:
        self._focus_neighbour(-1)

    def _focus_neighbour(self, step: int) -> None:
        """Focus the panel `step` places down the column (staying put at either end)."""
        panels = [child for child in self.parent.children if isinstance(child, ToolPanel)] if self.parent else []
        index = panels.index(self) + step
        if 0 <= index < len(panels):
            panels[index].focus()

    def action_back_to_prompt(self) -> None:
        self.screen.query("#prompt").focus()


class ToolPanels(VerticalScroll):
    """The right-hand column: one panel per tool call, in the order they appeared.

    It follows the chat log's window: calls of assistant messages the log has let go have no panel
    (unless not yet final), so a session of thousands of calls costs a few dozen widgets. It stays folded
    away (not displayed) until the session's first call, or until the person shows it (`toggle`): an empty
    column took ~60 of 160 columns from the conversation. Once shown, only the person hides it again.
    """

    def __init__(self, *, clock: Clock = time.monotonic, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        self._clock = clock
        self._calls: dict[CallKey, ToolCall] = {}
        """The latest state of every call known, oldest first."""
        self._panels: dict[CallKey, ToolPanel] = {}
        """The mounted panels."""
        self._sub_agents: dict[CallKey, SubAgentRun] = {}
        """The sub-agents of `ask_*` calls, by call (kept while their panels come and go)."""
        self._let_go: frozenset[str] = frozenset()
        """Ids of the messages whose calls are not shown (the chat log let them go)."""
        self._follow_timer: Timer | None = None
        self._unfolded = False
        """Shown once (by the first call or the person): from then on only `toggle` hides it."""
        self.narrow = False
        """The screen is too narrow for it beside the conversation (`SideColumns`): it folds away by itself."""
        self._folded_narrow = False
        """Folded by a narrow screen (or its first call came then): shown again when the screen widens."""
        self.todo_list = TodoList()
        """The model's todo list, above the panels: the newest `todo` call among `_calls` (each member's, in a
        team)."""
        self._speakers: dict[str, str] = {}
        """Message id -> the team member who wrote it (whose todo list its calls keep)."""

    def compose(self):  # type: ignore[no-untyped-def]
        yield self.todo_list
        yield Static(Content("Tool calls appear here."), id="no-tools")

    def on_mount(self) -> None:
        self.display = self._unfolded
        self.anchor()
        self.set_interval(0.5, self._tick, name="tool-elapsed")

    def _shown(self, call: ToolCall) -> bool:
        return call.message_id not in self._let_go or not call.status.is_final

    def note_speaker(self, message_id: str, agent: str | None) -> None:
        """Reply `message_id` is team member `agent`'s (None: the session's agent): its todo calls keep its list."""
        if agent:
            self._speakers[message_id] = agent

    def update_call(self, update: ToolCall) -> ToolPanel | None:
        """Show a call's latest state; returns its panel, None while its message is outside the window."""
        key = update.key
        new = key not in self._calls
        self._calls[key] = update
        panel: ToolPanel | None = self._panels.get(key)
        if update.name == TODO_TOOL:
            self.todo_list.follow(self._calls.values(), self._speakers)
        if panel is not None:
            panel.apply(update)
        elif self._shown(update):
            if new:
                panel = self._panels[key] = self._new_panel(update)
                self.mount(panel)
                self._first_call_shown()
            else:
                self._follow_window()
                panel = self._panels.get(key)
        return panel

    def _new_panel(self, call: ToolCall) -> ToolPanel:
        return ToolPanel(call, self._clock, self._sub_agent(call.key, call.name))

    def _sub_agent(self, key: CallKey, tool: str, agent: str | None = None) -> SubAgentRun | None:
        """The run of call `key` if it delegates (made on first sight: its events may come before the call)."""
        run = self._sub_agents.get(key)
        if run is None and (agent or tool.startswith(ASK_PREFIX)):
            from tui_agent.ui.widgets.sub_agent import SubAgentRun  # deferred: with the first delegation only

            run = self._sub_agents[key] = SubAgentRun(agent or tool[len(ASK_PREFIX) :], clock=self._clock)
        return run

    def follow_sub_agent(self, event: SubAgentEvent) -> None:
        """One event of the sub-agent call `event.call` runs: taken now, drawn with the panel's next redraw."""
        run = self._sub_agent(event.call, "", event.agent)
        assert run is not None
        run.session_id = event.session_id
        run.take(event.event)
        if (panel := self._panels.get(event.call)) is not None:
            if panel.sub_agent is None:  # the call came first under a name that did not say it delegates
                panel.sub_agent = run
            panel.sub_agent_moved()

    def add_earlier(self, updates: list[ToolCall]) -> None:
        """Calls older than every one known (a session's earlier page), shown if in the window."""
        earlier = {update.key: update for update in updates if update.key not in self._calls}
        self._calls = {**earlier, **self._calls}
        self.todo_list.follow(self._calls.values(), self._speakers)
        self._follow_soon()

    def forget_calls_of(self, message_ids: set[str] | None) -> None:
        """These replies (None: all) left the conversation (another branch is shown): their calls and panels go."""
        gone = [key for key, call in self._calls.items() if message_ids is None or call.message_id in message_ids]
        for key in gone:
            del self._calls[key]
            if (panel := self._panels.pop(key, None)) is not None:
                panel.remove()
        self.todo_list.follow(self._calls.values(), self._speakers)

    def hide_calls_of(self, message_ids: frozenset[str]) -> None:
        """Show every call but those of these messages (the ones the chat log let go)."""
        self._let_go = message_ids
        self._follow_soon()

    def _follow_soon(self) -> None:
        """Follow the log once it has kept still for a moment: while the person scrolls page after page,
        redrawing this column for every page would double the cost of each frame."""
        if self._follow_timer is not None:
            self._follow_timer.stop()
        self._follow_timer = self.set_timer(FOLLOW_DELAY, self._follow_window, name="follow-log")

    def _follow_window(self) -> None:
        self._follow_timer = None
        wanted = [key for key, call in self._calls.items() if self._shown(call)]
        keep = set(wanted)
        gone = [panel for key, panel in self._panels.items() if key not in keep]
        for panel in gone:
            del self._panels[panel.call.key]
        if gone:
            self.remove_children(gone)
        following: ToolPanel | None = None
        for key in reversed(wanted):
            shown = self._panels.get(key)
            if shown is None:
                shown = self._panels[key] = self._new_panel(self._calls[key])
                self.mount(shown, before=following) if following is not None else self.mount(shown)
            following = shown
        if wanted:
            self._first_call_shown()

    class Toggled(Message):
        """The column was shown or hidden: the conversation beside it changed width."""

    def _first_call_shown(self) -> None:
        self.query("#no-tools").remove()
        if not self._unfolded:
            self.unfold(asked=False)

    def toggle(self) -> None:
        """Show or hide the column (Ctrl+B); shown by the person, it no longer waits for a first call."""
        self._unfolded, self._folded_narrow = True, False
        self.display = not self.display
        self.post_message(self.Toggled())

    def unfold(self, *, asked: bool = True) -> None:
        """Show the column (F6 moving into it; its first call, `asked=False`, waits for a narrow screen to widen)."""
        self._unfolded = True
        if not asked and self.narrow:
            self._folded_narrow = True
        elif not self.display:
            self.display = True
            self.post_message(self.Toggled())

    def fit(self, narrow: bool) -> None:
        """The screen became `narrow` (fold away, the conversation keeps the width) or wide again (back as it was)."""
        self.narrow = narrow
        if narrow and self.display:
            self._folded_narrow = True
            self.display = False
            self.post_message(self.Toggled())
        elif not narrow and self._folded_narrow:
            self._folded_narrow = False
            self.unfold()

    def interrupt_open(self) -> None:
        """Esc: every call not yet final is shown interrupted at once (the backend confirms later)."""
        now = self._clock()
        for call in list(self._calls.values()):
            if not call.status.is_final:
                finished = now if call.started_at is not None else None
                self.update_call(call.replace(status=ToolStatus.INTERRUPTED, finished_at=finished))

    def calls_of(self, message_id: str) -> list[ToolCall]:
        """The calls of assistant message `message_id` known here, in the order they came."""
        return [call for call in self._calls.values() if call.message_id == message_id]

    def panel(self, key: CallKey) -> ToolPanel | None:
        """The mounted panel of the call with this `ToolCall.key`, if any."""
        return self._panels.get(key)

    @property
    def panels(self) -> list[ToolPanel]:
        """The mounted panels, top to bottom."""
        return [child for child in self.children if isinstance(child, ToolPanel)]

    def _tick(self) -> None:
        for panel in self._panels.values():
            if panel.status is ToolStatus.RUNNING:
                panel.refresh_view()
