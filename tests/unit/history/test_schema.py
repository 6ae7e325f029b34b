"""Migrations: version by version in one transaction each, with a backup; a newer schema is opened read-only."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.unit.history.helpers import file_bytes, raw_rows, read_only
from tui_agent.history.errors import HistoryError
from tui_agent.history.schema import APPLICATION_ID, LATEST_VERSION, MIGRATIONS, migrate, user_version
from tui_agent.history.store import HistoryStore


def _v1_database(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, isolation_level=None)
    migrate(conn, target=1)
    conn.execute(
        "INSERT INTO sessions (id, title, created_at, updated_at, message_count) VALUES ('s1', 'old', 1.0, 1.0, 1)"
    )
    conn.execute(
        "INSERT INTO messages (id, session_id, position, role, content, status, created_at, updated_at) "
        "VALUES ('m1', 's1', 0, 'user', 'remember the walrus', 'complete', 1.0, 1.0)"
    )
    conn.close()


async def test_fresh_database_gets_the_latest_schema(db_path: Path) -> None:
    store = await HistoryStore.open(db_path)
    await store.close()
    assert raw_rows(db_path, "PRAGMA user_version") == [(LATEST_VERSION,)]
    assert store.report.backup is None and store.report.notices() == []


async def test_old_database_is_backed_up_then_migrated(db_path: Path) -> None:
    _v1_database(db_path)
    store = await HistoryStore.open(db_path)
    try:
        assert store.report.migrated_from == 1 and store.report.backup is not None
        assert any("upgraded from schema version 1" in n for n in store.report.notices())
        assert [h.message_id for h in await store.search("walrus")] == ["m1"]  # backfilled into the index
    finally:
        await store.close()
    assert raw_rows(store.report.backup, "PRAGMA user_version") == [(1,)]
    assert raw_rows(store.report.backup, "SELECT content FROM messages") == [("remember the walrus",)]


def test_a_failing_step_leaves_the_previous_version(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "x.db", isolation_level=None)
    broken = [*MIGRATIONS, ("CREATE TABLE extra (x)", "THIS IS NOT SQL")]
    with pytest.raises(sqlite3.OperationalError):
        migrate(conn, broken)
    assert user_version(conn) == LATEST_VERSION
    assert conn.execute("SELECT count(*) FROM sqlite_master WHERE name = 'extra'").fetchone() == (0,)
    assert migrate(conn) == 0  # nothing left to do


async def test_newer_schema_is_opened_read_only_and_left_untouched(db_path: Path) -> None:
    db_path.parent.mkdir(parents=True)
    conn = sqlite3.connect(db_path)
    conn.execute("CREATE TABLE future (x)")
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute(f"PRAGMA user_version = {LATEST_VERSION + 3}")
    conn.commit()
    conn.close()
    before = file_bytes(db_path)
    store = await HistoryStore.open(db_path)
    await store.close()
    assert store.read_only and store.report.newer_schema == LATEST_VERSION + 3
    assert file_bytes(db_path) == before
    assert sorted(p.name for p in db_path.parent.iterdir()) == ["history.db"]  # no backup, no move


async def test_an_old_read_only_database_is_not_upgraded(db_path: Path) -> None:
    _v1_database(db_path)
    with read_only(db_path, db_path.parent), pytest.raises(HistoryError) as caught:
        await HistoryStore.open(db_path)
    assert "older format and is read-only" in caught.value.user_message
    assert raw_rows(db_path, "PRAGMA user_version") == [(1,)]
