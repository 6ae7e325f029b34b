"""The tool column from the keyboard: F6 moves focus to the newest panel (and back), Up/Down and k/j move
between panels, Enter expands a long result, Esc goes back to the prompt. The key is overridable and in F1."""

from __future__ import annotations

from textual.widgets import Static

from tests.ui.helpers import FIXED_NOW, SIZE, call, make_app, send, wait_until
from tui_agent.agent.events import ToolStatus
from tui_agent.testing.scripted import ScriptedBackend
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.screens.help import HelpScreen
from tui_agent.ui.textual_private import notifications
from tui_agent.ui.widgets.prompt import PromptInput
from tui_agent.ui.widgets.tool_panel import ToolPanel

LONG = "\n".join(f"line {n}" for n in range(30))


def three_calls() -> list[object]:
    return [call(f"c{n}", ToolStatus.DONE, started=1.0, finished=2.0, result=LONG) for n in (1, 2, 3)]


def focused_call(app: TuiAgentApp) -> str | None:
    return app.focused.call.call_id if isinstance(app.focused, ToolPanel) else None


async def test_f6_focuses_the_tool_column_and_arrows_move_between_panels() -> None:
    app, _ = make_app([three_calls()])
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "three tools")
        await pilot.press("f6")
        assert focused_call(app) == "c3"  # the newest call
        await pilot.press("up")
        assert focused_call(app) == "c2"
        await pilot.press("k", "k", "k")  # stops at the first
        assert focused_call(app) == "c1"
        await pilot.press("j", "down")
        assert focused_call(app) == "c3"
        panel = app.focused
        assert isinstance(panel, ToolPanel) and not panel.expanded
        await pilot.press("enter")
        assert panel.expanded and "line 29" in str(panel.render())
        await pilot.press("escape")
        assert isinstance(app.focused, PromptInput)
        await pilot.press("f6")
        assert focused_call(app) == "c3"
        await pilot.press("f6")  # again: back to the prompt
        assert isinstance(app.focused, PromptInput)


async def test_f6_with_no_tool_calls_says_so_and_keeps_the_prompt() -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f6")
        assert isinstance(app.focused, PromptInput)
        assert any("No tool calls" in n.message for n in notifications(app))


async def test_the_tool_column_key_is_overridable_and_listed_in_help() -> None:
    backend = ScriptedBackend([three_calls()])
    app = TuiAgentApp(backend, clock=lambda: FIXED_NOW, cursor_blink=False, keys={"focus_tools": "f8"})
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "three tools")
        await pilot.press("f8")
        assert focused_call(app) == "c3"
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), "help open")
        text = "\n".join(str(static.render()) for static in app.screen.query(Static))
        assert "focus_tools" in text and "f8" in text
        assert "next_panel" in text and "previous_panel" in text and "back_to_prompt" in text
