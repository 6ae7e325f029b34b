"""Bad conditions on real files: locked, corrupt, read-only, disk full. Each ends in a notice, no data lost."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from pathlib import Path

import pytest

from tests.unit.history.helpers import (
    assert_moved_aside_and_fresh,
    file_bytes,
    filled_history,
    integrity,
    put_bytes,
    raw_rows,
    read_only,
)
from tui_agent.history.errors import HistoryError
from tui_agent.history.schema import APPLICATION_ID, LATEST_VERSION, migrate
from tui_agent.history.store import HistoryStore
from tui_agent.status import MessageStatus, Role


def _hold_write_lock(path: Path) -> sqlite3.Connection:
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    return other


async def test_a_short_lock_by_another_instance_is_waited_out(db_path: Path) -> None:
    store = await HistoryStore.open(db_path)
    try:
        session = await store.create_session("s")
        other = _hold_write_lock(db_path)
        threading.Timer(0.3, other.commit).start()
        await store.append_message(session.id, Role.USER, "after the lock", MessageStatus.COMPLETE)
        assert store.pending_writes == 0 and store.report.notices() == []
        other.close()
        assert raw_rows(db_path, "SELECT content FROM messages") == [("after the lock",)]
    finally:
        await store.close()


async def test_a_long_lock_keeps_writes_in_memory_then_saves_them(db_path: Path) -> None:
    store = await HistoryStore.open(db_path, busy_timeout=0.1, retry_delay=30)
    seen: list[str] = []
    store.on_notice = seen.append
    try:
        session = await store.create_session("s")
        other = _hold_write_lock(db_path)
        kept = await store.append_message(session.id, Role.USER, "kept", MessageStatus.COMPLETE)
        await store.append_message(session.id, Role.USER, "kept too", MessageStatus.COMPLETE)
        assert kept.position == 0 and store.pending_writes == 2
        assert len(seen) == 1 and "locked" in seen[0] and "in memory" in seen[0]
        other.commit()
        other.close()
        assert await store.flush() is True
        assert "again" in seen[-1]
        assert raw_rows(db_path, "SELECT content FROM messages ORDER BY position") == [("kept",), ("kept too",)]
    finally:
        await store.close()


async def test_writes_queued_behind_a_failing_one_are_not_left_waiting(db_path: Path) -> None:
    store = await HistoryStore.open(db_path, busy_timeout=0.3, retry_delay=60)
    try:
        session = await store.create_session("s")
        other = _hold_write_lock(db_path)
        first = asyncio.ensure_future(store.append_message(session.id, Role.USER, "one", MessageStatus.COMPLETE))
        await asyncio.sleep(0.05)  # the first attempt is now waiting for the lock
        second = store.append_message(session.id, Role.USER, "two", MessageStatus.COMPLETE)
        done = await asyncio.wait_for(asyncio.gather(first, second), timeout=10)  # not the 60 s retry
        assert [m.position for m in done] == [0, 1] and store.pending_writes == 2
        other.commit()
        other.close()
        assert await store.flush() is True
        assert raw_rows(db_path, "SELECT content FROM messages ORDER BY position") == [("one",), ("two",)]
    finally:
        await store.close()


async def test_disk_full_keeps_the_session_in_memory_and_retries(db_path: Path) -> None:
    store = await HistoryStore.open(db_path, retry_delay=0.05)
    try:
        session = await store.create_session("s")
        _, reply = await store.begin_turn(session.id, "q")
        pages = await store.db.call(lambda c: c.execute("PRAGMA page_count").fetchone()[0])
        await store.db.call(lambda c: c.execute(f"PRAGMA max_page_count = {pages}"))
        big = "x" * 200_000
        await store.update_streaming_text(reply.id, big)  # needs new pages: the "disk" is full
        assert store.pending_writes == 1
        assert any("disk is full" in n for n in store.report.notices())
        await store.finish_message(reply.id, MessageStatus.COMPLETE, content=big + " done")
        assert store.pending_writes == 2
        await store.db.call(lambda c: c.execute("PRAGMA max_page_count = 1073741823"))  # space freed
        assert await store.flush() is True
        [message] = await store.load_tail(session.id, 1)
        assert message.content == big + " done" and message.status is MessageStatus.COMPLETE
    finally:
        await store.close()
    assert integrity(db_path) == "ok"


async def test_corrupt_file_is_moved_aside_never_deleted(db_path: Path) -> None:
    db_path.parent.mkdir(parents=True)
    garbage = b"this is not a database, " * 500
    put_bytes(db_path, garbage)
    put_bytes(f"{db_path}-wal", b"wal bytes")
    put_bytes(f"{db_path}-shm", b"shm bytes")
    store = await HistoryStore.open(db_path)
    try:
        moved = store.report.moved_aside
        assert moved is not None and moved.name.startswith("history.db.corrupt-")
        assert file_bytes(moved) == garbage
        assert file_bytes(f"{moved}-wal") == b"wal bytes"
        assert file_bytes(f"{moved}-shm") == b"shm bytes"
        assert any(str(moved) in n for n in store.report.notices())
        session = await store.create_session("fresh start")
        assert (await store.get_session(session.id)) is not None
    finally:
        await store.close()
    assert integrity(db_path) == "ok"


async def test_damaged_pages_are_detected_and_moved_aside(db_path: Path) -> None:
    await filled_history(db_path)
    data = bytearray(file_bytes(db_path))
    for offset in range(4096 * 3, len(data), 4096):  # scribble over every page but the first few
        data[offset + 8 : offset + 64] = b"\xff" * 56
    put_bytes(db_path, bytes(data))
    await assert_moved_aside_and_fresh(db_path)


@pytest.mark.parametrize("folder_too", [False, True], ids=["file", "file-and-folder"])
async def test_read_only_file_opens_read_only_and_says_so(db_path: Path, folder_too: bool) -> None:
    store = await HistoryStore.open(db_path)
    session = await store.create_session("keep me")
    await store.append_message(session.id, Role.USER, "old words", MessageStatus.COMPLETE)
    await store.close()
    before = file_bytes(db_path)
    with read_only(*([db_path, db_path.parent] if folder_too else [db_path])):
        ro = await HistoryStore.open(db_path)
        try:
            assert ro.read_only is True
            assert any("read-only" in n for n in ro.report.notices())
            assert [m.content for m in await ro.load_tail(session.id, 5)] == ["old words"]
            assert [h.session_title for h in await ro.search("words")] == ["keep me"]
            extra = await ro.append_message(session.id, Role.USER, "new words", MessageStatus.COMPLETE)
            assert extra.position == 1 and ro.pending_writes == 1  # kept in memory
        finally:
            await ro.close()
        assert any("could not be saved" in n for n in ro.report.notices())
    assert file_bytes(db_path) == before


async def test_unwritable_folder_without_a_database_keeps_history_in_memory(tmp_path: Path) -> None:
    folder = tmp_path / "locked"
    folder.mkdir()
    with read_only(folder):
        store = await HistoryStore.open(folder / "history.db")
        try:
            assert store.report.in_memory and any("in memory" in n for n in store.report.notices())
            session = await store.create_session("ephemeral")
            await store.append_message(session.id, Role.USER, "hi", MessageStatus.COMPLETE)
            assert [m.content for m in await store.load_tail(session.id, 5)] == ["hi"]
        finally:
            await store.close()
    assert not (folder / "history.db").exists()


async def test_a_folder_as_database_path_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(HistoryError) as caught:
        await HistoryStore.open(tmp_path)
    assert "is a folder" in caught.value.user_message


async def test_a_damaged_file_that_cannot_be_moved_is_a_clear_error(db_path: Path) -> None:
    db_path.parent.mkdir(parents=True)
    put_bytes(db_path, b"garbage " * 100)
    with read_only(db_path, db_path.parent), pytest.raises(HistoryError) as caught:
        await HistoryStore.open(db_path)
    assert "damaged" in caught.value.user_message and "--db" in caught.value.user_message
    assert file_bytes(db_path) == b"garbage " * 100


async def test_a_lock_held_at_start_opens_anyway_and_saves_everything_once_it_is_released(db_path: Path) -> None:
    first = await HistoryStore.open(db_path)
    await first.close()
    other = _hold_write_lock(db_path)  # another program, for longer than any busy timeout
    states: list[str | None] = []
    try:
        store = await HistoryStore.open(db_path, busy_timeout=0.2, retry_delay=0.05)
    except Exception:
        other.close()
        raise
    store.on_state = lambda: states.append(store.unsaved)
    try:
        assert store.unsaved is not None and "locked" in store.unsaved
        assert any("locked" in n and "in memory" in n for n in store.report.notices())
        session = await store.create_session("made while locked")
        _, reply = await store.begin_turn(session.id, "hello?")
        await store.record_tool_call(reply.id, "c1", "t", "{}", {})
        await store.finish_message(reply.id, MessageStatus.COMPLETE, content="answered")
        assert store.pending_writes >= 4 and "pending" in (store.unsaved or "")
        other.commit()
        other.close()
        for _ in range(500):
            if store.pending_writes == 0:
                break
            await asyncio.sleep(0.02)
        assert store.pending_writes == 0 and store.unsaved is None and states[-1] is None
        assert any("again" in n for n in store.report.notices())
    finally:
        await store.close()
    assert raw_rows(db_path, "SELECT title FROM sessions") == [("made while locked",)]
    assert raw_rows(db_path, "SELECT content, status FROM messages ORDER BY position") == [
        ("hello?", "complete"),
        ("answered", "complete"),
    ]
    assert raw_rows(db_path, "SELECT call_id FROM tool_calls") == [("c1",)]


async def test_disk_full_shows_as_unsaved_until_it_is_saved(db_path: Path) -> None:
    store = await HistoryStore.open(db_path, retry_delay=0.05)
    try:
        session = await store.create_session("s")
        _, reply = await store.begin_turn(session.id, "q")
        assert store.unsaved is None
        pages = await store.db.call(lambda c: c.execute("PRAGMA page_count").fetchone()[0])
        await store.db.call(lambda c: c.execute(f"PRAGMA max_page_count = {pages}"))
        await store.update_streaming_text(reply.id, "x" * 200_000)
        assert store.unsaved == "disk full (1 pending)"
        await store.db.call(lambda c: c.execute("PRAGMA max_page_count = 1073741823"))
        assert await store.flush() is True and store.unsaved is None
    finally:
        await store.close()


async def test_an_upgrade_blocked_by_a_lock_at_start_runs_first_once_it_is_released(db_path: Path) -> None:
    db_path.parent.mkdir(parents=True)
    conn = sqlite3.connect(db_path, isolation_level=None)
    migrate(conn, target=2)  # the schema before the application id
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("INSERT INTO sessions (id, title, created_at, updated_at) VALUES ('s1', 'old', 1.0, 1.0)")
    conn.close()
    other = _hold_write_lock(db_path)
    try:
        store = await HistoryStore.open(db_path, busy_timeout=0.2, retry_delay=30)
    except Exception:
        other.close()
        raise
    try:
        assert store.unsaved is not None and "locked" in store.unsaved
        assert [s.title for s in await store.list_recent()] == ["old"]
        await store.append_message("s1", Role.USER, "written while locked", MessageStatus.COMPLETE)
        assert raw_rows(db_path, "PRAGMA user_version") == [(2,)]
        other.commit()
        other.close()
        assert await store.flush() is True
    finally:
        await store.close()
    assert raw_rows(db_path, "PRAGMA user_version") == [(LATEST_VERSION,)]
    assert raw_rows(db_path, "PRAGMA application_id") == [(APPLICATION_ID,)]
    assert raw_rows(db_path, "SELECT content FROM messages") == [("written while locked",)]
