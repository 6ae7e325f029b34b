"""A session's agent (schema step 7) is read with it: what tells a sub-agent's session from a fork."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tui_agent.history.store import HistoryStore


async def test_a_sessions_agent_and_parent_are_read_with_it(store: HistoryStore, db_path: Path) -> None:
    parent = await store.create_session("Weather")
    child = await store.create_session("Find the weather in Oslo")
    await store.close()
    with sqlite3.connect(db_path) as conn:  # as the delegation writes it
        conn.execute(
            "UPDATE sessions SET agent = 'researcher', parent_session_id = ?, parent_message_id = 'a1' WHERE id = ?",
            (parent.id, child.id),
        )
    reopened = await HistoryStore.open(db_path)
    try:
        listed = {session.id: session for session in await reopened.list_recent()}
        assert (listed[child.id].agent, listed[child.id].parent_session_id) == ("researcher", parent.id)
        assert listed[parent.id].agent is None
        got = await reopened.get_session(child.id)
        assert got is not None and got.parent_message_id == "a1" and got.agent == "researcher"
    finally:
        await reopened.close()
