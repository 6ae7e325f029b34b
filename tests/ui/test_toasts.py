"""Notices hide nothing: toasts sit at the top of the conversation, short, never over the prompt, the status
line, the task tree or the tool column (at 100×30 they covered half the chat); errors stay up until read; the
offline model's launch notice is the conversation's first line."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.widget import Widget

from tests.ui.helpers import FIXED_NOW, chat, make_app, send, task_tree, wait_until
from tui_agent.agent.endpoint import OFFLINE_NOTICE, EndpointChoice
from tui_agent.agent.services import BuiltAgent, build_agent
from tui_agent.config import Settings
from tui_agent.ui.app import ERROR_TIMEOUT, TuiAgentApp
from tui_agent.ui.screens.chat import ChatScreen
from tui_agent.ui.textual_private import Toast, notifications
from tui_agent.ui.widgets.messages import SystemLine, UserMessage

LAUNCH_NOTICES = [  # (the offline model's notice is a line in the conversation, tested below)
    "Plugin problem: weather.py: it failed to import (ModuleNotFoundError: No module named 'requests').",
    "History was recovered from a damaged file; the damaged copy was kept next to it.",
]


def misplaced(screen: ChatScreen, *covered: Widget, short: bool = True) -> list[str]:
    """What is wrong with where the toasts sit (nothing: each over the conversation, covering none of
    `covered`, and with `short` a line or three)."""
    log, wrong = screen.chat_log.region, []
    for toast in screen.query(Toast):
        region = toast.region
        if not region:
            wrong.append("a toast not laid out yet")
        wrong += [f"a toast covers {widget.id}: {region}" for widget in covered if region.overlaps(widget.region)]
        if not log.contains_region(region):
            wrong.append(f"{region} is not over the conversation {log}")
        if short and region.height > 3:
            wrong.append(f"{region}: a one-sentence notice takes a line or three, not a block")
    return wrong


async def test_launch_notices_cover_neither_prompt_nor_tool_column_at_100x30() -> None:
    app, _ = make_app(notices=LAUNCH_NOTICES)
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await wait_until(pilot, lambda: len(app.screen.query(Toast)) == len(LAUNCH_NOTICES), "the toasts shown")
        screen = chat(pilot)
        column = screen.tool_panels
        column.unfold()  # as the first call does: the toasts already up make room for it (after a frame or two)
        covered = (screen.prompt_input, column, screen.status_bar)
        await wait_until(
            pilot,
            lambda: column.region.width > 0 and not misplaced(screen, *covered),
            lambda: (
                f"the column shown ({column.region}), the toasts over the conversation: {misplaced(screen, *covered)}"
            ),
        )


async def test_errors_stay_up_longer_than_information() -> None:
    app, _ = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        app.notify("Saved.")
        app.notify("Could not write the export.", severity="error")
        await wait_until(pilot, lambda: len(notifications(app)) == 2, "both notified")
        timeouts = {n.severity: n.timeout for n in notifications(app)}
        assert timeouts["error"] >= ERROR_TIMEOUT > timeouts["information"]


async def test_a_toast_shown_with_the_task_tree_open_stays_over_the_conversation() -> None:
    app, _ = make_app()
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        tree = await task_tree(pilot)
        await pilot.press("ctrl+b")  # the tool column, which waits folded for a first call
        await pilot.press("ctrl+t")
        await wait_until(pilot, lambda: tree.display and tree.size.width > 0, "the task tree shown")
        app.notify("A notice while the task tree is open, long enough to wrap onto a second line of its toast.")
        screen = chat(pilot)
        await wait_until(  # the tree's own hint too; laid out a frame after it is mounted
            pilot,
            lambda: bool(screen.query(Toast)) and not misplaced(screen, tree, screen.tool_panels, short=False),
            lambda: f"the toasts over the conversation: {misplaced(screen, tree, screen.tool_panels, short=False)}",
        )


async def test_the_offline_model_notice_is_a_line_in_the_conversation_not_a_toast(tmp_path: Path) -> None:
    settings = Settings(db=tmp_path / "history.db")
    choice = EndpointChoice(None, "offline")
    prompted = asyncio.Event()

    async def build() -> BuiltAgent:  # the engine comes (and says who answers) once a prompt is sent
        await prompted.wait()
        return await build_agent(settings, choice)

    app = TuiAgentApp(build, model=choice.model, endpoint=choice.label, clock=lambda: FIXED_NOW, cursor_blink=False)
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        screen = chat(pilot)
        await send(pilot, "hello", wait=False)  # typed within a second of start: before the engine is there
        await wait_until(pilot, lambda: bool(screen.query(UserMessage)), "the prompt shown")
        prompted.set()
        await wait_until(pilot, lambda: bool(screen.query(SystemLine)), "the offline model's line")
        (line,) = screen.query(SystemLine)
        assert OFFLINE_NOTICE in str(line.render())
        assert screen.chat_log.entries[0] is line  # the conversation's first line, above the prompt sent before it
        assert not [n for n in notifications(app) if OFFLINE_NOTICE in n.message]
        await wait_until(pilot, lambda: screen.idle and bool(screen.chat_log.assistant_messages), "the reply")
        assert screen.chat_log.entries[0] is line  # the first line of the conversation stays first


async def test_a_notice_shows_once_while_a_dialog_is_open_and_again_after() -> None:
    from tui_agent.ui.screens.help import HelpScreen

    app, _ = make_app()
    async with app.run_test(size=(160, 45), notifications=True) as pilot:
        screen = chat(pilot)
        app.notify("A reply is still running: press Esc to stop it first.", timeout=60)
        await wait_until(pilot, lambda: bool(screen.query(Toast)), "the notice shown")
        await pilot.press("f1")  # the help screen shows it in its own rack, at its own place
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen) and bool(app.screen.query(Toast)), "help")
        await pilot.pause()
        shown = [toast for s in app.screen_stack for toast in s.query(Toast) if toast.display and toast.region]
        assert len(shown) == 1 and shown[0].screen is app.screen, "the notice drawn twice, at two places"
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is screen, "help closed")
        await wait_until(pilot, lambda: any(toast.region for toast in screen.query(Toast)), "the notice back")
