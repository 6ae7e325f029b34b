"""A database from a newer tui-agent opens read-only: old sessions can be read, searched and exported (store and
`tui-agent sessions ...`), new changes stay in memory with a notice, and the file is never written."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from tests.unit.history.helpers import file_bytes
from tui_agent.cli import main
from tui_agent.history.schema import LATEST_VERSION
from tui_agent.history.store import HistoryStore
from tui_agent.status import MessageStatus, Role, ToolStatus

NEWER = LATEST_VERSION + 1


async def newer_database(db: Path) -> str:
    """A real history file, then moved on one schema version as a newer tui-agent would (our tables kept)."""
    store = await HistoryStore.open(db)
    try:
        session = await store.create_session("Walrus talk", model="offline")
        _, reply = await store.begin_turn(session.id, "tell me about the walrus")
        await store.record_tool_call(reply.id, "c1", "lookup", '{"q": "walrus"}', {"q": "walrus"})
        await store.update_tool_call(reply.id, "c1", ToolStatus.DONE, result="a large marine mammal")
        await store.finish_message(reply.id, MessageStatus.COMPLETE, content="The walrus has tusks.")
    finally:
        await store.close()
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("CREATE TABLE reminders (id TEXT PRIMARY KEY, message_id TEXT)")
    conn.execute(f"PRAGMA user_version = {NEWER}")
    conn.close()
    return session.id


def _files(folder: Path) -> dict[str, bytes]:
    """Every file's bytes, but the side files SQLite needs to read a WAL database (an -shm, an empty -wal)."""
    return {
        p.name: p.read_bytes()
        for p in folder.iterdir()
        if not p.name.endswith("-shm") and not (p.name.endswith("-wal") and p.stat().st_size == 0)
    }


async def test_a_newer_database_opens_read_only_and_is_never_written(db_path: Path) -> None:
    session_id = await newer_database(db_path)
    before = _files(db_path.parent)
    store = await HistoryStore.open(db_path)
    try:
        assert store.read_only
        notices = store.report.notices()
        assert any(
            f"newer tui-agent (schema {NEWER})" in n and "read-only" in n and "will not be saved" in n for n in notices
        ), notices
        assert [s.id for s in await store.list_recent()] == [session_id]
        assert [h.session_id for h in await store.search("walrus")] == [session_id] * 2
        assert "a large marine mammal" in await store.export_json(session_id)
        chat = await store.create_session("new chat")
        _, reply = await store.begin_turn(chat.id, "hello")
        await store.finish_message(reply.id, MessageStatus.COMPLETE, content="hi")
        await store.append_message(session_id, Role.USER, "more on the old one", MessageStatus.COMPLETE)
        assert store.pending_writes == 4 and store.unsaved == "read-only, newer schema (4 pending)"
    finally:
        await store.close()
    assert _files(db_path.parent) == before
    assert file_bytes(db_path) == before["history.db"]


@pytest.mark.parametrize(
    "command",
    [
        ["sessions", "list"],
        ["sessions", "list", "--json"],
        ["sessions", "show", "{id}"],
        ["sessions", "search", "walrus"],
        ["sessions", "export", "--last", "--format", "json"],
        ["sessions", "export", "{id}"],
    ],
)
def test_sessions_commands_read_a_newer_database(
    db_path: Path, command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    session_id = asyncio.run(newer_database(db_path))
    before = _files(db_path.parent)
    capsys.readouterr()
    args = ["--db", str(db_path), *(part.replace("{id}", session_id[:8]) for part in command)]
    assert main(args) == 0
    out, err = capsys.readouterr()
    assert "Walrus talk" in out or "walrus" in out
    assert f"newer tui-agent (schema {NEWER})" in err
    assert _files(db_path.parent) == before


def test_deleting_from_a_newer_database_is_refused_clearly(db_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    session_id = asyncio.run(newer_database(db_path))
    before = _files(db_path.parent)
    assert main(["--db", str(db_path), "sessions", "delete", session_id, "-y"]) == 1
    err = capsys.readouterr().err
    assert "read-only" in err and "Deleted" not in err
    assert _files(db_path.parent) == before
