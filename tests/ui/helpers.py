"""Test helpers for Pilot tests: a waiting loop, an app around a scripted backend, and text of what is shown."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from textual.pilot import Pilot

from tui_agent.agent.events import ToolCallUpdated, ToolStatus
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.screens.chat import ChatScreen
from tui_agent.ui.scripted import Script, ScriptedBackend
from tui_agent.ui.widgets.markdown_view import MarkdownView

FIXED_NOW = 103.2
SIZE = (120, 36)


def make_app(scripts: Iterable[Script] = (), **backend_options: object) -> tuple[TuiAgentApp, ScriptedBackend]:
    backend = ScriptedBackend(scripts, **backend_options)  # type: ignore[arg-type]
    return TuiAgentApp(backend, clock=lambda: FIXED_NOW, cursor_blink=False), backend


async def wait_until(pilot: Pilot[None], condition: Callable[[], bool], what: str = "condition") -> None:
    """Let the app run until `condition` holds; fail (not hang) if it never does."""
    for _ in range(500):
        if condition():
            return
        await pilot.pause(0.01)
    raise AssertionError(f"never reached: {what}")


def chat(pilot: Pilot[None]) -> ChatScreen:
    screen = pilot.app.screen
    assert isinstance(screen, ChatScreen), f"expected the chat screen, got {screen!r}"
    return screen


async def send(pilot: Pilot[None], prompt: str, *, wait: bool = True) -> None:
    """Type a prompt and press Enter; by default wait for the turn to end."""
    screen = chat(pilot)
    screen.prompt_input.insert(prompt)
    await pilot.press("enter")
    if wait:
        await wait_until(pilot, lambda: screen.idle, "turn finished")


def shown(view: MarkdownView) -> str:
    return view.shown_text()


def call(call_id: str, status: ToolStatus, *, name: str = "get_weather", arguments: str = '{"location": "Paris"}',
         started: float | None = None, finished: float | None = None, result: str | None = None,
         error: str | None = None) -> ToolCallUpdated:
    return ToolCallUpdated(call_id, "m1", name, arguments, status, started, finished, result, error)
