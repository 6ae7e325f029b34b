"""Every store call, on a real database file."""

from __future__ import annotations

import json
import sqlite3
from decimal import Decimal
from pathlib import Path

import pytest

from tests.unit.history.helpers import raw_rows
from tui_agent.history.errors import MessageNotFoundError, SessionNotFoundError
from tui_agent.history.models import Usage
from tui_agent.history.rolled_usage import rolled_tallies
from tui_agent.history.store import HistoryStore
from tui_agent.history.usage import daily_usage
from tui_agent.prices import Price, PriceTable
from tui_agent.status import MessageStatus, Role, ToolStatus


async def test_default_path_is_in_the_data_dir(isolated_home: Path) -> None:
    store = await HistoryStore.open()
    try:
        assert store.path == isolated_home / "data" / "history.db"
        assert store.path.exists()
        assert raw_rows(store.path, "PRAGMA journal_mode")[0][0] == "wal"
    finally:
        await store.close()


async def test_sessions_create_rename_get_list_delete(store: HistoryStore) -> None:
    first = await store.create_session("first", model="m1", endpoint="http://127.0.0.1:1/v1", system_prompt="be kind")
    second = await store.create_session("second")
    assert len(first.id) == 32 and int(first.id, 16) >= 0
    await store.rename_session(first.id, "renamed")
    got = await store.get_session(first.id)
    assert got is not None and got.title == "renamed" and got.model == "m1" and got.system_prompt == "be kind"
    recent = await store.list_recent()
    assert [s.id for s in recent] == [second.id, first.id]  # a new title is not new activity
    assert recent[1].updated_at == first.updated_at
    assert len(await store.list_recent(limit=1)) == 1
    await store.delete_session(first.id)
    assert await store.get_session(first.id) is None
    with pytest.raises(SessionNotFoundError):
        await store.delete_session(first.id)


async def test_get_session_by_unique_prefix_only(store: HistoryStore) -> None:
    sessions = [await store.create_session(f"s{i}") for i in range(20)]
    target = sessions[0]
    prefix = next(target.id[:n] for n in range(1, 33) if sum(s.id.startswith(target.id[:n]) for s in sessions) == 1)
    found = await store.get_session(prefix)
    assert found is not None and found.id == target.id
    shared = [s for s in sessions if s.id[0] == target.id[0]]
    if len(shared) > 1:
        assert await store.get_session(target.id[0]) is None
    assert await store.get_session("zz") is None


async def test_cache_reads_and_writes_are_kept_and_priced_by_the_usage_tallies(store: HistoryStore) -> None:
    session = await store.create_session("t", model="claude-x")
    _, reply = await store.begin_turn(session.id, "q")
    await store.finish_message(reply.id, MessageStatus.COMPLETE, content="a", usage=Usage(1000, 100, 200, 300))
    [message] = await store.load_tail(session.id, 1)
    assert message.usage == Usage(1000, 100, 200, 300)
    prices = PriceTable({"claude-*": Price(Decimal(1), Decimal(5), Decimal("0.1"), Decimal("1.25"))})
    expected = (500 * Decimal(1) + 200 * Decimal("0.1") + 300 * Decimal("1.25") + 100 * Decimal(5)) / 1_000_000
    with sqlite3.connect(store.path) as conn:
        [day] = daily_usage(conn, prices)
        rolled = rolled_tallies(conn, [session.id], prices)
    assert day.tally.cost == rolled[session.id].tally.cost == expected


async def test_begin_turn_commits_prompt_and_streaming_placeholder(store: HistoryStore) -> None:
    session = await store.create_session("t")
    user, reply = await store.begin_turn(session.id, "hello there", model="m")
    assert (user.position, reply.position) == (0, 1)
    assert user.role is Role.USER and reply.status is MessageStatus.STREAMING and reply.model == "m"
    rows = raw_rows(store.path, "SELECT role, status, content FROM messages ORDER BY position")
    assert rows == [("user", "complete", "hello there"), ("assistant", "streaming", "")]
    assert await store.count_messages(session.id) == 2


async def test_streaming_text_finish_and_usage(store: HistoryStore) -> None:
    session = await store.create_session("t")
    _, reply = await store.begin_turn(session.id, "q")
    await store.update_streaming_text(reply.id, "partial")
    assert raw_rows(store.path, "SELECT content FROM messages WHERE id = ?", (reply.id,)) == [("partial",)]
    await store.finish_message(reply.id, MessageStatus.COMPLETE, content="full answer", usage=Usage(10, 5))
    [message] = await store.load_tail(session.id, 1)
    assert message.content == "full answer" and message.status is MessageStatus.COMPLETE
    assert message.usage == Usage(10, 5) and message.usage.total_tokens == 15
    await store.finish_message(reply.id, MessageStatus.FAILED, error="The server broke.")
    [message] = await store.load_tail(session.id, 1)
    assert message.content == "full answer" and message.error == "The server broke."
    with pytest.raises(MessageNotFoundError):
        await store.finish_message("nope", MessageStatus.COMPLETE)


async def test_append_message_positions_and_unknown_session(store: HistoryStore) -> None:
    session = await store.create_session("t")
    messages = [await store.append_message(session.id, Role.USER, f"m{i}", MessageStatus.COMPLETE) for i in range(3)]
    assert [m.position for m in messages] == [0, 1, 2]
    with pytest.raises(SessionNotFoundError):
        await store.append_message("missing", Role.USER, "x", MessageStatus.COMPLETE)


async def test_tool_calls_are_recorded_and_timed(store: HistoryStore) -> None:
    session = await store.create_session("t")
    _, reply = await store.begin_turn(session.id, "weather?")
    await store.record_tool_call(reply.id, "c1", "get_weather", '{"city": "Oslo"}', {"city": "Oslo"})
    await store.record_tool_call(reply.id, "c2", "broken", "{nope", None)
    [message] = await store.load_tail(session.id, 1)
    assert [c.call_id for c in message.tool_calls] == ["c1", "c2"]
    assert message.tool_calls[0].status is ToolStatus.PENDING and message.tool_calls[0].started_at is None
    await store.update_tool_call(reply.id, "c1", ToolStatus.RUNNING)
    await store.update_tool_call(reply.id, "c1", ToolStatus.DONE, result="12 C, cloudy")
    await store.update_tool_call(reply.id, "c2", ToolStatus.FAILED, error="Arguments are not JSON.")
    [message] = await store.load_tail(session.id, 1)
    done, failed = message.tool_calls
    assert done.result == "12 C, cloudy" and done.arguments == {"city": "Oslo"}
    assert done.started_at is not None and done.finished_at is not None and done.started_at <= done.finished_at
    assert failed.status is ToolStatus.FAILED and failed.error == "Arguments are not JSON." and failed.arguments is None
    with pytest.raises(MessageNotFoundError):
        await store.record_tool_call("missing", "c", "n", "{}", {})
    with pytest.raises(MessageNotFoundError):
        await store.update_tool_call(reply.id, "c9", ToolStatus.DONE)


async def test_load_tail_and_page_backwards(store: HistoryStore) -> None:
    session = await store.create_session("long")
    for i in range(25):
        await store.append_message(session.id, Role.USER, f"m{i}", MessageStatus.COMPLETE)
    tail = await store.load_tail(session.id, 10)
    assert [m.content for m in tail] == [f"m{i}" for i in range(15, 25)]
    page = await store.load_before(session.id, tail[0].position, 10)
    assert [m.content for m in page] == [f"m{i}" for i in range(5, 15)]
    first = await store.load_before(session.id, page[0].position, 10)
    assert [m.content for m in first] == [f"m{i}" for i in range(5)]
    assert await store.load_before(session.id, 0, 10) == []


async def test_fork_copies_up_to_the_message_with_tool_calls(store: HistoryStore) -> None:
    session = await store.create_session("origin", model="m")
    user, reply = await store.begin_turn(session.id, "one")
    await store.record_tool_call(reply.id, "c1", "t", "{}", {})
    await store.update_tool_call(reply.id, "c1", ToolStatus.DONE, result="r")
    await store.finish_message(reply.id, MessageStatus.COMPLETE, content="answer one")
    await store.begin_turn(session.id, "two")
    fork = await store.fork_session(session.id, reply.id)
    assert fork.parent_session_id == session.id and fork.parent_message_id == reply.id and fork.message_count == 2
    copied = await store.load_tail(fork.id, 10)
    assert [m.content for m in copied] == ["one", "answer one"]
    assert copied[1].tool_calls[0].result == "r" and copied[1].id != reply.id
    appended = await store.append_message(fork.id, Role.USER, "three", MessageStatus.COMPLETE)
    assert appended.position == 2
    assert len(await store.load_tail(session.id, 10)) == 4  # the original is untouched
    with pytest.raises(MessageNotFoundError):
        await store.fork_session(session.id, "not-a-message")


async def test_search_across_sessions_any_input(store: HistoryStore) -> None:
    a = await store.create_session("alpha")
    b = await store.create_session("beta")
    await store.append_message(a.id, Role.USER, "The quick brown fox", MessageStatus.COMPLETE)
    await store.append_message(b.id, Role.ASSISTANT, "a fox jumps over the lazy dog", MessageStatus.COMPLETE)
    hits = await store.search("fox")
    assert {h.session_id for h in hits} == {a.id, b.id}
    assert all("[fox]" in h.snippet for h in hits)
    [hit] = await store.search("lazy fox")
    assert hit.session_title == "beta" and hit.role is Role.ASSISTANT
    for odd in ['"', "AND", "fox*(", "NEAR(", ""]:
        await store.search(odd)  # never a syntax error


async def test_streaming_text_is_searchable_once_settled(store: HistoryStore) -> None:
    session = await store.create_session("s")
    _, reply = await store.begin_turn(session.id, "q")
    await store.update_streaming_text(reply.id, "zebra crossing")
    assert await store.search("zebra") == []
    await store.finish_message(reply.id, MessageStatus.COMPLETE)
    assert [h.message_id for h in await store.search("zebra")] == [reply.id]
    await store.delete_session(session.id)
    assert await store.search("zebra") == []


async def test_exports_include_tool_calls_and_results(store: HistoryStore) -> None:
    session = await store.create_session("Trip", model="m")
    _, reply = await store.begin_turn(session.id, "weather in Oslo?")
    await store.record_tool_call(reply.id, "c1", "get_weather", '{"city": "Oslo"}', {"city": "Oslo"})
    await store.update_tool_call(reply.id, "c1", ToolStatus.DONE, result="```12 C```")
    await store.finish_message(reply.id, MessageStatus.COMPLETE, content="It is 12 C.")
    md = await store.export_markdown(session.id)
    assert "# Trip" in md and "weather in Oslo?" in md and "get_weather" in md and '{"city": "Oslo"}' in md
    assert "````\n```12 C```\n````" in md  # a longer fence than the result's own backticks
    data = json.loads(await store.export_json(session.id[:10]))
    assert data["session"]["id"] == session.id
    [_, assistant] = data["messages"]
    assert assistant["content"] == "It is 12 C." and assistant["tool_calls"][0]["result"] == "```12 C```"
    assert assistant["tool_calls"][0]["arguments"] == {"city": "Oslo"}
    with pytest.raises(SessionNotFoundError):
        await store.export_json("missing")


async def test_concurrent_writes_are_grouped_and_all_land(store: HistoryStore) -> None:
    import asyncio

    session = await store.create_session("busy")
    messages = await asyncio.gather(
        *(store.append_message(session.id, Role.USER, f"m{i}", MessageStatus.COMPLETE) for i in range(50))
    )
    assert sorted(m.position for m in messages) == list(range(50))
    rows = raw_rows(store.path, "SELECT position, content FROM messages ORDER BY position")
    assert {content: pos for pos, content in rows} == {m.content: m.position for m in messages}


async def test_one_bad_write_in_a_group_fails_alone(store: HistoryStore) -> None:
    import asyncio

    session = await store.create_session("s")
    results = await asyncio.gather(
        store.append_message(session.id, Role.USER, "good", MessageStatus.COMPLETE),
        store.finish_message("missing", MessageStatus.COMPLETE),
        store.append_message(session.id, Role.USER, "also good", MessageStatus.COMPLETE),
        return_exceptions=True,
    )
    assert isinstance(results[1], MessageNotFoundError)
    assert [m.content for m in await store.load_tail(session.id, 5)] == ["good", "also good"]


async def test_recording_a_call_again_updates_it_without_losing_its_arguments(store: HistoryStore) -> None:
    session = await store.create_session("s")
    _, reply = await store.begin_turn(session.id, "q")
    await store.record_tool_call(reply.id, "c1", "t", '{"a": 1}', {"a": 1}, status=ToolStatus.RUNNING)
    await store.record_tool_call(reply.id, "c1", "t", '{"a": 1}', None, status=ToolStatus.INTERRUPTED)
    [message] = await store.load_tail(session.id, 1)
    [call] = message.tool_calls
    assert call.status is ToolStatus.INTERRUPTED and call.arguments == {"a": 1}
    assert call.started_at is not None and call.finished_at is not None
