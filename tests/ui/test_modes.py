"""The permission mode in the app: Shift+Tab cycles it (the prompt keeps the focus), the status bar shows it
unless it is the default, a notice says what it lets run, and the palette's command does the same."""

from __future__ import annotations

from tests.ui.helpers import SIZE, chat, chat_ready, make_app, pressed, wait_until
from tests.ui.test_palette import run_command
from tui_agent.ui.textual_private import notifications
from tui_agent.ui.widgets.prompt import PromptInput


async def test_shift_tab_and_the_palette_cycle_the_mode_shown_in_the_status_bar() -> None:
    app, backend = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await chat_ready(pilot)
        await wait_until(pilot, lambda: screen.backend is not None, "the engine connected")
        bar = screen.status_bar
        assert "⏵⏵" not in str(bar.render())  # ask, the default, is not marked

        await pressed(pilot, "shift+tab", lambda: backend.permissions.mode == "auto-edit", "auto-edit")
        assert "⏵⏵ auto-edit" in str(bar.render()) and isinstance(app.focused, PromptInput)
        assert any("file edits run without asking" in note.message for note in notifications(app))

        await run_command(pilot, "Permission mode")
        await wait_until(pilot, lambda: backend.permissions.mode == "auto", "auto from the palette")
        assert "⏵⏵ auto · sandboxed" in str(chat(pilot).status_bar.render())  # the scripted engine has a sandbox
        await pressed(pilot, "shift+tab", lambda: backend.permissions.mode == "plan", "plan")
        await pressed(pilot, "shift+tab", lambda: backend.permissions.mode == "read-only", "read-only")
        await pressed(pilot, "shift+tab", lambda: backend.permissions.mode == "ask", "back to ask")
        assert "⏵⏵" not in str(bar.render())
