"""Opening a session from a search hit on the session screen lands at the hit: the message found is drawn at
the top of the view and marked, not the end of the session (issue 26). In-process, on the scripted backend."""

from __future__ import annotations

from datetime import UTC, datetime

from tests.ui.helpers import chat, make_app, showing, wait_until
from tui_agent.history.models import Message
from tui_agent.status import MessageStatus, Role
from tui_agent.ui.screens.sessions import SessionsScreen
from tui_agent.ui.widgets.chat_log import ChatLog
from tui_agent.ui.widgets.messages import AssistantMessage

WHEN = datetime(2026, 11, 20, 9, 30, tzinfo=UTC)
EXCHANGES = 60
"""Prompts and replies in the long session: 120 messages, four of the history view's pages."""
FOUND_AT = 5
"""The exchange whose reply holds the word searched for (on the session's oldest page)."""


def long_session() -> list[Message]:
    messages: list[Message] = []
    for n in range(EXCHANGES):
        reply = "The axolotl keeps its gills all its life." if n == FOUND_AT else f"Reply {n}.\n\n" + "More. " * 40
        for role, text in ((Role.USER, f"Question {n}?"), (Role.ASSISTANT, reply)):
            position = len(messages)
            messages.append(
                Message(f"m{position}", "", position, role, text, MessageStatus.COMPLETE, None, None, None, WHEN, WHEN)
            )
    return messages


async def test_a_search_hit_opens_its_session_at_the_hit_marked() -> None:
    app, backend = make_app()
    backend.add_session("Pond life", long_session(), updated_at=WHEN)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: chat(pilot).is_active, "the chat screen")
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: showing(app, SessionsScreen), "the session screen")
        screen = app.screen
        assert isinstance(screen, SessionsScreen)
        await pilot.press(*"axolotl")
        await wait_until(pilot, lambda: len(screen.sessions) == 1 and bool(screen.hits), "the hit listed")
        await pilot.press("enter")

        def found() -> AssistantMessage | None:
            if showing(app, SessionsScreen) or not app.screen.query("#chat-log"):
                return None
            marked = app.screen.query_one(ChatLog).query(".-found")
            return marked.first(AssistantMessage) if marked else None

        await wait_until(pilot, lambda: found() is not None, "the hit's message marked")
        log = app.screen.query_one(ChatLog)
        hit = found()
        assert hit is not None and hit.message_id == f"m{2 * FOUND_AT + 1}"
        await wait_until(pilot, lambda: hit.region.height > 0 and log.region.contains_region(hit.region), "in view")
        assert log.scroll_y < log.max_scroll_y  # not at the end of the session
        assert len(app.screen.query(".-found")) == 1
