"""Retry and continue in the store: a replaced reply is kept and linked; a continuation is a sibling."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.unit.history.helpers import raw_rows
from tui_agent.history.errors import MessageNotFoundError
from tui_agent.history.schema import MIGRATIONS, migrate
from tui_agent.history.store import HistoryStore
from tui_agent.status import MessageStatus, Role


async def test_a_replaced_reply_is_kept_and_linked_and_a_fork_keeps_the_link(store: HistoryStore) -> None:
    session = await store.create_session("retry")
    _, failed = await store.begin_turn(session.id, "hello")
    await store.finish_message(failed.id, MessageStatus.FAILED, content="half", error="boom")
    retried = await store.replace_reply(session.id, failed.id, model="m")
    assert retried.position == 2 and retried.status is MessageStatus.STREAMING
    await store.finish_message(retried.id, MessageStatus.COMPLETE, content="whole")
    stored = await store.load_tail(session.id, 10)
    assert [(m.content, m.replaced_by) for m in stored] == [("hello", None), ("half", retried.id), ("whole", None)]
    fork = await store.fork_session(session.id, retried.id)
    copied = await store.load_tail(fork.id, 10)
    assert copied[1].replaced_by == copied[2].id  # the link follows the copies
    early = await store.fork_session(session.id, failed.id)
    assert (await store.load_tail(early.id, 10))[1].replaced_by is None  # its replacement is not in that fork
    with pytest.raises(MessageNotFoundError):
        await store.replace_reply(session.id, "not-a-message")


async def test_a_retried_reply_switched_back_to_is_its_branch_s_reply_not_a_replaced_one(store: HistoryStore) -> None:
    session = await store.create_session("retry")
    _, failed = await store.begin_turn(session.id, "hello")
    await store.finish_message(failed.id, MessageStatus.FAILED, content="half", error="boom")
    retried = await store.replace_reply(session.id, failed.id)
    await store.finish_message(retried.id, MessageStatus.COMPLETE, content="whole")
    await store.switch_to(failed.id)
    assert [(m.content, m.replaced_by) for m in await store.load_tail(session.id, 10)] == [
        ("hello", None),
        ("half", None),  # on this branch it is the reply (sent, not dimmed)
    ]
    assert [m.replaced_by for m in await store.tree(session.id)] == [None, retried.id, None]  # the link is kept
    await store.switch_to(retried.id)
    assert [m.replaced_by for m in await store.load_tail(session.id, 10)] == [None, retried.id, None]


async def test_a_continuation_is_a_sibling_and_is_interrupted_if_the_run_ends(db_path: Path) -> None:
    store = await HistoryStore.open(db_path)
    session = await store.create_session("continue")
    _, reply = await store.begin_turn(session.id, "hello")
    await store.finish_message(reply.id, MessageStatus.INTERRUPTED, content="half", error="stopped")
    going_on = await store.add_sibling(reply.id, Role.ASSISTANT, "half", MessageStatus.STREAMING)
    (_, shown) = await store.load_tail(session.id, 10)
    assert shown.id == going_on.id and shown.status is MessageStatus.STREAMING and shown.content == "half"
    await store.close()  # the run ends mid-continuation: the cut-off reply is as it was, the new one interrupted
    assert raw_rows(db_path, "SELECT id, status, content FROM messages WHERE role = 'assistant'") == [
        (reply.id, "interrupted", "half"),
        (going_on.id, "interrupted", "half"),
    ]


def test_the_replaced_by_column_is_added_to_an_existing_database(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "old.db", isolation_level=None)
    migrate(conn, target=2)
    conn.execute("INSERT INTO sessions (id, title, created_at, updated_at) VALUES ('s', 't', 0, 0)")
    conn.execute(
        "INSERT INTO messages (id, session_id, position, role, status, created_at, updated_at) "
        "VALUES ('m', 's', 0, 'user', 'complete', 0, 0)"
    )
    assert migrate(conn) == len(MIGRATIONS) - 2
    assert conn.execute("SELECT id, replaced_by FROM messages").fetchall() == [("m", None)]
    conn.close()


async def test_exports_say_which_reply_was_replaced(store: HistoryStore) -> None:
    session = await store.create_session("retry")
    _, failed = await store.begin_turn(session.id, "hello")
    await store.finish_message(failed.id, MessageStatus.FAILED, content="half", error="boom")
    retried = await store.replace_reply(session.id, failed.id)
    await store.finish_message(retried.id, MessageStatus.COMPLETE, content="whole")
    markdown = await store.export_markdown(session.id)
    assert "## Assistant (failed, replaced by a retry)\n\nhalf" in markdown and "## Assistant\n\nwhole" in markdown
    assert f'"replaced_by": "{retried.id}"' in await store.export_json(session.id)
