"""A page of the session screen costs the same in a big history as in a small one (issue 28), counted in SQLite's
own steps (its progress handler), not in time: the listed page, its rows' glances (last reply, cost with the
sub-agents') and a filter's first page."""

from __future__ import annotations

import sqlite3
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from tui_agent.history import rows, session_glance, session_search
from tui_agent.history.store import HistoryStore
from tui_agent.prices import PriceTable

PAGE = 100


def _add_sessions(path: Path, count: int) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("BEGIN")
    now = time.time()
    for n in range(count):
        sid, ask = uuid.uuid4().hex, uuid.uuid4().hex
        conn.execute(
            "INSERT INTO sessions (id, title, created_at, updated_at, message_count) VALUES (?, ?, ?, ?, 1)",
            (sid, f"session {n}", now - n, now - n),
        )
        conn.execute(
            "INSERT INTO messages (id, session_id, position, role, content, status, created_at, updated_at)"
            " VALUES (?, ?, 0, 'user', ?, 'complete', ?, ?)",
            (ask, sid, f"tell me about the horse {n}", now, now),
        )
    conn.execute("COMMIT")
    conn.close()


def _steps(conn: sqlite3.Connection, work: Callable[[], object]) -> int:
    counted = [0]

    def count() -> int:
        counted[0] += 1
        return 0

    conn.set_progress_handler(count, 100)
    try:
        work()
    finally:
        conn.set_progress_handler(None, 0)
    return counted[0]


def _page_steps(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        prices = PriceTable.with_overrides()

        def page() -> None:
            ids = [session.id for session in rows.list_recent(conn, PAGE)]
            session_glance.glances(conn, ids, prices)

        return _steps(conn, page)
    finally:
        conn.close()


async def test_the_session_screens_first_page_does_not_read_the_whole_history(tmp_path: Path) -> None:
    small, big = tmp_path / "small.db", tmp_path / "big.db"
    for path in (small, big):
        store = await HistoryStore.open(path)
        await store.close()
    _add_sessions(small, PAGE)
    _add_sessions(big, 30 * PAGE)
    assert _page_steps(big) <= 1.5 * _page_steps(small) + 10
    conn = sqlite3.connect(big)
    try:
        assert len(session_search.find_sessions(conn, "", PAGE, 29 * PAGE)) == PAGE  # the last page is there
    finally:
        conn.close()
