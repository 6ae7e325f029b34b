"""The session screen's filter finds sessions in the whole history, a page at a time, on the real stack (a
SQLite history of 320 sessions, the real agent, the offline model over HTTP).

Before, it looked only among the 200 newest sessions (and at the best 50 matching messages), so with a big
history a word found in 150 old sessions listed none of them, while `tui-agent sessions search` found them.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.pilot import Pilot

from tests.ui.helpers import chat, showing, wait_until
from tests.ui.sessions_stack import RealStack, stack_serving
from tui_agent.history.store import HistoryStore
from tui_agent.status import MessageStatus
from tui_agent.ui.screens.sessions import PAGE, SessionsScreen

SIZE = (130, 40)
SESSIONS = 320
OLD_MATCHES = 150
"""The oldest sessions talk about zebras; the 170 newer ones (more than a page, and than 200) do not."""


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[RealStack]:
    yield from stack_serving(tmp_path)


async def seed_history(db: Path) -> list[str]:
    """The sessions, oldest first (each a prompt and its reply); returns the titles of those about zebras."""
    store = await HistoryStore.open(db)
    try:
        for number in range(SESSIONS):
            animal = "zebra" if number < OLD_MATCHES else "horse"
            session = await store.create_session(f"Chat {number}", model="scripted")
            _, reply = await store.begin_turn(session.id, f"Tell me about the {animal}, number {number}")
            await store.finish_message(reply.id, MessageStatus.COMPLETE, content=f"The {animal} is an animal.")
    finally:
        await store.close()
    return [f"Chat {number}" for number in range(OLD_MATCHES)]


def listed(screen: SessionsScreen) -> list[str]:
    return [session.title for session in screen.sessions.values()]


async def filtered(pilot: Pilot[None], text: str) -> SessionsScreen:
    await wait_until(pilot, lambda: chat(pilot).is_active, "the chat screen")
    await pilot.press("ctrl+s")
    await wait_until(pilot, lambda: showing(pilot.app, SessionsScreen), "the session screen")
    screen = pilot.app.screen
    assert isinstance(screen, SessionsScreen)
    await wait_until(pilot, lambda: bool(screen.sessions), "the newest sessions listed")
    await pilot.press(*text)
    return screen


async def test_the_filter_finds_old_sessions_in_a_big_history_a_page_at_a_time(stack: RealStack) -> None:
    about_zebras = await seed_history(stack.db)
    app, _ = stack.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await filtered(pilot, "zebra")
        await wait_until(
            pilot,
            lambda: len(screen.sessions) == PAGE and set(listed(screen)) <= set(about_zebras),
            lambda: f"a page of the old sessions about zebras, listed: {listed(screen)[:5]}…",
        )
        assert "Chat 149" in listed(screen)  # newest first
        snippet = screen.option_list.get_option_at_index(0).prompt
        assert "[zebra]" in getattr(snippet, "plain", str(snippet))  # found in its messages: the match shown
        for pages in range(2, -(-OLD_MATCHES // PAGE) + 1):
            screen.option_list.highlighted = len(screen.sessions) - 1  # read down to the last one listed
            want = min(pages * PAGE, OLD_MATCHES)
            await wait_until(pilot, lambda want=want: len(screen.sessions) == want, f"{want} listed")  # type: ignore[misc]
        assert len(screen.sessions) == OLD_MATCHES  # all of them, and no page more
        assert sorted(listed(screen)) == sorted(about_zebras)
        await pilot.press("enter")  # the highlighted one, among the oldest: opened
        await wait_until(pilot, lambda: chat(pilot).is_active and bool(chat(pilot).chat_log.entries), "opened")


async def test_the_list_without_a_filter_reads_the_next_page_when_scrolled_to_its_end(stack: RealStack) -> None:
    await seed_history(stack.db)
    app, _ = stack.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await filtered(pilot, "")
        assert listed(screen)[0] == f"Chat {SESSIONS - 1}" and len(screen.sessions) == PAGE
        for pages in range(2, -(-SESSIONS // PAGE) + 1):
            screen.option_list.scroll_end(animate=False)
            want = min(pages * PAGE, SESSIONS)
            await wait_until(pilot, lambda want=want: len(screen.sessions) == want, f"{want} listed")  # type: ignore[misc]
        assert listed(screen)[-1] == "Chat 0"
