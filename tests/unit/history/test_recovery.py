"""On open, replies and tool calls left unfinished by a store that is gone become interrupted."""

from __future__ import annotations

from pathlib import Path

from tests.unit.history.helpers import raw_pairs, raw_rows
from tui_agent.history import owners
from tui_agent.history.store import HistoryStore
from tui_agent.status import MessageStatus, ToolStatus


async def _abandon(store: HistoryStore) -> None:
    """Close the connection as a crash would: without finishing anything."""
    owners.release(store.owner)
    await store.db._conn.close()


async def test_leftovers_of_a_dead_store_are_interrupted(db_path: Path) -> None:
    store = await HistoryStore.open(db_path)
    session = await store.create_session("s")
    _, reply = await store.begin_turn(session.id, "q")
    await store.update_streaming_text(reply.id, "half an ans")
    for call_id, status in [
        ("a", ToolStatus.PENDING),
        ("b", ToolStatus.AWAITING_APPROVAL),
        ("c", ToolStatus.RUNNING),
        ("d", ToolStatus.DONE),
    ]:
        await store.record_tool_call(reply.id, call_id, "tool", "{}", {}, status=status)
    await _abandon(store)

    reopened = await HistoryStore.open(db_path)
    try:
        assert reopened.report.interrupted_messages == 1 and reopened.report.interrupted_tool_calls == 3
        notices = " ".join(reopened.report.notices())
        assert "1 reply cut off by an earlier exit was marked interrupted" in notices
        assert "3 tool calls left unfinished by an earlier exit were marked interrupted" in notices
        [message] = await reopened.load_tail(session.id, 1)
        assert message.status is MessageStatus.INTERRUPTED and message.content == "half an ans"
        assert {c.call_id: c.status for c in message.tool_calls} == {
            "a": ToolStatus.INTERRUPTED,
            "b": ToolStatus.INTERRUPTED,
            "c": ToolStatus.INTERRUPTED,
            "d": ToolStatus.DONE,
        }
        assert [h.message_id for h in await reopened.search("half")] == [reply.id]
    finally:
        await reopened.close()


async def test_a_live_store_keeps_its_streaming_reply(db_path: Path) -> None:
    first = await HistoryStore.open(db_path)
    try:
        session = await first.create_session("s")
        _, reply = await first.begin_turn(session.id, "q")
        await first.record_tool_call(reply.id, "c", "tool", "{}", {}, status=ToolStatus.RUNNING)
        second = await HistoryStore.open(db_path)
        assert second.report.interrupted_messages == 0 and second.report.interrupted_tool_calls == 0
        await second.close()
        assert raw_rows(db_path, "SELECT status FROM messages WHERE id = ?", (reply.id,)) == [("streaming",)]
    finally:
        await first.close()


async def test_close_interrupts_only_its_own_unfinished_work(db_path: Path) -> None:
    store = await HistoryStore.open(db_path)
    session = await store.create_session("s")
    _, open_reply = await store.begin_turn(session.id, "q")
    await store.record_tool_call(open_reply.id, "c", "tool", "{}", {}, status=ToolStatus.RUNNING)
    _, done_reply = await store.begin_turn(session.id, "q2")
    await store.finish_message(done_reply.id, MessageStatus.COMPLETE, content="fine")
    await store.close()
    rows = raw_pairs(db_path, "SELECT id, status FROM messages WHERE role = 'assistant'")
    assert rows == {open_reply.id: "interrupted", done_reply.id: "complete"}
    assert raw_rows(db_path, "SELECT status FROM tool_calls") == [("interrupted",)]
