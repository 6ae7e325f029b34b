"""Test helpers for Pilot tests: a waiting loop, an app around a scripted backend, and text of what is shown."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

from textual.app import App
from textual.errors import NoWidget
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widget import Widget

from tui_agent.agent.agent import Agent
from tui_agent.agent.endpoint import EndpointChoice
from tui_agent.agent.events import ToolCallUpdated, ToolStatus
from tui_agent.agent.services import BuiltAgent, build_agent
from tui_agent.config import Settings
from tui_agent.testing.scripted import Script, ScriptedBackend
from tui_agent.tool_call import ToolCall
from tui_agent.tools.mcp.servers import McpServers
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.screens.chat import ChatScreen
from tui_agent.ui.widgets.log_window import TRIM_AT
from tui_agent.ui.widgets.markdown_view import MarkdownView
from tui_agent.ui.widgets.messages import AssistantMessage, UserMessage
from tui_agent.ui.widgets.prompt import PromptInput
from tui_agent.ui.widgets.task_tree import TaskTree

FIXED_NOW = 103.2
WINDOW_BOUND = 2 * TRIM_AT
"""Entries a scrolled log may hold: a page plus whatever is on screen (small entries fill one with many)."""
SIZE = (120, 36)
WAIT_LIMIT = 60.0
"""Seconds `wait_until` waits before it fails."""


def make_app(scripts: Iterable[Script] = (), **backend_options: object) -> tuple[TuiAgentApp, ScriptedBackend]:
    backend = ScriptedBackend(scripts, **backend_options)  # type: ignore[arg-type]
    return TuiAgentApp(backend, clock=lambda: FIXED_NOW, cursor_blink=False), backend


async def wait_until(
    pilot: Pilot[None], condition: Callable[[], bool], what: str | Callable[[], str] = "condition"
) -> None:
    """Let the app run until `condition` holds; fail (not hang) if it never does (`what` may say how far it got).

    The limit only bounds a hang: it is not a timing check, and a loaded CI machine (the suite takes ~500 s
    there) may take seconds for what takes milliseconds here."""
    deadline = time.monotonic() + WAIT_LIMIT
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"never reached: {what() if callable(what) else what}")
        await pilot.pause(0.01)


async def pressed(pilot: Pilot[None], key: str, condition: Callable[[], bool], what: str) -> None:
    """Press `key` and wait until `condition` holds: a key is handled as messages (the focused widget's, then
    its parents' bindings), which on a loaded machine may come after `press` returns."""
    await pilot.press(key)
    await wait_until(pilot, condition, f"{key}: {what}")


def showing(app: App[Any], kind: type[Screen[Any]]) -> bool:
    """The app shows a `kind` screen with its widgets mounted: a screen pushed from a worker or a callback is
    `app.screen` a moment before it has composed them (wait for this before querying them)."""
    return isinstance(app.screen, kind) and app.screen.is_mounted


def under_the_pointer(pilot: Pilot[None], widget: Widget, offset: tuple[int, int] = (0, 0)) -> bool:
    """Whether the pointer at `offset` in `widget` is on it (or on a widget in it): `widget` is laid out where
    the screen shows it, so a click or a drag there reaches it (wait for this after a scroll or a mount)."""
    region = widget.region
    if not region.contains(region.x + offset[0], region.y + offset[1]):
        return False
    try:
        hit, _ = pilot.app.screen.get_widget_at(region.x + offset[0], region.y + offset[1])
    except NoWidget:
        return False
    return hit is widget or widget in hit.ancestors


def chat_idle(pilot: Pilot[None]) -> bool:
    """The chat screen is shown and idle (to wait for after a key in a dialog over it, which closes a moment
    after the key: `chat()` would fail while the dialog is still up)."""
    screen = pilot.app.screen
    return isinstance(screen, ChatScreen) and screen.idle


def chat(pilot: Pilot[None]) -> ChatScreen:
    screen = pilot.app.screen
    assert isinstance(screen, ChatScreen), f"expected the chat screen, got {screen!r}"
    return screen


async def task_tree(pilot: Pilot[None]) -> TaskTree:
    """The chat screen's task tree, which joins it after its first frame (mounted: it follows the turn from then)."""
    await wait_until(
        pilot, lambda: any(tree.is_mounted for tree in chat(pilot).query(TaskTree)), "the task tree mounted"
    )
    return chat(pilot).query_one(TaskTree)


async def chat_ready(pilot: Pilot[None]) -> ChatScreen:
    """The chat screen once its prompt takes keys (the snapshot plugin's pilot starts before it has mounted) and
    the widgets that join after the first frame are in (the message cursor, hover bar, attachment strip)."""
    await wait_until(pilot, lambda: isinstance(pilot.app.focused, PromptInput), "the prompt focused")
    await wait_until(pilot, lambda: chat(pilot).later.mounted, "the after-first-frame widgets")
    return chat(pilot)


def newest_prompt(screen: ChatScreen) -> UserMessage | None:
    return next((entry for entry in reversed(screen.chat_log.entries) if isinstance(entry, UserMessage)), None)


async def send(pilot: Pilot[None], prompt: str, *, wait: bool = True) -> None:
    """Type a prompt and press Enter once the prompt has the focus; by default wait until the screen has taken
    it (the prompt shown, or a screen drawn in its place by a compaction) and the turn has ended. The key reaches
    the prompt, and the prompt's message the screen, as messages: under load `press` can return before, while the
    screen is idle."""
    screen = chat(pilot)
    before = newest_prompt(screen)
    # Enter goes to whatever has the focus: a key just pressed (Esc) may give it back to the prompt only now.
    await wait_until(pilot, lambda: pilot.app.focused is screen.prompt_input, "the prompt focused")
    screen.prompt_input.insert(prompt)
    await pilot.press("enter")
    if wait:

        def taken() -> bool:
            return newest_prompt(screen) is not before or pilot.app.screen is not screen

        await wait_until(
            pilot,
            lambda: taken() and screen.idle,
            lambda: f"{prompt[:40]!r} taken ({taken()}) and its turn finished (idle: {screen.idle})",
        )


def shown(view: MarkdownView) -> str:
    return view.shown_text()


def call(
    call_id: str,
    status: ToolStatus,
    *,
    name: str = "get_weather",
    arguments: str = '{"location": "Paris"}',
    started: float | None = None,
    finished: float | None = None,
    result: str | None = None,
    error: str | None = None,
) -> ToolCallUpdated:
    return ToolCallUpdated(
        ToolCall(
            call_id,
            name,
            arguments,
            message_id="m1",
            status=status,
            started_at=started,
            finished_at=finished,
            result=result,
            error=error,
        )
    )


def conversation_keys(entries: Iterable[Widget]) -> list[str]:
    """User prompts and assistant replies (by id and text) in the order given."""
    keys = []
    for entry in entries:
        if isinstance(entry, UserMessage):
            keys.append(f"user: {entry.prompt}")
        elif isinstance(entry, AssistantMessage):
            keys.append(f"assistant {entry.message_id}: {entry.text}")
    return keys


async def scroll_to_the_top(pilot: Pilot[None], screen: ChatScreen, *, most: int = 400) -> int:
    """Scroll the log to the top until nothing is left above it (let-go entries, stored pages); returns steps."""
    log, view = screen.chat_log, screen.history

    def everything_above_shown() -> bool:
        return log.hidden_count == 0 and view.exhausted

    def above() -> tuple[int, int]:
        return log.hidden_count, view.loaded_messages

    for step in range(most):
        if everything_above_shown():
            return step
        before = above()
        # Taken after the next refresh: until then y is the old one (> 0). What comes back above is counted off
        # before it is mounted; once it is, the view is kept (y > 0 again) a frame later.
        log.scroll_home(animate=False)
        await wait_until(
            pilot,
            lambda before=before: above() != before and not view.loading and log.scroll_y > 0,  # type: ignore[misc]
            lambda: (
                f"a page above mounted and the view kept ({log.hidden_count} above, "
                f"loaded {view.loaded_messages}, y={log.scroll_y}, {len(log.entries)} mounted)"
            ),
        )
        assert len(log.entries) <= WINDOW_BOUND, f"scrolling up must let the newest entries go ({len(log.entries)})"
    raise AssertionError(f"still more above after {most} scrolls")


async def read_to_the_bottom(pilot: Pilot[None], screen: ChatScreen, *, most: int = 400) -> list[str]:
    """Scroll the log down page by page to the newest entry; every prompt and reply seen, in order, once."""
    log = screen.chat_log
    seen: dict[str, None] = {}
    for _ in range(most):
        seen.update(dict.fromkeys(conversation_keys(log.entries)))
        if log.later_count == 0:
            return list(seen)
        before = log.later_count
        log.scroll_end(animate=False)
        await wait_until(
            pilot,
            lambda before=before: log.later_count < before,  # type: ignore[misc]
            lambda: f"a page below mounted ({log.later_count} below, y={log.scroll_y})",
        )
        await wait_until(pilot, lambda: log.scroll_y < log.max_scroll_y or log.later_count == 0, "the view kept")
        assert len(log.entries) <= WINDOW_BOUND, f"scrolling down must let the oldest entries go ({len(log.entries)})"
    raise AssertionError(f"still more below after {most} scrolls")


class Built:
    """What an app on the real engine built, for tests that look past the UI (the agent, its MCP servers)."""

    def __init__(self, app: TuiAgentApp) -> None:
        self.app = app

    @property
    def agent(self) -> Agent | None:
        """The agent once the app has built it."""
        engine = self.app.engine_slot.ready
        return engine.agent if isinstance(engine, BuiltAgent) else None

    @property
    def mcp_servers(self) -> McpServers | None:
        engine = self.app.engine_slot.ready
        return engine.mcp_servers if isinstance(engine, BuiltAgent) else None

    async def ready(self) -> Agent:
        """Wait for the build (as a screen does) and return the agent."""
        await self.app.engine()
        assert self.agent is not None
        return self.agent


def app_on_real_agent(settings: Settings, choice: EndpointChoice) -> tuple[TuiAgentApp, Built]:
    """The app on a real agent built (after the first frame, as `tui-agent` does) from `settings` and `choice`."""
    app = TuiAgentApp(
        lambda: build_agent(settings, choice),
        model=choice.model,
        endpoint=choice.label,
        clock=lambda: FIXED_NOW,
        cursor_blink=False,
        settings=settings,
    )
    return app, Built(app)
