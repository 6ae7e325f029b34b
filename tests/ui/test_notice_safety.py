"""Engine notices quote plugins, MCP servers' stderr and file names: they reach the screen without escapes."""

from __future__ import annotations

from tests.ui.helpers import FIXED_NOW, SIZE, wait_until
from tui_agent.testing.scripted import ScriptedBackend
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.textual_private import Toast


async def test_an_engine_notice_is_shown_without_escapes_or_bidi_controls() -> None:
    app = TuiAgentApp(ScriptedBackend(), clock=lambda: FIXED_NOW, cursor_blink=False)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        app.show_notice("MCP server docs failed: \x1b]52;c;cHduZWQ=\x07\x1b[2Jlast line \u202egnp.exe")
        await wait_until(pilot, lambda: bool(app.screen.query(Toast)), "the notice shown")
        (toast,) = app.screen.query(Toast)
        shown = str(toast.render())
        assert "MCP server docs failed:" in shown and "last line" in shown
        assert not {"\x1b", "\x07", "\u202e"} & set(shown)
