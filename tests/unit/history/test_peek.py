"""`peek_session`: the early look at a resumed session's newest page, on a real history file."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tui_agent.history.models import Usage
from tui_agent.history.peek import peek_session
from tui_agent.history.store import HistoryStore
from tui_agent.status import MessageStatus, ToolStatus


async def write_two_sessions(store: HistoryStore) -> tuple[str, str]:
    older = await store.create_session("Older", model="m")
    for n in range(5):
        _, reply = await store.begin_turn(older.id, f"question {n}")
        await store.finish_message(reply.id, MessageStatus.COMPLETE, content=f"answer {n}", usage=Usage(10, n))
    newer = await store.create_session("Newer", model="m")
    _, reply = await store.begin_turn(newer.id, "weather?")
    await store.record_tool_call(reply.id, "c1", "get_current_weather", '{"location": "Oslo"}', {"location": "Oslo"})
    await store.update_tool_call(reply.id, "c1", ToolStatus.DONE, result="sunny")
    await store.finish_message(reply.id, MessageStatus.INTERRUPTED, content="It is")
    return older.id, newer.id


async def test_the_newest_page_of_a_session_by_id_or_prefix(store: HistoryStore, db_path: Path) -> None:
    older, _ = await write_two_sessions(store)
    for asked in (older, older[:6]):
        peek = peek_session(db_path, asked, 4)
        assert peek is not None and peek.session.id == older and peek.session.title == "Older"
        assert [m.content for m in peek.messages] == ["question 3", "answer 3", "question 4", "answer 4"]
        assert peek.usage == Usage(50, 0 + 1 + 2 + 3 + 4)


async def test_the_most_recent_session_with_its_tool_calls_and_statuses(store: HistoryStore, db_path: Path) -> None:
    _, newer = await write_two_sessions(store)
    peek = peek_session(db_path, None, 30)
    assert peek is not None and peek.session.id == newer
    reply = peek.messages[-1]
    assert reply.status is MessageStatus.INTERRUPTED
    assert [(c.call_id, c.status, c.result) for c in reply.tool_calls] == [("c1", ToolStatus.DONE, "sunny")]


async def test_nothing_to_show_gives_none(store: HistoryStore, db_path: Path, tmp_path: Path) -> None:
    assert peek_session(db_path, None, 30) is None  # no sessions yet
    assert peek_session(db_path, "no-such-session", 30) is None
    assert peek_session(tmp_path / "missing.db", None, 30) is None


def test_a_damaged_file_or_another_schema_gives_none(tmp_path: Path) -> None:
    damaged = tmp_path / "damaged.db"
    damaged.write_bytes(b"this is not a database" * 100)
    assert peek_session(damaged, None, 30) is None
    other = tmp_path / "other.db"
    conn = sqlite3.connect(other)
    conn.execute("PRAGMA user_version = 999")
    conn.close()
    assert peek_session(other, None, 30) is None


async def test_a_page_with_something_unfinished_is_left_to_the_engine(store: HistoryStore, db_path: Path) -> None:
    session = await store.create_session("Cut off", model="m")
    _, reply = await store.begin_turn(session.id, "weather?")
    await store.record_tool_call(reply.id, "c1", "get_current_weather", "{}", {})
    await store.update_tool_call(reply.id, "c1", ToolStatus.RUNNING)
    assert peek_session(db_path, session.id, 30) is None  # the reply is still `streaming`, its call running
    await store.finish_message(reply.id, MessageStatus.COMPLETE, content="done")
    assert peek_session(db_path, session.id, 30) is None  # the call is still running
    await store.update_tool_call(reply.id, "c1", ToolStatus.DONE, result="sunny")
    peek = peek_session(db_path, session.id, 30)
    assert peek is not None and [m.status for m in peek.messages] == [MessageStatus.COMPLETE] * 2


async def test_a_file_that_is_not_ours_gives_none(store: HistoryStore, db_path: Path) -> None:
    older, _ = await write_two_sessions(store)
    await store.close()
    conn = sqlite3.connect(db_path)
    conn.execute("PRAGMA application_id = 1234")  # our tables, another program's mark
    conn.commit()
    conn.close()
    assert peek_session(db_path, older, 4) is None
