"""Messages made of parts: reasoning stored beside the text, migrated into old files, forked and exported."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

from tests.unit.history.helpers import raw_rows
from tui_agent.history.models import StreamedPart, TextPart, ToolCallPart
from tui_agent.history.redact import Redactor
from tui_agent.history.saver import StreamingSaver
from tui_agent.history.schema import LATEST_VERSION, migrate
from tui_agent.history.store import HistoryStore
from tui_agent.status import MessageStatus, ToolStatus

BEFORE_PARTS = 4
"""The schema version before message parts (the last release's)."""


def _database_before_parts(path: Path) -> None:
    """A file as the previous version left it: a session with a prompt and a reply that called a tool."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, isolation_level=None)
    migrate(conn, target=BEFORE_PARTS)
    conn.execute(
        "INSERT INTO sessions (id, title, created_at, updated_at, message_count) VALUES ('s1', 'old', 1.0, 1.0, 2)"
    )
    conn.execute(
        "INSERT INTO messages (id, session_id, position, role, content, status, created_at, updated_at) "
        "VALUES ('m1', 's1', 0, 'user', 'weather?', 'complete', 1.0, 1.0), "
        "('m2', 's1', 1, 'assistant', 'Sunny.', 'complete', 2.0, 2.0)"
    )
    conn.execute(
        "INSERT INTO tool_calls (message_id, call_id, name, raw_arguments, arguments, status, result) "
        "VALUES ('m2', 'c1', 'weather', '{}', '{}', 'done', 'sun')"
    )
    conn.close()


async def test_an_older_database_is_migrated_and_its_messages_kept(db_path: Path) -> None:
    _database_before_parts(db_path)
    store = await HistoryStore.open(db_path)
    try:
        assert store.report.migrated_from == BEFORE_PARTS
        user, reply = await store.load_tail("s1", 10)
        assert (user.content, reply.content, reply.reasoning) == ("weather?", "Sunny.", "")
        assert [type(part) for part in reply.parts] == [TextPart, ToolCallPart]
        assert reply.tool_calls[0].result == "sun"
        _, new = await store.begin_turn("s1", "and tomorrow?")
        await store.finish_message(
            new.id, MessageStatus.COMPLETE, content="Rain.", parts={"reasoning": "Check the front."}
        )
        assert (await store.load_tail("s1", 1))[0].parts == [
            StreamedPart("reasoning", "Check the front."),
            TextPart("Rain."),
        ]
    finally:
        await store.close()
    assert raw_rows(db_path, "PRAGMA user_version") == [(LATEST_VERSION,)]


async def test_reasoning_is_saved_while_it_streams_and_redacted(db_path: Path) -> None:
    secret = "sk-reasoning-secret-123456"
    store = await HistoryStore.open(db_path, redactor=Redactor([secret]))
    try:
        session = await store.create_session("t")
        _, reply = await store.begin_turn(session.id, "hi")
        saver = StreamingSaver(store, reply.id, interval=0.0)
        saver.push_part("reasoning", f"The key is {secret}; ")
        saver.push_part("reasoning", "do not say it.")
        for _ in range(200):  # the background save lands (no text yet: the reasoning alone is saved)
            await asyncio.sleep(0.01)
            if rows := raw_rows(db_path, "SELECT kind, content FROM message_parts"):
                break
        assert rows == [("reasoning", "The key is [redacted]; do not say it.")]
        saver.push("Hello.")
        await saver.finish(MessageStatus.COMPLETE)
        stored = (await store.load_tail(session.id, 1))[0]
        assert stored.parts == [StreamedPart("reasoning", "The key is [redacted]; do not say it."), TextPart("Hello.")]
    finally:
        await store.close()


async def test_a_reasoning_only_reply_is_kept_as_such(store: HistoryStore) -> None:
    session = await store.create_session("t")
    _, reply = await store.begin_turn(session.id, "hi")
    await store.finish_message(reply.id, MessageStatus.COMPLETE, content="", parts={"reasoning": "Nothing to add."})
    stored = (await store.load_tail(session.id, 1))[0]
    assert stored.parts == [StreamedPart("reasoning", "Nothing to add.")]
    markdown = await store.export_markdown(session.id)
    assert "> Nothing to add." in markdown and "_(reasoning only, no answer)_" in markdown


async def test_a_fork_keeps_the_reasoning(store: HistoryStore) -> None:
    session = await store.create_session("t")
    _, reply = await store.begin_turn(session.id, "hi")
    await store.finish_message(reply.id, MessageStatus.COMPLETE, content="Hello.", parts={"reasoning": "Be kind."})
    fork = await store.fork_session(session.id, reply.id)
    assert (await store.load_tail(fork.id, 1))[0].reasoning == "Be kind."


async def test_exports_carry_the_parts_in_order(store: HistoryStore) -> None:
    session = await store.create_session("t")
    _, reply = await store.begin_turn(session.id, "weather?")
    await store.record_tool_call(reply.id, "c1", "weather", '{"city": "Oslo"}', {"city": "Oslo"})
    await store.update_tool_call(reply.id, "c1", ToolStatus.DONE, result="snow")
    await store.finish_message(
        reply.id, MessageStatus.COMPLETE, content="Snow.", parts={"reasoning": "Line one.\n\nLine two."}
    )
    markdown = await store.export_markdown(session.id)
    section = markdown[markdown.index("## Assistant") :]
    assert section.index("### Reasoning") < section.index("> Line one.\n>\n> Line two.") < section.index("Snow.")
    assert section.index("Snow.") < section.index("### Tool call `weather`")
    exported = json.loads(await store.export_json(session.id))
    assert exported["messages"][1]["parts"] == [
        {"kind": "reasoning", "text": "Line one.\n\nLine two."},
        {"kind": "text", "text": "Snow."},
        {"kind": "tool_call", "call_id": "c1"},
    ]
    assert exported["messages"][0]["parts"] == [{"kind": "text", "text": "weather?"}]


async def test_parts_of_any_kind_are_kept_in_order_and_exported(store: HistoryStore) -> None:
    session = await store.create_session("t")
    _, reply = await store.begin_turn(session.id, "hi")
    saver = StreamingSaver(store, reply.id, interval=0.0, parts={"reasoning": "Be kind. "})  # a continued reply
    saver.push_part("critique", "Too terse.")  # a kind no view is registered for
    saver.push_part("reasoning", "Say hello.")
    saver.push("Hello.")
    await saver.finish(MessageStatus.COMPLETE)
    (stored,) = await store.load_tail(session.id, 1)
    assert stored.parts == [
        StreamedPart("reasoning", "Be kind. Say hello."),
        StreamedPart("critique", "Too terse."),
        TextPart("Hello."),
    ]
    markdown = await store.export_markdown(session.id)
    section = markdown[markdown.index("## Assistant") :]
    assert section.index("### Reasoning") < section.index("### Critique\n\n> Too terse.") < section.index("Hello.")
    parts = json.loads(await store.export_json(session.id))["messages"][1]["parts"]
    assert [part["kind"] for part in parts] == ["reasoning", "critique", "text"]


async def test_a_reply_of_other_parts_only_says_which_in_markdown(store: HistoryStore) -> None:
    session = await store.create_session("t")
    _, reply = await store.begin_turn(session.id, "hi")
    await store.finish_message(reply.id, MessageStatus.COMPLETE, content="", parts={"critique": "No."})
    assert "_(critique only, no answer)_" in await store.export_markdown(session.id)
