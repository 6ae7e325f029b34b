"""The app on the real stack (offline model over HTTP, real agent, real SQLite file) when history can't be saved:
a newer schema (read-only), another program's lock at start, a full disk. The app starts, chats, says so in a
notice and in the status bar, and saves everything once it can - or, read-only, never writes."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from tests.ui.helpers import WAIT_LIMIT, Built, app_on_real_agent, chat, send, showing
from tests.unit.history.test_newer_schema import NEWER, newer_database
from tui_agent.agent.endpoint import EndpointChoice
from tui_agent.config import Settings
from tui_agent.history.store import HistoryStore
from tui_agent.offline.server import BackgroundServer
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.screens.session_dialogs import RenameScreen
from tui_agent.ui.screens.sessions import SessionsScreen
from tui_agent.ui.textual_private import notifications
from tui_agent.ui.widgets.messages import UserMessage

MakeApp = Callable[..., tuple[TuiAgentApp, Built]]
SIZE = (160, 40)


@pytest.fixture
async def real_app(tmp_path: Path) -> AsyncIterator[MakeApp]:
    """`real_app(scenario=None)`: the app on a real agent over `db_file(tmp_path)`; offline model by default."""
    servers: list[BackgroundServer] = []

    def make(scenario: dict[str, Any] | None = None) -> tuple[TuiAgentApp, Built]:
        settings = Settings(db=db_file(tmp_path))
        choice = EndpointChoice(None, "offline")
        if scenario is not None:
            server = BackgroundServer(scenario)
            server.start()
            servers.append(server)
            choice = EndpointChoice(server.base_url, "scripted", "test-key")
        return app_on_real_agent(settings, choice)

    yield make
    for server in servers:
        server.stop()


def db_file(tmp_path: Path) -> Path:
    return tmp_path / "data" / "history.db"


async def until(pilot: Pilot[None], condition: Callable[[], bool], what: str, seconds: float = WAIT_LIMIT) -> None:
    """Let the app run until `condition` holds, failing after `seconds` (retries back off up to 5 s)."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"never reached: {what}"
        await pilot.pause(0.05)


def notified(pilot: Pilot[None], words: str) -> bool:
    return any(words in n.message for n in notifications(pilot.app))


def status_line(pilot: Pilot[None]) -> str:
    return str(chat(pilot).status_bar.render())


def _files(folder: Path) -> dict[str, bytes]:
    return {
        p.name: p.read_bytes()
        for p in folder.iterdir()
        if not p.name.endswith("-shm") and not (p.name.endswith("-wal") and p.stat().st_size == 0)
    }


async def test_a_newer_database_starts_read_only_chats_in_memory_and_is_never_written(
    real_app: MakeApp, tmp_path: Path
) -> None:
    db = db_file(tmp_path)
    old_id = await newer_database(db)
    before = _files(db.parent)
    app, backend = real_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: notified(pilot, f"newer tui-agent (schema {NEWER}); opened read-only"), "notice")
        assert notified(pilot, "this session will not be saved")
        await until(pilot, lambda: "⚠ not saved: read-only, newer schema" in status_line(pilot), "indicator")
        await send(pilot, "What's the weather in Paris?")
        assert "Paris" in chat(pilot).chat_log.assistant_messages[-1].shown_text()
        agent = await backend.ready()
        assert [s.id for s in await agent.list_sessions()] == [old_id]  # the old sessions can be browsed
        assert [h.session_id for h in await agent.search_sessions("walrus")] == [old_id] * 2
        assert "pending)" in status_line(pilot)
    assert _files(db.parent) == before


async def test_a_newer_database_can_be_browsed_and_opened_but_not_renamed(real_app: MakeApp, tmp_path: Path) -> None:
    db = db_file(tmp_path)
    await newer_database(db)
    before = _files(db.parent)
    app, _ = real_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: notified(pilot, "opened read-only"), "notice")
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, SessionsScreen) and len(app.screen.sessions) == 1, "listed")
        await pilot.press("ctrl+r")
        await until(pilot, lambda: showing(app, RenameScreen), "rename dialog")
        await pilot.press(*"new name", "enter")
        await until(pilot, lambda: notified(pilot, "can't be renamed"), "the refusal")
        await until(pilot, lambda: showing(app, SessionsScreen), "back in the list")
        await pilot.press("enter")
        await until(
            pilot,
            lambda: any(u.prompt == "tell me about the walrus" for u in pilot.app.screen.query(UserMessage)),
            "the old session shown",
        )
        await send(pilot, "and its weight?")
    assert _files(db.parent) == before


async def test_a_lock_held_at_start_keeps_the_chat_in_memory_then_saves_it(real_app: MakeApp, tmp_path: Path) -> None:
    db = db_file(tmp_path)
    await (await HistoryStore.open(db)).close()
    other = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")  # another program holds the write lock through start-up and the chat
    try:
        app, _ = real_app()
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: notified(pilot, "locked"), "the locked notice")
            await send(pilot, "What's the weather in Paris?")
            assert "Paris" in chat(pilot).chat_log.assistant_messages[-1].shown_text()
            await until(pilot, lambda: "⚠ not saved: database locked (" in status_line(pilot), "indicator")
            assert "pending)" in status_line(pilot)
            other.commit()
            other.close()
            await until(pilot, lambda: "not saved" not in status_line(pilot), "the indicator cleared")
            # the notice comes with the save that cleared the indicator, on its own way to the screen
            await until(pilot, lambda: notified(pilot, "saved to") and notified(pilot, "again"), "the saved notice")
            saved = await asyncio.to_thread(_rows, db)  # saved while the app still runs, not only at exit
    finally:
        other.close()
    assert saved[0] == [("What's the weather in Paris?",)]
    assert [role for role, _ in saved[1]] == ["user", "assistant", "assistant"]
    assert [name for (name,) in saved[2]] == ["get_current_weather"]


def _rows(db: Path) -> tuple[list[Any], list[Any], list[Any]]:
    conn = sqlite3.connect(db)
    try:
        return (
            conn.execute("SELECT title FROM sessions").fetchall(),
            conn.execute("SELECT role, status FROM messages ORDER BY position").fetchall(),
            conn.execute("SELECT name FROM tool_calls").fetchall(),
        )
    finally:
        conn.close()


LONG_REPLY = {"replies": [{"text": "word " * 40_000, "chunk_size": 50_000}]}


async def test_a_full_disk_shows_in_the_status_bar_until_it_is_saved(real_app: MakeApp, tmp_path: Path) -> None:
    app, backend = real_app(LONG_REPLY)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "first, to create the file")
        agent = await backend.ready()
        assert agent is not None
        store = agent.store
        # The "disk" is full: the file may not grow (as tests/unit/history/test_bad_conditions.py does it).
        pages = await store.db.call(lambda c: c.execute("PRAGMA page_count").fetchone()[0])
        await store.db.call(lambda c: c.execute(f"PRAGMA max_page_count = {pages}"))
        await send(pilot, "a long answer please")
        await until(pilot, lambda: "⚠ not saved: disk full (" in status_line(pilot), "indicator")
        await until(pilot, lambda: notified(pilot, "the disk is full"), "the notice")  # on its own way to the screen
        await store.db.call(lambda c: c.execute("PRAGMA max_page_count = 1073741823"))  # space freed
        await until(pilot, lambda: "not saved" not in status_line(pilot), "the indicator cleared")
    stored = await asyncio.to_thread(_rows, db_file(tmp_path))
    assert [status for _, status in stored[1]] == ["complete"] * 4
