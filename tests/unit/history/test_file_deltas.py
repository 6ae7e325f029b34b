"""An edit's content after is kept as the span it replaced in its content before (`file_contents`), and every
reader still gets the exact bytes back: the calls of a loaded session, their export diffs, the moves a rewind
makes, a fork whose source is deleted. Kept small (a handful of changed bytes per edit), bounded in depth, in
the private history file, and deleted with the session. A real SQLite file; the spans' edge cases (a change at
the start or the end, in a run of repeated bytes, growing or shrinking, no change) against an in-memory one."""

from __future__ import annotations

import os
import sqlite3
import stat
from itertools import pairwise
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tui_agent.history import file_contents
from tui_agent.history.export import to_markdown
from tui_agent.history.file_contents import MAX_DEPTH, digest
from tui_agent.history.file_states import FileMove, Restored, last_restore, moves_between, record_restore
from tui_agent.history.schema import migrate
from tui_agent.history.store import HistoryStore
from tui_agent.payloads import FileChange
from tui_agent.status import ToolStatus

LINE = "value = compute(alpha, beta, gamma)  # ordinary code, ünïcode too\r\n"


def big_file() -> bytes:
    return "".join(f"{index:06d} {LINE}" for index in range(1600)).encode()  # ~100 KB, CRLF


def edited(data: bytes, number: int) -> bytes:
    """`data` with one line (a different one each time, the first and last among them) rewritten."""
    lines = data.split(b"\r\n")
    at = [0, len(lines) - 2, 800][number % 3] if number < 3 else (number * 37) % (len(lines) - 1)
    lines[at] = f"{at:06d} edited {number}".encode() + b"!" * (number % 5)
    return b"\r\n".join(lines)


def rows(db: Path, sql: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(db) as conn:
        return list(conn.execute(sql))


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The test runs in `tmp_path`; its real path, as a change records its folder."""
    monkeypatch.chdir(tmp_path)
    return os.path.realpath(tmp_path)


async def test_a_chain_of_edits_is_kept_as_spans_and_read_back_exactly_everywhere(
    store: HistoryStore, db_path: Path, here: str
) -> None:
    session = await store.create_session("edits")
    contents = [big_file()]
    replies = []
    for number in range(MAX_DEPTH + 6):  # past the depth at which a content is kept whole again
        _, reply = await store.begin_turn(session.id, f"edit {number}")
        call = f"c{number}"
        await store.record_tool_call(reply.id, call, "edit_file", "{}", {})
        after = edited(contents[-1], number) if number != 5 else contents[-1]  # edit 5 changes nothing
        await store.update_tool_call(
            reply.id, call, ToolStatus.DONE, "ok", file_changes=[FileChange("big.py", contents[-1], after)]
        )
        contents.append(after)
        replies.append(reply)
    expected = [FileChange("big.py", before, after) for before, after in pairwise(contents)]

    loaded = await store.load_tail(session.id, 100)
    assert [c for m in loaded for call in m.tool_calls for c in call.file_changes] == expected
    markdown = to_markdown(session, loaded)  # the export's diff of the first edit: its first line
    assert f"-000000 {LINE[:-2]}\n+000000 edited 0" in markdown.replace("\r", "")
    first, last = replies[0].id, replies[-1].id
    assert await store.file_moves(session.id, last, first) == [FileMove(here, "big.py", contents[-1], contents[1])]

    depths = [int(str(d)) for (d,) in rows(db_path, "SELECT depth FROM file_deltas")]
    assert len(depths) == len(set(contents)) - 2  # every content but the first and one kept whole again is a span
    assert max(depths) == MAX_DEPTH and sorted(depths)[:2] == [1, 1]  # the chain starts again from a whole one
    [(kept,)] = rows(db_path, "SELECT SUM(LENGTH(data)) FROM file_deltas")
    assert isinstance(kept, int) and kept < 100 * len(depths)  # a few bytes an edit, not 100 KB
    assert rows(db_path, "SELECT COUNT(*) FROM file_blobs") == [(2,)]
    assert mode_of(db_path) == 0o600

    fork = await store.fork_session(session.id, replies[MAX_DEPTH + 3].id)  # its contents are built on deltas
    await store.delete_session(session.id)
    forked = [c for m in await store.load_tail(fork.id, 100) for call in m.tool_calls for c in call.file_changes]
    assert forked == expected[: MAX_DEPTH + 4]
    await store.delete_session(fork.id)
    assert rows(db_path, "SELECT COUNT(*) FROM file_deltas") == rows(db_path, "SELECT COUNT(*) FROM file_blobs")
    assert rows(db_path, "SELECT COUNT(*) FROM file_blobs") == [(0,)]


def memory() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:", isolation_level=None)
    migrate(conn)
    return conn


@settings(max_examples=40, deadline=None)
@given(
    base=st.binary(min_size=0, max_size=64),
    repeat=st.integers(min_value=1, max_value=300),
    start=st.integers(min_value=0, max_value=20_000),
    removed=st.integers(min_value=0, max_value=40),
    added=st.binary(max_size=40) | st.sampled_from([b"a", b"aa", b"ab"]),
)
def test_any_one_span_replaced_is_rebuilt_exactly(
    base: bytes, repeat: int, start: int, removed: int, added: bytes
) -> None:
    before = (base or b"a") * repeat  # repeated runs: the shared start and end could overlap
    start = min(start, len(before))
    after = before[:start] + added + before[start + removed :]
    conn = memory()
    file_contents.store(conn, "s", {}, {digest(after): (digest(before), before, after)})
    assert file_contents.load(conn, [digest(after), digest(before)]) == {digest(after): after, digest(before): before}
    kept = conn.execute("SELECT LENGTH(data) FROM file_deltas").fetchall()
    if len(after) >= 4096 and before != after:  # a small content, or a big one's small change
        assert kept and kept[0][0] <= removed + len(added)


def test_a_content_whose_base_is_gone_or_wrong_is_missing_not_wrong() -> None:
    conn = memory()
    before = big_file()
    after = edited(before, 1)
    file_contents.store(conn, "s", {}, {digest(after): (digest(before), before, after)})
    conn.execute("UPDATE file_blobs SET data = X'00'")  # a base of the wrong length
    assert file_contents.load(conn, [digest(after)]) == {}
    conn.execute("DELETE FROM file_blobs")
    assert file_contents.load(conn, [digest(after)]) == {}


async def test_a_calls_changes_recorded_in_parts_keep_their_order_and_a_deleted_reply_records_nothing(
    store: HistoryStore, db_path: Path, here: str
) -> None:
    # The record finds the reply's session and where the call's rows go on in one query (issue 29's speed).
    session = await store.create_session("parts")
    _, reply = await store.begin_turn(session.id, "edit")
    await store.record_tool_call(reply.id, "c", "run_shell", "{}", {})
    _, other = await store.begin_turn(session.id, "other")
    await store.record_tool_call(other.id, "c", "edit_file", "{}", {})
    await store.record_file_changes(reply.id, "c", [FileChange("a.txt", None, b"a"), FileChange("b.txt", None, b"b")])
    await store.record_file_changes(other.id, "c", [FileChange("z.txt", None, b"z")])  # another reply, same call id
    await store.update_tool_call(reply.id, "c", ToolStatus.DONE, "ok", file_changes=[FileChange("a.txt", b"a", None)])
    assert rows(db_path, f"SELECT position, path FROM file_changes WHERE message_id = '{reply.id}' ORDER BY seq") == [
        (0, "a.txt"),
        (1, "b.txt"),
        (2, "a.txt"),
    ]
    loaded = await store.load_tail(session.id, 10)
    assert [c for m in loaded if m.id == reply.id for call in m.tool_calls for c in call.file_changes] == [
        FileChange("a.txt", None, b"a"),
        FileChange("b.txt", None, b"b"),
        FileChange("a.txt", b"a", None),
    ]
    await store.delete_session(session.id)
    await store.record_file_changes(reply.id, "c", [FileChange("late.txt", None, b"late")])  # its reply is gone
    assert rows(db_path, "SELECT COUNT(*) FROM file_changes") == [(0,)]
    assert rows(db_path, "SELECT COUNT(*) FROM file_blobs") == [(0,)]


async def test_a_rewinds_contents_are_found_by_their_session_not_by_scanning_every_sessions(tmp_path: Path) -> None:
    """The contents a rewind's plan and an undo read are looked up under the session's own key: a lookup by
    name alone scans every session's contents, which in a big history is most of the file. A content only
    another session keeps (a sub-agent's) is still found."""
    first, second = big_file(), edited(big_file(), 1)
    store = await HistoryStore.open(tmp_path / "history.db")
    try:
        for name in ("other", "rewound"):  # another session's contents, so a scan has rows to go through
            session = await store.create_session(name)
            _, reply = await store.begin_turn(session.id, "edit")
            await store.record_tool_call(reply.id, "call-1", "write_file", "{}", {})
            await store.record_file_changes(reply.id, "call-1", [FileChange("a.txt", first, second)])
    finally:
        await store.close()
    with sqlite3.connect(tmp_path / "history.db", isolation_level=None) as conn:
        statements: list[str] = []
        conn.set_trace_callback(statements.append)
        moves = moves_between(conn, session.id, reply.id, None)
        assert [(move.path, move.expected, move.target) for move in moves] == [("a.txt", second, first)]
        conn.execute("BEGIN")
        record_restore(session.id, "restore-1", None, [Restored("", "a.txt", second, first)])(conn)
        found = last_restore(conn, session.id)
        conn.execute("ROLLBACK")
        assert found is not None and found[1] == [Restored("", "a.txt", second, first)]
        conn.set_trace_callback(None)
        reads = [
            sql for sql in statements if sql.startswith("SELECT") and ("file_blobs" in sql or "file_deltas" in sql)
        ]
        assert reads
        for sql in reads:
            plan = " ".join(row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + sql))
            assert "SCAN file_blobs" not in plan and "SCAN file_deltas" not in plan, (sql[:120], plan)
        # A content kept only by another session (as a sub-agent's are) is found by its name.
        conn.execute("DELETE FROM file_blobs WHERE session_id = ?", (session.id,))
        conn.execute("DELETE FROM file_deltas WHERE session_id = ?", (session.id,))
        assert file_contents.load(conn, [digest(first), digest(second)], [session.id]) == {
            digest(first): first,
            digest(second): second,
        }
