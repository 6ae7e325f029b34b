"""Provides `CtrlC`: what Ctrl+C does, the way terminal users expect it.

In order: copy the selection if there is one (in the focused input, or text selected on screen with the
mouse); otherwise stop the running reply; otherwise, on an idle prompt, the first press says "press Ctrl+C
again to quit" and a second press within `QUIT_WINDOW` seconds quits.

The app binds it with priority (`interrupt`, overridable in `[keys]`), so it replaces Textual's own ctrl+c
bindings (the inputs' copy, the screen's copy, the app's "press ctrl+q to quit" hint) in one place.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from textual.widgets import Input, TextArea

from tui_agent.ui.commands import chat_screen

if TYPE_CHECKING:
    from textual.screen import Screen
    from textual.widget import Widget

    from tui_agent.ui.hosts import Notices, ScreenStack

    class CtrlCApp(Notices, ScreenStack, Protocol):
        """What Ctrl+C uses of the app (`TuiAgentApp`)."""

        @property
        def focused(self) -> Widget | None: ...

        @property
        def screen(self) -> Screen[Any]: ...

        def copy_to_clipboard(self, text: str) -> None: ...

        async def action_quit(self) -> None: ...


QUIT_WINDOW = 2.0
"""Seconds within which a second Ctrl+C on an idle prompt quits."""


def selected_text(app: CtrlCApp) -> str | None:
    """The text selected now: the focused input's selection first, then the screen's (mouse) selection."""
    focused = app.focused
    if isinstance(focused, TextArea | Input) and focused.selected_text:
        return focused.selected_text
    return app.screen.get_selected_text() or None


class CtrlC:
    """The state Ctrl+C needs between presses: when it last asked whether to quit."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self._clock = clock
        self._armed_at: float | None = None

    async def press(self, app: CtrlCApp) -> None:
        """Copy, stop, or (pressed twice) quit."""
        armed_at, self._armed_at = self._armed_at, None
        if (text := selected_text(app)) is not None:
            app.copy_to_clipboard(text)
            app.notify(f"Copied {len(text):,} characters.", timeout=2)
            return
        chat = chat_screen(app)
        if chat is not None and chat.busy:
            chat.turns.stop_reply()
            return
        now = self._clock()
        if armed_at is not None and now - armed_at <= QUIT_WINDOW:
            await app.action_quit()
            return
        self._armed_at = now
        app.notify("Press Ctrl+C again to quit (or Ctrl+Q).", timeout=QUIT_WINDOW)
