"""The files a session's tree carries, read between two points of it: a sub-agent's changes move with the call
that ran it, and a session whose rows predate the folder record reads as the folder tui-agent runs in. A real
SQLite file."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from tui_agent.history.file_states import FileMove
from tui_agent.history.store import HistoryStore
from tui_agent.payloads import FileChange
from tui_agent.status import ToolStatus


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The test runs in `tmp_path`; its real path, as a change records its folder."""
    monkeypatch.chdir(tmp_path)
    return os.path.realpath(tmp_path)


async def test_a_sub_agents_changes_move_with_the_call_that_ran_it(
    store: HistoryStore, db_path: Path, here: str
) -> None:
    session = await store.create_session("main")
    user, reply = await store.begin_turn(session.id, "ask the coder to write x")
    await store.record_tool_call(reply.id, "c1", "ask_coder", "{}", {})
    await store.update_tool_call(reply.id, "c1", ToolStatus.RUNNING)  # the call that ran the sub-agent
    await store.record_file_changes(reply.id, "c0", [FileChange("own.txt", None, b"own")])
    sub = await store.create_sub_session("coder", session.id, reply.id, "coder")
    _, sub_reply = await store.begin_turn(sub.id, "write x")
    await store.record_file_changes(sub_reply.id, "s1", [FileChange("x.txt", None, b"x1")])
    await store.record_file_changes(sub_reply.id, "s2", [FileChange("x.txt", b"x1", b"x2")])

    back = await store.file_moves(session.id, reply.id, None)  # to before the first prompt
    assert back == [FileMove(here, "own.txt", b"own", None), FileMove(here, "x.txt", b"x2", None)]
    forth = await store.file_moves(session.id, user.id, reply.id)
    assert forth == [FileMove(here, "own.txt", None, b"own"), FileMove(here, "x.txt", None, b"x2")]
    assert await store.file_moves(session.id, reply.id, reply.id) == []

    with sqlite3.connect(db_path) as conn:  # rows recorded before the folder was: the folder tui-agent runs in
        conn.execute("UPDATE file_changes SET work_dir = NULL")
    assert [move.work_dir for move in await store.file_moves(session.id, reply.id, None)] == ["", ""]
