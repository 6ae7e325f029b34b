"""Snapshot of the F1 help screen (fixed size, no cursor blink), with one key overridden from the config."""

from __future__ import annotations

from collections.abc import Callable

from textual.pilot import Pilot

from tests.ui.helpers import FIXED_NOW, SIZE, showing, wait_until
from tui_agent.config import Settings
from tui_agent.testing.scripted import ScriptedBackend
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.screens.help import HelpScreen

SnapCompare = Callable[..., bool]


async def open_help(pilot: Pilot[None]) -> None:
    await pilot.press("f1")
    await wait_until(pilot, lambda: showing(pilot.app, HelpScreen), "help open")
    await pilot.pause()


def test_help_screen(snap_compare: SnapCompare) -> None:
    app = TuiAgentApp(
        ScriptedBackend(), clock=lambda: FIXED_NOW, cursor_blink=False, settings=Settings(keys={"sessions": "ctrl+o"})
    )
    assert snap_compare(app, terminal_size=(SIZE[0], 50), run_before=open_help)
