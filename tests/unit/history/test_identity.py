"""Whose file is it: a history file that is not ours (another app's database, or another database's WAL
beside ours) is moved aside with its side files and reported, never migrated into; ours is stamped."""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
from pathlib import Path

from tests.unit.history.helpers import file_bytes, raw_rows
from tui_agent.history.schema import APPLICATION_ID, LATEST_VERSION, migrate
from tui_agent.history.store import HistoryStore
from tui_agent.status import MessageStatus, Role


async def _our_history(db: Path) -> str:
    store = await HistoryStore.open(db)
    try:
        session = await store.create_session("my precious chat")
        await store.append_message(session.id, Role.USER, "remember the walrus", MessageStatus.COMPLETE)
        return session.id
    finally:
        await store.close()


def _other_apps_database(path: Path) -> sqlite3.Connection:
    """Another program's WAL database, left open so its -wal file stays (a real app's, mid-run)."""
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("PRAGMA journal_mode = WAL")
    other.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
    other.execute("INSERT INTO notes (body) VALUES ('buy milk')")
    return other


def _names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def _assert_moved_aside(store: HistoryStore, original: bytes) -> Path:
    moved = store.report.moved_aside
    assert moved is not None and moved.name.startswith("history.db.corrupt-")
    assert file_bytes(moved) == original, "the user's file was written into"
    notices = " ".join(store.report.notices())
    assert "not a tui-agent history file" in notices and str(moved) in notices
    return moved


async def test_another_databases_wal_beside_ours_is_never_replayed_into_it(db_path: Path) -> None:
    session_id = await _our_history(db_path)
    original = file_bytes(db_path)
    assert _names(db_path.parent) == [
        "history.db",
        "history.db.checked",
    ]  # checkpointed, no -wal; stamped good
    other = _other_apps_database(db_path.parent / "notes.db")
    try:
        shutil.copyfile(db_path.parent / "notes.db-wal", f"{db_path}-wal")  # the WAL of a different db file
        foreign_wal = file_bytes(f"{db_path}-wal")
        store = await HistoryStore.open(db_path)
        try:
            moved = _assert_moved_aside(store, original)
            assert file_bytes(f"{moved}-wal") == foreign_wal
            assert await store.list_recent() == []  # a fresh file, not the mix
        finally:
            await store.close()
    finally:
        other.close()
    assert raw_rows(db_path, "PRAGMA application_id") == [(APPLICATION_ID,)]
    # Without the foreign WAL, the user's file still holds every session.
    os.remove(f"{moved}-wal")
    with contextlib.suppress(FileNotFoundError):
        os.remove(f"{moved}-shm")
    assert raw_rows(moved, "SELECT id, title FROM sessions") == [(session_id, "my precious chat")]


async def test_another_apps_database_at_the_path_is_moved_aside(db_path: Path) -> None:
    db_path.parent.mkdir(parents=True)
    _other_apps_database(db_path).close()
    original = file_bytes(db_path)
    store = await HistoryStore.open(db_path)
    try:
        _assert_moved_aside(store, original)
        session = await store.create_session("fresh")
        assert [s.id for s in await store.list_recent()] == [session.id]
    finally:
        await store.close()


async def test_a_database_stamped_by_another_application_is_moved_aside(db_path: Path) -> None:
    db_path.parent.mkdir(parents=True)
    conn = sqlite3.connect(db_path, isolation_level=None)
    migrate(conn)  # even with tables just like ours
    conn.execute("PRAGMA application_id = 1234")
    conn.close()
    original = file_bytes(db_path)
    store = await HistoryStore.open(db_path)
    try:
        _assert_moved_aside(store, original)
    finally:
        await store.close()


async def test_our_database_from_before_the_stamp_is_stamped_and_kept(db_path: Path) -> None:
    db_path.parent.mkdir(parents=True)
    conn = sqlite3.connect(db_path, isolation_level=None)
    migrate(conn, target=2)  # the last schema without an application_id
    conn.execute("INSERT INTO sessions (id, title, created_at, updated_at) VALUES ('s1', 'old', 1.0, 1.0)")
    conn.close()
    assert raw_rows(db_path, "PRAGMA application_id") == [(0,)]
    store = await HistoryStore.open(db_path)
    try:
        assert store.report.moved_aside is None
        assert [s.title for s in await store.list_recent()] == ["old"]
    finally:
        await store.close()
    assert raw_rows(db_path, "PRAGMA application_id") == [(APPLICATION_ID,)]
    assert raw_rows(db_path, "PRAGMA user_version") == [(LATEST_VERSION,)]


async def test_a_new_database_is_stamped_and_nothing_else_is_moved(db_path: Path) -> None:
    await _our_history(db_path)
    assert raw_rows(db_path, "PRAGMA application_id") == [(APPLICATION_ID,)]
    store = await HistoryStore.open(db_path)
    await store.close()
    assert store.report.moved_aside is None and _names(db_path.parent) == ["history.db", "history.db.checked"]
