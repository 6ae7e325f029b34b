"""Forking from the session screen while a reply streams is refused before anything is made, on the real stack
(SQLite file, real agent, offline model over HTTP): the fork could not be opened until the reply ends, and was
left behind in history, a stray session nobody asked to keep."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.ui.helpers import chat, send, showing, wait_until
from tests.ui.sessions_stack import RealStack, stack_serving, stored
from tui_agent.ui.screens.session_dialogs import ForkScreen
from tui_agent.ui.screens.sessions import BUSY_FORK, SessionsScreen
from tui_agent.ui.textual_private import notifications

SIZE = (130, 40)
SLOW = {"text": "A long reply that takes its time. " * 60, "chunk_size": 8, "chunk_delay": 0.02}


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[RealStack]:
    yield from stack_serving(tmp_path, {"replies": [SLOW]})


async def test_fork_while_a_reply_streams_is_refused_and_makes_no_session(stack: RealStack) -> None:
    app, _ = stack.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = chat(pilot)
        await send(pilot, "tell me a long story", wait=False)
        await wait_until(
            pilot,
            lambda: bool(screen.chat_log.assistant_messages) and bool(screen.chat_log.assistant_messages[0].text),
            "the reply streaming",
        )
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: showing(app, SessionsScreen) and bool(app.screen.sessions), "listed")  # type: ignore[attr-defined]
        await pilot.press("ctrl+f")
        said: Callable[[], bool] = lambda: any(BUSY_FORK in n.message for n in notifications(app))  # noqa: E731
        await wait_until(pilot, lambda: said() or showing(app, ForkScreen), "an answer to Ctrl+F")
        if showing(app, ForkScreen):  # offered (as before): choosing a message must still make nothing
            await pilot.press("enter")
            await wait_until(pilot, lambda: not showing(app, ForkScreen), "the dialog answered")
        await wait_until(pilot, lambda: any(n.severity != "information" for n in notifications(app)), "a refusal")
        assert len((await stored(stack.db))[0]) == 1  # the session being written, and no fork beside it
        assert said() and screen.busy  # refused, saying why; the reply goes on
    sessions, _ = await stored(stack.db)
    assert [s.title for s in sessions] == ["tell me a long story"]
