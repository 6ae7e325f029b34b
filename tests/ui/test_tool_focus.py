"""The tool column from the keyboard: F6 moves focus to the newest panel (and back), Up/Down and k/j move
between panels, Enter expands a long result, Esc goes back to the prompt. The key is overridable and in F1."""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Static

from tests.ui.helpers import FIXED_NOW, SIZE, call, make_app, send, showing, wait_until
from tui_agent.agent.events import ToolStatus
from tui_agent.config import Settings
from tui_agent.testing.scripted import Script, ScriptedBackend
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.screens.help import HelpScreen
from tui_agent.ui.textual_private import notifications
from tui_agent.ui.widgets.prompt import PromptInput
from tui_agent.ui.widgets.tool_panel import ToolPanel

LONG = "\n".join(f"line {n}" for n in range(30))


def three_calls() -> Script:
    return [call(f"c{n}", ToolStatus.DONE, started=1.0, finished=2.0, result=LONG) for n in (1, 2, 3)]


def focused_call(app: App[Any]) -> str | None:
    return app.focused.call.call_id if isinstance(app.focused, ToolPanel) else None


async def focus_moves(pilot: Pilot[None], key: str, call_id: str) -> None:
    """Press `key` and wait for the focus to be on `call_id`'s panel: the focus moves a moment after the key is
    handled, and a key pressed before would go to the panel it leaves."""
    await pilot.press(key)
    await wait_until(pilot, lambda: focused_call(pilot.app) == call_id, lambda: f"{key}: {focused_call(pilot.app)}")


async def test_f6_focuses_the_tool_column_and_arrows_move_between_panels() -> None:
    app, _ = make_app([three_calls()])
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "three tools")
        for key, lands_on in (("f6", "c3"), ("up", "c2"), ("k", "c1"), ("k", "c1"), ("j", "c2"), ("down", "c3")):
            await focus_moves(pilot, key, lands_on)  # f6: the newest call; k on the first stays there
        panel = app.focused
        assert isinstance(panel, ToolPanel) and not panel.expanded
        await pilot.press("enter")
        await wait_until(pilot, lambda: panel.expanded and "line 29" in str(panel.render()), "the result expanded")
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.focused, PromptInput), "the prompt focused")
        await pilot.press("f6")
        await wait_until(pilot, lambda: focused_call(app) == "c3", "the newest call focused")
        await pilot.press("f6")  # again: back to the prompt
        await wait_until(pilot, lambda: isinstance(app.focused, PromptInput), "the prompt focused again")


async def test_f6_with_no_tool_calls_says_so_and_keeps_the_prompt() -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f6")
        await wait_until(pilot, lambda: any("No tool calls" in n.message for n in notifications(app)), "told")
        assert isinstance(app.focused, PromptInput)


async def test_the_tool_column_key_is_overridable_and_listed_in_help() -> None:
    backend = ScriptedBackend([three_calls()])
    app = TuiAgentApp(
        backend, clock=lambda: FIXED_NOW, cursor_blink=False, settings=Settings(keys={"focus_tools": "f8"})
    )
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "three tools")
        await pilot.press("f8")
        await wait_until(pilot, lambda: focused_call(app) == "c3", "the newest call focused")
        await pilot.press("f1")
        await wait_until(pilot, lambda: showing(app, HelpScreen), "help open")
        text = "\n".join(str(static.render()) for static in app.screen.query(Static))
        assert "focus_tools" in text and "f8" in text
        assert "next_panel" in text and "previous_panel" in text and "back_to_prompt" in text
