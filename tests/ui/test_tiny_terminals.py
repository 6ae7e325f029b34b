"""Every terminal size from 1x1 up, at any moment, is survived: while a reply streams, with tool panels,
the approval dialog, the task tree, the help screen and the sessions screen on screen.

The real engine (offline model over HTTP, real agent, real SQLite file) streams a slow markdown reply; the
test resizes through tiny sizes and back at each stage. Before, 2 columns while streaming raised
`ValueError: range() arg 3 must not be zero`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

from textual.app import App
from textual.command import CommandPalette
from textual.pilot import Pilot

from tests.ui import test_real_stack
from tests.ui.helpers import chat, chat_idle, send, showing, wait_until
from tests.ui.test_real_stack import PLUGINS, MakeApp, history
from tui_agent.offline.scenario import Scenario
from tui_agent.status import MessageStatus
from tui_agent.ui.screens.approval import ApprovalScreen
from tui_agent.ui.screens.chat import ChatScreen
from tui_agent.ui.screens.help import HelpScreen
from tui_agent.ui.screens.sessions import SessionsScreen

real_app = test_real_stack.real_app


def sessions_listed(app: App[None]) -> bool:
    """The sessions screen is shown with a session highlighted (listed a moment after the screen shows)."""
    return showing(app, SessionsScreen) and cast(SessionsScreen, app.screen).highlighted is not None


"""The app on the real engine (a fixture shared with test_real_stack.py)."""

TINY = [(1, 1), (2, 1), (1, 2), (2, 2), (3, 3), (5, 2), (2, 5), (10, 3), (20, 5), (40, 10), (80, 24)]
SIZES = [*TINY, *reversed(TINY[:-1]), (120, 36)]
"""Down to 1x1, back up, down again and back to a normal size."""
MARKDOWN = (
    "# A heading that is long enough to wrap\n\n- a list item with `code` in it\n- another item\n\n"
    "```python\nprint('a code block with a long line that has to be cut or wrapped somewhere')\n```\n\n"
    "| a table | with | columns |\n|---|---|---|\n| 1 | 2 | 3 |\n\n> a quote\n\n"
)
SLOW = {"chunk_size": 4, "chunk_delay": 0.01}
SCENARIO: dict[str, Any] = {
    "replies": [
        {
            "text": MARKDOWN,
            **SLOW,
            "tool_calls": [
                {"name": "slow_echo", "arguments": {"text": "hi", "seconds": 1}},
                {"name": "careful_echo", "arguments": {"text": "hi"}},
            ],
        },
        {"text": MARKDOWN * 4, **SLOW},
    ]
}


async def shrink_and_grow(pilot: Pilot[None]) -> None:
    for size in SIZES:
        await pilot.resize_terminal(*size)
        await pilot.pause(0.02)


async def test_every_size_survives_every_stage(real_app: MakeApp, tmp_path: Path) -> None:
    scenario = Scenario.model_validate(SCENARIO)
    app, _ = real_app(scenario, plugin_dirs=[PLUGINS])
    async with app.run_test(size=(120, 36)) as pilot:
        log = chat(pilot).chat_log  # looked up now: the approval dialog may cover the chat screen at any moment
        await send(pilot, "tell me everything", wait=False)
        await wait_until(pilot, lambda: bool(log.assistant_messages), "the reply started")
        await shrink_and_grow(pilot)  # streaming text and tool panels
        await wait_until(pilot, lambda: showing(app, ApprovalScreen), "the approval dialog")
        await shrink_and_grow(pilot)
        await pilot.press("a")
        await wait_until(pilot, lambda: len(log.assistant_messages) > 1, "the second reply")
        await pilot.press("ctrl+t")  # the task tree, while the second reply streams
        await shrink_and_grow(pilot)
        await pilot.press("ctrl+t")
        scenario.replies[1].chunk_delay = 0.0  # the rest of the second reply at once (the server reads it per chunk)
        await wait_until(pilot, lambda: chat_idle(pilot), "the turn finished")
        await pilot.press("f1")
        await wait_until(pilot, lambda: showing(app, HelpScreen), "the help screen")
        await shrink_and_grow(pilot)
        await pilot.press("escape")
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: showing(app, SessionsScreen), "the sessions screen")
        await shrink_and_grow(pilot)
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, SessionsScreen), "back to the chat")
        assert app.is_running
    statuses = [message.status for message in await history(tmp_path / "history.db")]
    assert statuses and set(statuses) == {MessageStatus.COMPLETE}


async def test_every_size_survives_the_dialogs(real_app: MakeApp) -> None:
    """The command palette (searching), the session dialogs, an expanded tool result and a notification."""
    app, _ = real_app(
        {
            "replies": [
                {
                    "text": "hello",
                    "tool_calls": [{"name": "slow_echo", "arguments": {"text": "a long result " * 40, "seconds": 0}}],
                },
                {"text": "done"},
            ]
        },
        plugin_dirs=[PLUGINS],
    )
    async with app.run_test(size=(120, 36)) as pilot:
        await send(pilot, "tell me everything")
        panel = chat(pilot).tool_panels.panels[0]
        panel.focus()  # the focus moves a moment later: wait before the key
        await wait_until(pilot, lambda: panel.has_focus, "the panel focused")
        await pilot.press("enter")  # the whole result
        await wait_until(pilot, lambda: panel.expanded, "the whole result shown")
        app.notify("a notification long enough to wrap " * 3, timeout=60)
        await shrink_and_grow(pilot)
        await pilot.press("ctrl+p")
        await wait_until(pilot, lambda: showing(app, CommandPalette), "the palette")
        await pilot.press("t", "h", "e")
        await shrink_and_grow(pilot)
        await pilot.press("escape")
        await wait_until(pilot, lambda: showing(app, ChatScreen), "the palette closed")
        await pilot.press("ctrl+s")
        await wait_until(
            pilot,
            lambda: sessions_listed(app),
            "the sessions screen with this session listed",
        )
        for key in ("ctrl+r", "ctrl+f", "ctrl+d"):  # rename, fork (a list of messages), delete
            await pilot.press(key)
            await wait_until(pilot, lambda: not isinstance(app.screen, SessionsScreen), f"the {key} dialog")
            await shrink_and_grow(pilot)
            await pilot.press("escape")
            await wait_until(
                pilot,
                lambda: sessions_listed(app),
                "back to the sessions, one highlighted",
            )
        assert app.is_running
