"""The session screen on the real stack: SQLite history file, real agent, scripted offline model over HTTP.

Listing (title, last activity, model, message count), filter-as-you-type with full-text search, open,
rename, fork from a chosen message, delete with confirmation, new session and export.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.content import Content
from textual.pilot import Pilot
from textual.widgets import Input, OptionList

from tests.ui.helpers import chat, send, showing, wait_until
from tests.ui.sessions_stack import Call, RealStack, Turn, api_messages, real_stack, seed, stored
from tui_agent import paths
from tui_agent.agent.resume import ResumeRequest
from tui_agent.history.attachments import Attachment
from tui_agent.history.models import Usage
from tui_agent.history.store import HistoryStore
from tui_agent.prices import PriceTable, format_cost
from tui_agent.status import MessageStatus, Role, ToolStatus
from tui_agent.ui.screens.session_dialogs import ConfirmDeleteScreen, ForkScreen, RenameScreen
from tui_agent.ui.screens.sessions import SessionsScreen
from tui_agent.ui.textual_private import notifications
from tui_agent.ui.widgets.messages import UserMessage

SIZE = (130, 40)
WEATHER = [
    Turn(
        "What's the weather in Oslo?",
        "Oslo is cloudy, 9 °C.",
        calls=(
            Call("call_w1", "get_current_weather", {"location": "Oslo"}, ToolStatus.DONE, result="Oslo: cloudy, 9 °C"),
        ),
    ),
    Turn("And tomorrow?", "Tomorrow looks like rain in Oslo."),
]
RECIPES = [Turn("How do I bake sourdough?", "Feed the starter, then knead and proof overnight.")]


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[RealStack]:
    with real_stack(tmp_path, "Noted.") as running:
        yield running


def plain(prompt: Any) -> str:
    return prompt.plain if isinstance(prompt, Content) else str(prompt)


def sessions_screen(pilot: Pilot[None]) -> SessionsScreen:
    screen = pilot.app.screen
    assert isinstance(screen, SessionsScreen), f"expected the session screen, got {screen!r}"
    return screen


def rows(pilot: Pilot[None]) -> list[str]:
    options = pilot.app.screen.query_one("#session-list", OptionList)
    return [plain(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


async def open_sessions(pilot: Pilot[None], expected_rows: int) -> SessionsScreen:
    await wait_until(pilot, lambda: pilot.app.screen.is_active, "chat screen")
    await pilot.press("ctrl+s")
    await wait_until(
        pilot,
        lambda: isinstance(pilot.app.screen, SessionsScreen) and len(sessions_screen(pilot).sessions) == expected_rows,
        f"{expected_rows} sessions listed",
    )
    return sessions_screen(pilot)


async def type_filter(pilot: Pilot[None], text: str, until: Any) -> None:
    screen = sessions_screen(pilot)
    screen.query_one(Input).value = ""
    await pilot.press(*text)
    field = screen.query_one(Input)  # `until` must not hold for the list shown before (it is filtered anew)
    await wait_until(pilot, lambda: field.value == text and until(screen), f"filter {text!r} applied")
    await pilot.pause()


def titles(screen: SessionsScreen) -> list[str]:
    return [session.title for session in screen.sessions.values()]


async def back_in_chat(pilot: Pilot[None], first_prompt: str | None) -> None:
    def ready() -> bool:
        try:
            users = chat(pilot).query(UserMessage)
        except AssertionError:
            return False
        shown = [user.prompt for user in users]
        return (not shown) if first_prompt is None else first_prompt in shown

    await wait_until(pilot, ready, f"chat showing {first_prompt!r}")


async def test_list_shows_title_last_activity_agent_model_count_cost_and_last_reply(stack: RealStack) -> None:
    weather = await seed(stack.db, "Weather in Oslo", WEATHER, model="gpt-test")
    await seed(stack.db, "Bread", RECIPES, model="other-model")
    with sqlite3.connect(stack.db) as conn:  # an earlier run's usage (priced) and agent
        conn.execute(
            "UPDATE messages SET prompt_tokens = 1000, completion_tokens = 500, model = 'gpt-4o-mini' "
            "WHERE session_id = ? AND role = 'assistant'",
            (weather.id,),
        )
        conn.execute("UPDATE sessions SET agent = 'researcher' WHERE id = ?", (weather.id,))
    cost = format_cost(PriceTable.with_overrides().cost("gpt-4o-mini", Usage(2000, 1000, 0)))
    app, _ = stack.app()
    async with app.run_test(size=(160, 40)) as pilot:
        await open_sessions(pilot, 2)
        first, second = rows(pilot)
        await pilot.resize_terminal(80, 24)  # the least useful details give way to the title
        await wait_until(pilot, lambda: rows(pilot)[1] != second, "rows fitted to 80 columns")
        narrow = rows(pilot)[1].splitlines()[0]
    assert narrow.startswith("  Weather in Oslo") and narrow.endswith(f"researcher · gpt-test · {cost} · just now"), (
        narrow
    )
    assert len(narrow) <= 78
    title, reply = first.splitlines()
    assert title.startswith("  Bread") and title.endswith("other-model · 2 messages · just now")  # most recent first
    assert reply.strip() == "Feed the starter, then knead and proof overnight."  # its last reply
    title, reply = second.splitlines()
    assert title.startswith("  Weather in Oslo")
    assert title.endswith(f"researcher · gpt-test · 4 messages · {cost} · just now"), title
    assert reply.strip() == "Tomorrow looks like rain in Oslo."


async def test_typing_filters_by_title_and_by_message_text(stack: RealStack) -> None:
    await seed(stack.db, "Weather in Oslo", WEATHER)
    await seed(stack.db, "Bread", RECIPES)
    app, _ = stack.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_sessions(pilot, 2)
        # "sourdough" is only in a message of "Bread": found by full-text search, shown with a snippet.
        await type_filter(pilot, "sourdough", lambda s: len(s.sessions) == 1)
        (row,) = rows(pilot)
        assert row.startswith("  Bread") and "sourdough" in row.splitlines()[-1].lower()
        # Words of a title match too.
        await type_filter(pilot, "oslo", lambda s: titles(s) == ["Weather in Oslo"])  # the list said Bread
        assert rows(pilot)[0].startswith("  Weather in Oslo  ")
        await type_filter(pilot, "submarine", lambda s: not s.sessions)
        assert rows(pilot) == ["No session matches."]
        await type_filter(pilot, "", lambda s: len(s.sessions) == 2)
        assert screen.is_active


async def test_open_shows_the_session_and_continues_it(stack: RealStack) -> None:
    weather = await seed(stack.db, "Weather in Oslo", WEATHER)
    await seed(stack.db, "Bread", RECIPES)
    app, backend = stack.app()
    async with app.run_test(size=SIZE) as pilot:
        await open_sessions(pilot, 2)
        await type_filter(pilot, "oslo", lambda s: len(s.sessions) == 1)
        await pilot.press("enter")
        await back_in_chat(pilot, "And tomorrow?")
        screen = chat(pilot)
        assert [p.call.call_id for p in screen.tool_panels.panels] == ["call_w1"]
        bar = screen.status_bar  # the title is said once the page is mounted, or once the engine has the session
        await wait_until(pilot, lambda: "Weather in Oslo" in bar.title, lambda: f"the title shown ({bar.title!r})")
        await send(pilot, "Thanks!")
        assert (await backend.ready()).current_session_id == weather.id
    (body,) = stack.chat_requests()
    # The seeded reply holds its text and its call in one message, so nothing answered after the tool result:
    # a placeholder reply keeps the roles alternating for strict servers.
    assert [m[0] for m in api_messages(body)] == ["user", "assistant", "tool", "assistant", "user", "assistant", "user"]
    assert api_messages(body)[1][2] == ["call_w1"] and api_messages(body)[2][1] == "call_w1"
    _, messages = await stored(stack.db, weather.id)
    assert [m.content for m in messages[-2:]] == ["Thanks!", "Noted."]


async def test_rename(stack: RealStack) -> None:
    weather = await seed(stack.db, "Weather in Oslo", WEATHER)
    app, _ = stack.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_sessions(pilot, 1)
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: showing(app, RenameScreen), "rename dialog")
        app.screen.query_one(Input).value = ""
        await pilot.press(*"Oslo forecast", "enter")
        await wait_until(pilot, lambda: screen.is_active and rows(pilot)[0].startswith("  Oslo forecast"), "renamed")
        # Esc in the dialog keeps the title.
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: showing(app, RenameScreen), "rename dialog again")
        await pilot.press(*" nope", "escape")
        await wait_until(pilot, lambda: screen.is_active, "dialog closed")
        await pilot.pause()
        assert rows(pilot)[0].startswith("  Oslo forecast  ")
    (session,), _ = await stored(stack.db)
    assert (session.id, session.title) == (weather.id, "Oslo forecast")


async def test_fork_from_a_chosen_message_opens_the_fork(stack: RealStack) -> None:
    weather = await seed(stack.db, "Weather in Oslo", WEATHER)
    app, backend = stack.app()
    async with app.run_test(size=SIZE) as pilot:
        await open_sessions(pilot, 1)
        await pilot.press("ctrl+f")
        await wait_until(pilot, lambda: showing(app, ForkScreen), "fork dialog")
        fork_screen = app.screen
        assert isinstance(fork_screen, ForkScreen)
        assert [m.role for m in fork_screen.messages] == [Role.USER, Role.ASSISTANT] * 2
        await pilot.press("up", "up", "enter")  # from the last message up to the first reply
        await back_in_chat(pilot, "What's the weather in Oslo?")
        screen = chat(pilot)
        assert "And tomorrow?" not in [u.prompt for u in screen.query(UserMessage)]
        assert [p.call.call_id for p in screen.tool_panels.panels] == ["call_w1"]
        fork_id = (await backend.ready()).current_session_id
        assert fork_id is not None and fork_id != weather.id
        await send(pilot, "Is it windy?")
    sessions, fork_messages = await stored(stack.db, fork_id)
    fork = next(s for s in sessions if s.id == fork_id)
    assert fork.parent_session_id == weather.id and fork.title == "Is it windy?"  # named by its own first prompt
    assert [m.content for m in fork_messages] == [
        "What's the weather in Oslo?",
        "Oslo is cloudy, 9 °C.",
        "Is it windy?",
        "Noted.",
    ]
    assert fork_messages[1].tool_calls[0].result == "Oslo: cloudy, 9 °C"
    _, original = await stored(stack.db, weather.id)
    assert len(original) == 4  # the source is untouched
    (body,) = stack.chat_requests()
    assert [m[0] for m in api_messages(body)] == ["user", "assistant", "tool", "assistant", "user"]


async def test_delete_asks_first(stack: RealStack) -> None:
    weather = await seed(stack.db, "Weather in Oslo", WEATHER)
    await seed(stack.db, "Bread", RECIPES)
    app, _ = stack.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_sessions(pilot, 2)
        await pilot.press("down", "ctrl+d")
        await wait_until(pilot, lambda: showing(app, ConfirmDeleteScreen), "confirmation")
        assert "Weather in Oslo" in str(app.screen.query_one("Static").render())
        await pilot.press("n")
        await wait_until(pilot, lambda: screen.is_active, "kept")
        await pilot.pause()
        assert len(screen.sessions) == 2
        await pilot.press("ctrl+d")
        await wait_until(pilot, lambda: showing(app, ConfirmDeleteScreen), "confirmation again")
        await pilot.press("y")
        await wait_until(pilot, lambda: screen.is_active and len(screen.sessions) == 1, "deleted")
        assert rows(pilot)[0].startswith("  Bread")
    sessions, _ = await stored(stack.db)
    assert weather.id not in [s.id for s in sessions] and len(sessions) == 1


async def test_deleting_the_open_session_leaves_a_fresh_chat(stack: RealStack) -> None:

    weather = await seed(stack.db, "Weather in Oslo", WEATHER)
    app, backend = stack.app(ResumeRequest(session_id=weather.id))
    async with app.run_test(size=SIZE) as pilot:
        await back_in_chat(pilot, "And tomorrow?")
        screen = await open_sessions(pilot, 1)
        assert rows(pilot)[0].startswith("● Weather in Oslo")  # the open one is marked
        await pilot.press("ctrl+d")
        await wait_until(pilot, lambda: showing(app, ConfirmDeleteScreen), "confirmation")
        await pilot.press("y")
        await wait_until(pilot, lambda: screen.is_active and not screen.sessions, "deleted")
        assert rows(pilot) == ["No sessions yet: your first prompt starts one."]
        await pilot.press("escape")
        await back_in_chat(pilot, None)
        assert not chat(pilot).tool_panels.panels
        await send(pilot, "Start over")
        assert (await backend.ready()).current_session_id not in (None, weather.id)
    sessions, messages = await stored(stack.db)
    assert [s.title for s in sessions] == ["Start over"] and len(messages) == 2


async def test_new_session_title_comes_from_the_first_prompt_without_a_model_request(stack: RealStack) -> None:
    app, backend = stack.app()
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "\n  Plan a three-day trip to Lisbon with a focus on food, tiles and old trams please\nmore")
        engine, bar = await backend.ready(), chat(pilot).status_bar
        await wait_until(pilot, lambda: bar.title == engine.session_title, lambda: f"{bar.title!r} named")
    assert len(stack.chat_requests()) == 1  # the reply only: no request to name the session
    (session,), _ = await stored(stack.db)
    assert session.title == "Plan a three-day trip to Lisbon with a focus on food, tiles…"


async def test_new_session_and_export(stack: RealStack, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tui_agent.ui.session_actions import export_current

    await seed(stack.db, "Weather in Oslo", WEATHER)
    monkeypatch.chdir(tmp_path)
    app, backend = stack.app(ResumeRequest(latest=True))
    async with app.run_test(size=SIZE) as pilot:
        await back_in_chat(pilot, "And tomorrow?")
        target = await export_current(app)
        assert target is not None and target.parent == paths.data_dir() / "exports"  # not the current directory
        assert target.name.startswith("weather-in-oslo-")
        text = target.read_text(encoding="utf-8")
        assert "get_current_weather" in text and "Oslo: cloudy, 9 °C" in text
        await app.run_action("new_session")
        await back_in_chat(pilot, None)
        assert (await backend.ready()).current_session_id is None
        assert await export_current(app) is None  # nothing to export yet: said in a notification
        await wait_until(pilot, lambda: any("Nothing to export" in n.message for n in notifications(app)), "said")


async def test_session_screen_opens_once_and_esc_goes_back(stack: RealStack) -> None:
    await seed(stack.db, "Bread", RECIPES)
    app, _ = stack.app()
    async with app.run_test(size=SIZE) as pilot:
        await open_sessions(pilot, 1)
        await app.run_action("sessions")
        await pilot.pause()
        assert sum(isinstance(s, SessionsScreen) for s in app.screen_stack) == 1
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, SessionsScreen), "back in chat")
        assert chat(pilot).is_active


def other_program(db: Path, sql: str) -> None:
    """Change the history file behind the app's back, as another program (or a person with sqlite3) would."""
    connection = sqlite3.connect(db, isolation_level=None)
    try:
        connection.execute(sql)
    finally:
        connection.close()


def notified(pilot: Pilot[None], *words: str) -> bool:
    return any(all(word in note.message for word in words) for note in notifications(pilot.app))


async def test_a_refused_rename_is_said_and_the_title_kept(stack: RealStack) -> None:
    """The rename's worker raises; the app's one worker handler says why (nothing else catches it)."""
    await seed(stack.db, "Weather in Oslo", WEATHER)
    app, _ = stack.app()
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await open_sessions(pilot, 1)
        other_program(
            stack.db,
            "CREATE TRIGGER no_renames BEFORE UPDATE OF title ON sessions "
            "BEGIN SELECT RAISE(ABORT, 'renames are switched off here'); END",
        )
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: showing(app, RenameScreen), "rename dialog")
        app.screen.query_one(Input).value = ""
        await pilot.press(*"Oslo forecast", "enter")
        await wait_until(pilot, lambda: notified(pilot, "could not be used", "renames are switched off"), "the refusal")
        assert screen.is_active and rows(pilot)[0].startswith("  Weather in Oslo  ")
        assert not notified(pilot, "Renamed")


async def test_a_session_action_failing_outside_its_own_checks_is_said(stack: RealStack) -> None:
    """Fork reads the session's messages before asking where to fork: that read failing was silent."""
    await seed(stack.db, "Weather in Oslo", WEATHER)
    app, _ = stack.app()
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await open_sessions(pilot, 1)
        other_program(stack.db, "ALTER TABLE messages RENAME TO messages_elsewhere")
        await pilot.press("ctrl+f")
        await wait_until(pilot, lambda: notified(pilot, "could not be used", "messages"), "the failure said")
        assert screen.is_active and not isinstance(app.screen, ForkScreen)
        other_program(stack.db, "ALTER TABLE messages_elsewhere RENAME TO messages")  # for the app's exit


async def _seed_with_attachments(db: Path, title: str, *attachments: Attachment) -> str:
    store = await HistoryStore.open(db)
    try:
        session = await store.create_session(title, model="scripted")
        _, reply = await store.begin_turn(session.id, "Look at these", model="scripted", attachments=attachments)
        await store.finish_message(reply.id, MessageStatus.COMPLETE, content="Seen.")
        return session.id
    finally:
        await store.close()


def stored_attachments(db: Path) -> set[str]:
    with sqlite3.connect(db) as conn:
        return {name for (name,) in conn.execute("SELECT hash FROM attachments")}


async def delete_selected(pilot: Pilot[None], screen: SessionsScreen, left: int) -> None:
    await pilot.press("ctrl+d")
    await wait_until(pilot, lambda: showing(pilot.app, ConfirmDeleteScreen), "confirmation")
    await pilot.press("y")
    await wait_until(pilot, lambda: screen.is_active and len(screen.sessions) == left, "deleted")


async def test_deleting_a_session_deletes_the_attachments_no_other_session_carries(stack: RealStack) -> None:
    shared, own = Attachment.of_text("notes.md", "shared notes"), Attachment.of_text("plan.md", "Oslo's own plan")
    await _seed_with_attachments(stack.db, "Bread", shared)
    await _seed_with_attachments(stack.db, "Weather in Oslo", shared, own)  # the newest: listed first
    assert stored_attachments(stack.db) == {shared.hash, own.hash}
    app, _ = stack.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_sessions(pilot, 2)
        assert rows(pilot)[0].strip().startswith("Weather in Oslo")
        await delete_selected(pilot, screen, 1)
        assert stored_attachments(stack.db) == {shared.hash}  # Bread still carries it
        await delete_selected(pilot, screen, 0)
        assert stored_attachments(stack.db) == set()
