"""Provides `ToolPanel` (one tool call, live) and `ToolPanels` (the column of them, keyed by `ToolCall.key`:
assistant message and call id, as servers that number calls per response reuse `call_0` in every reply).

A panel shows the tool's name, its arguments as pretty JSON (raw text while they are still streaming),
its status with a distinct colour and symbol each, the elapsed time (ticking while running) and the
result, collapsed when long (Enter or a click expands it). Everything shown is sanitised `Content`; the name
and arguments through `reveal`, so bidi and invisible characters in them show as `⟨U+202E⟩`.

From the keyboard: F6 (the chat screen's `focus_tools`) focuses the newest panel, Up/Down or k/j move
between panels, Enter expands, Esc goes back to the prompt.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.events import Click
from textual.timer import Timer
from textual.widgets import Static

from tui_agent.sanitize import reveal, sanitize
from tui_agent.status import ToolStatus

if TYPE_CHECKING:  # the event classes load with the engine, after the first paint
    from tui_agent.tool_call import ToolCall

Clock = Callable[[], float]
CallKey = tuple[str, str]
"""(assistant message id, call id): one tool call of the session (`ToolCall.key`)."""
FOLLOW_DELAY = 0.25
"""Seconds the chat log must keep still before the column follows it."""
COLLAPSED_LINES = 8
COLLAPSED_CHARS = 600

STATUS_LABEL = {
    ToolStatus.PENDING: "○ pending",
    ToolStatus.AWAITING_APPROVAL: "? awaiting approval",
    ToolStatus.RUNNING: "◐ running",
    ToolStatus.DONE: "✓ done",
    ToolStatus.FAILED: "✗ failed",
    ToolStatus.DENIED: "⊘ denied",
    ToolStatus.INTERRUPTED: "■ interrupted",
}


def pretty_arguments(raw: str) -> str:
    """Arguments as indented JSON when they parse, else the raw text (still streaming)."""
    import json  # with the first tool call, not before the first paint

    try:
        return json.dumps(json.loads(raw), indent=2, ensure_ascii=False)
    except ValueError:
        return raw


def format_elapsed(seconds: float) -> str:
    """Short elapsed time: 0.4s, 12.3s, 2m 05s."""
    seconds = max(seconds, 0.0)
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes}m {rest:02d}s"


def collapse(text: str) -> tuple[str, int]:
    """The first lines of a long text and how many lines were left out (0 when it fits)."""
    lines = text.splitlines()
    if len(lines) <= COLLAPSED_LINES and len(text) <= COLLAPSED_CHARS:
        return text, 0
    shown = "\n".join(lines[:COLLAPSED_LINES])[:COLLAPSED_CHARS]
    return shown, max(len(lines) - shown.count("\n") - 1, 1)


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
    ]

    def __init__(self, call: ToolCall, clock: Clock) -> None:
        super().__init__(classes="tool-panel")
        self._clock = clock
        self.expanded = False
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
        self.border_title = Content(reveal(update.name))
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
        self.border_subtitle = Content(f"{label} · {format_elapsed(elapsed)}" if elapsed is not None else label)
        self.update(self._body())

    def _body(self) -> Content:
        parts = [Content(reveal(pretty_arguments(self.call.raw_arguments)) or "(no arguments)")]
        if self.call.error:
            parts.append(Content.styled(f"error: {sanitize(self.call.error)}", "$text-error"))
        if self.call.result is not None:
            result = sanitize(self.call.result)
            shown, hidden = (result, 0) if self.expanded else collapse(result)
            parts.append(Content.styled("── result ──", "dim"))
            parts.append(Content(shown))
            if hidden:
                parts.append(Content.styled(f"… {hidden} more lines (Enter or click to expand)", "dim italic"))
        return Content("\n").join(parts)

    def action_toggle_result(self) -> None:
        self.expanded = not self.expanded
        self.refresh_view()

    def on_click(self, event: Click) -> None:
        self.action_toggle_result()

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
    (unless not yet final), so a session of thousands of calls costs a few dozen widgets.
    """

    def __init__(self, *, clock: Clock = time.monotonic, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        self._clock = clock
        self._calls: dict[CallKey, ToolCall] = {}
        """The latest state of every call known, oldest first."""
        self._panels: dict[CallKey, ToolPanel] = {}
        """The mounted panels."""
        self._let_go: frozenset[str] = frozenset()
        """Ids of the messages whose calls are not shown (the chat log let them go)."""
        self._follow_timer: Timer | None = None

    def compose(self):  # type: ignore[no-untyped-def]
        yield Static(Content("Tool calls appear here."), id="no-tools")

    def on_mount(self) -> None:
        self.anchor()
        self.set_interval(0.5, self._tick, name="tool-elapsed")

    def _shown(self, call: ToolCall) -> bool:
        return call.message_id not in self._let_go or not call.status.is_final

    def update_call(self, update: ToolCall) -> ToolPanel | None:
        """Show a call's latest state; returns its panel, None while its message is outside the window."""
        key = update.key
        new = key not in self._calls
        self._calls[key] = update
        panel: ToolPanel | None = self._panels.get(key)
        if panel is not None:
            panel.apply(update)
        elif self._shown(update):
            if new:
                panel = self._panels[key] = ToolPanel(update, self._clock)
                self.mount(panel)
                self.query("#no-tools").remove()
            else:
                self._follow_window()
                panel = self._panels.get(key)
        return panel

    def add_earlier(self, updates: list[ToolCall]) -> None:
        """Calls older than every one known (a session's earlier page), shown if in the window."""
        earlier = {update.key: update for update in updates if update.key not in self._calls}
        self._calls = {**earlier, **self._calls}
        self._follow_soon()

    def forget_calls_of(self, message_ids: set[str] | None) -> None:
        """These replies (None: all) left the conversation (another branch is shown): their calls and panels go."""
        gone = [key for key, call in self._calls.items() if message_ids is None or call.message_id in message_ids]
        for key in gone:
            del self._calls[key]
            if (panel := self._panels.pop(key, None)) is not None:
                panel.remove()

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
                shown = self._panels[key] = ToolPanel(self._calls[key], self._clock)
                self.mount(shown, before=following) if following is not None else self.mount(shown)
            following = shown
        if wanted:
            self.query("#no-tools").remove()

    def interrupt_open(self) -> None:
        """Esc: every call not yet final is shown interrupted at once (the backend confirms later)."""
        now = self._clock()
        for call in list(self._calls.values()):
            if not call.status.is_final:
                finished = now if call.started_at is not None else None
                self.update_call(call.replace(status=ToolStatus.INTERRUPTED, finished_at=finished))

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
