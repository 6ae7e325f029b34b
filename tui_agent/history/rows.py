"""Provides the reads: SQL rows turned into model objects, in one place (runs on the connection thread)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from tui_agent.history import attachment_rows, file_rows, sub_sessions
from tui_agent.history.attachments import KINDS
from tui_agent.history.in_lists import rows_in
from tui_agent.history.models import Message, SearchHit, Session, ToolCall, Usage, utc_from_epoch
from tui_agent.sanitize import may_decode_to_surrogate, replace_surrogates_in
from tui_agent.status import MessageStatus, Role, ToolStatus

SESSION_COLUMNS = (
    "id, title, created_at, updated_at, model, endpoint, system_prompt, parent_session_id, "
    "parent_message_id, message_count, active_leaf_id, agent, stop_reason"
)
MESSAGE_COLUMNS = (
    "id, session_id, position, role, content, status, error, model, prompt_tokens, "
    "completion_tokens, created_at, updated_at, replaced_by, parent_id, agent, compacted_by, cached_tokens, "
    "cache_write_tokens"
)
TREE_VERSION = 6
"""The schema step that made messages a tree. A database read before it is upgraded (read-only, or while
another program holds the write lock) is read as one branch: every message, in order."""
_LINEAR = {"active_leaf_id": "NULL", "parent_id": "NULL"}
AGENTS_VERSION = 7
"""The schema step that gave sessions and messages their agent (and a team session its stop reason)."""
_AGENTS = {"agent": "NULL", "stop_reason": "NULL"}
COMPACTION_VERSION = 8
"""The schema step that added `messages.compacted_by` (read as NULL from a database before it)."""
CACHED_VERSION = 9
"""The schema step that added `messages.cached_tokens` (read as NULL, none cached, from a database before it)."""
CACHE_WRITES_VERSION = 11
"""The schema step that added `messages.cache_write_tokens` (read as NULL, none written, before it)."""
EVERY = 2**62
"""A depth or position bound that is never reached."""

# The messages shown for a branch: the path from `start` up to the root (at most `depth` of them), and the
# replies retried on it (`replaced_by` a message shown), which stay on screen, dimmed, as before branches.
SHOWN = """WITH RECURSIVE
    path(id, parent_id, depth) AS (
        SELECT id, parent_id, 1 FROM messages WHERE id = :start
        UNION ALL
        SELECT m.id, m.parent_id, path.depth + 1 FROM messages m JOIN path ON m.id = path.parent_id
        WHERE path.depth < :depth),
    shown(id, parent_id) AS (
        SELECT id, parent_id FROM path
        UNION ALL
        SELECT m.id, m.parent_id FROM shown JOIN messages m ON m.replaced_by = shown.id
            AND m.session_id = :session AND m.parent_id IS shown.parent_id)"""
ON_BRANCH_NOT_REPLACED = "CASE WHEN id IN (SELECT id FROM path) THEN NULL ELSE replaced_by END"
"""`replaced_by` as a branch shows it: set only on a reply shown beside its retry, never on one of the path."""
TOOL_COLUMNS = "message_id, call_id, name, raw_arguments, arguments, status, result, error, started_at, finished_at"


def is_tree(conn: sqlite3.Connection) -> bool:
    """True when the database has the tree's columns (schema step 6 or later)."""
    return int(conn.execute("PRAGMA user_version").fetchone()[0]) >= TREE_VERSION


def _columns(conn: sqlite3.Connection, columns: str) -> str:
    """`columns`, with NULL for those a database read before its upgrade does not have yet."""
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    missing = {
        **(_LINEAR if version < TREE_VERSION else {}),
        **(_AGENTS if version < AGENTS_VERSION else {}),
        **({"compacted_by": "NULL"} if version < COMPACTION_VERSION else {}),
        **({"cached_tokens": "NULL"} if version < CACHED_VERSION else {}),
        **({"cache_write_tokens": "NULL"} if version < CACHE_WRITES_VERSION else {}),
    }
    return ", ".join(missing.get(c, c) for c in columns.split(", "))


def _mcols(conn: sqlite3.Connection) -> str:
    """The message columns this database has (NULL for the tree's, before it)."""
    return _columns(conn, MESSAGE_COLUMNS)


def _scols(conn: sqlite3.Connection) -> str:
    """The session columns this database has (NULL for the tree's before step 6, for `agent` before step 7)."""
    return _columns(conn, SESSION_COLUMNS)


def _arguments(text: str) -> Any:
    """Saved arguments; older versions could save a lone surrogate as a JSON escape, read back as U+FFFD."""
    value = json.loads(text)
    return replace_surrogates_in(value) if may_decode_to_surrogate(text) else value


def session_from_row(row: Sequence[Any]) -> Session:
    # Positional, the columns in the fields' order, the times converted inline: a page of 100 rows is read for
    # the session screen, where the keywords and a call per time were a third of making them.
    return Session(row[0], row[1], datetime.fromtimestamp(row[2], UTC), datetime.fromtimestamp(row[3], UTC), *row[4:13])


def message_from_row(row: Sequence[Any]) -> Message:
    usage = None if row[8] is None and row[9] is None else Usage(row[8] or 0, row[9] or 0, row[16] or 0, row[17] or 0)
    return Message(
        id=row[0],
        session_id=row[1],
        position=row[2],
        role=Role(row[3]),
        content=row[4],
        status=MessageStatus(row[5]),
        error=row[6],
        model=row[7],
        usage=usage,
        created_at=utc_from_epoch(row[10]),
        updated_at=utc_from_epoch(row[11]),
        replaced_by=row[12],
        parent_id=row[13],
        agent=row[14],
        compacted_by=row[15],
    )


def tool_call_from_row(row: Sequence[Any]) -> ToolCall:
    return ToolCall(
        message_id=row[0],
        call_id=row[1],
        name=row[2],
        raw_arguments=row[3],
        arguments=None if row[4] is None else _arguments(row[4]),
        status=ToolStatus(row[5]),
        result=row[6],
        error=row[7],
        started_at=row[8],
        finished_at=row[9],
    )


def get_session(conn: sqlite3.Connection, id_or_prefix: str) -> Session | None:
    """The session with this id, or the only one whose id starts with it."""
    row = conn.execute(f"SELECT {_scols(conn)} FROM sessions WHERE id = ?", (id_or_prefix,)).fetchone()
    if row is None and id_or_prefix:
        rows = conn.execute(
            f"SELECT {_scols(conn)} FROM sessions WHERE id >= ? AND id < ? LIMIT 2",
            (id_or_prefix, id_or_prefix + "\U0010ffff"),
        ).fetchall()
        row = rows[0] if len(rows) == 1 else None
    return None if row is None else session_from_row(row)


RECENT_PAGE = "ORDER BY updated_at DESC, rowid LIMIT ? OFFSET ?"
"""A page of the sessions, most recently updated first (parameters: limit, offset). Ties in a set order (pages
neither overlap nor skip): the rowid, which `sessions_recent` holds after `updated_at` - the page is read off that
index, where `id` had every page sorted again."""


def list_recent(conn: sqlite3.Connection, limit: int, offset: int = 0) -> list[Session]:
    """The most recently updated sessions (after the `offset` newest), each marked when a sub-agent's run
    (`Session.sub_agent`)."""
    rows = conn.execute(f"SELECT {_scols(conn)} FROM sessions {RECENT_PAGE}", (limit, offset))
    return mark_sub_agents(conn, [session_from_row(row) for row in rows])


def session_columns(conn: sqlite3.Connection) -> str:
    """The columns `session_from_row` reads, as this database has them."""
    return _scols(conn)


def mark_sub_agents(conn: sqlite3.Connection, sessions: list[Session]) -> list[Session]:
    """`sessions`, each marked when a sub-agent's run (`Session.sub_agent`)."""
    linked = [session.id for session in sessions if session.parent_session_id and session.agent]
    subs = sub_sessions.sub_agent_ids(conn, linked) if linked else set()
    for session in sessions:
        session.sub_agent = session.id in subs
    return sessions


def attach_tool_calls(conn: sqlite3.Connection, messages: list[Message]) -> list[Message]:
    """Fill each message's `tool_calls` (in the order they were recorded)."""
    by_id = {m.id: m for m in messages if m.role is Role.ASSISTANT}
    sql = f"SELECT {TOOL_COLUMNS} FROM tool_calls WHERE message_id IN ({{marks}}) ORDER BY seq"
    for row in rows_in(conn, sql, list(by_id)):
        by_id[row[0]].tool_calls.append(tool_call_from_row(row))
    return messages


def attach_parts(conn: sqlite3.Connection, messages: list[Message]) -> list[Message]:
    """Fill each reply's parts stored beside its text, by kind (`part_texts`; kinds this version does not know,
    written by a newer one, are kept too: exported, and shown in a plain block)."""
    by_id = {m.id: m for m in messages if m.role is Role.ASSISTANT}
    sql = (
        "SELECT message_id, kind, content FROM message_parts WHERE message_id IN ({marks}) "
        "ORDER BY message_id, position"
    )
    for message_id, kind, content in rows_in(conn, sql, list(by_id)):
        if kind in KINDS:  # what the reply's calls returned (or the model sent): `attachment_rows`
            continue
        texts = by_id[message_id].part_texts
        texts[kind] = texts.get(kind, "") + content
    return messages


def _whole(conn: sqlite3.Connection, messages: list[Message]) -> list[Message]:
    """Messages with their tool calls (and the files they changed) and parts."""
    whole = attachment_rows.attach_refs(conn, attach_parts(conn, attach_tool_calls(conn, messages)))
    return file_rows.attach_changes(conn, whole)


def load_tail(conn: sqlite3.Connection, session_id: str, before: int | None, limit: int) -> list[Message]:
    """Up to `limit` messages of the active branch before `position` (to its end when None), oldest first.

    Paging back starts from the message at `before` (the oldest one loaded), so it follows the branch that
    was shown even if another became active meanwhile."""
    if not is_tree(conn):
        return _load_linear(conn, session_id, before, limit)
    start = active_leaf(conn, session_id) if before is None else _at_position(conn, session_id, before)
    if start is None and before is not None:  # no message there: the active branch, cut at `before`
        start, depth = active_leaf(conn, session_id), EVERY
    else:
        depth = limit + 1
    if start is None:
        return []
    # A reply on the branch is its reply, even when it was retried on another branch (switched back to).
    columns = _mcols(conn).replace("replaced_by", ON_BRANCH_NOT_REPLACED)
    rows = conn.execute(
        # Through the session's messages newest first (the position index, no sort), keeping the branch's.
        f"{SHOWN} SELECT {columns} FROM messages WHERE session_id = :session AND position < :bound "
        "AND id IN (SELECT id FROM shown) ORDER BY position DESC LIMIT :limit",
        {
            "start": start,
            "depth": depth,
            "session": session_id,
            "bound": EVERY if before is None else before,
            "limit": limit,
        },
    ).fetchall()
    return _whole(conn, [message_from_row(row) for row in reversed(rows)])


def _load_linear(conn: sqlite3.Connection, session_id: str, before: int | None, limit: int) -> list[Message]:
    bound = before if before is not None else EVERY
    rows = conn.execute(
        f"SELECT {_mcols(conn)} FROM messages WHERE session_id = ? AND position < ? ORDER BY position DESC LIMIT ?",
        (session_id, bound, limit),
    ).fetchall()
    return _whole(conn, [message_from_row(row) for row in reversed(rows)])


def active_leaf(conn: sqlite3.Connection, session_id: str) -> str | None:
    row = conn.execute("SELECT active_leaf_id FROM sessions WHERE id = ?", (session_id,)).fetchone()
    return None if row is None else row[0]


def _at_position(conn: sqlite3.Connection, session_id: str, position: int) -> str | None:
    row = conn.execute(
        "SELECT id FROM messages WHERE session_id = ? AND position = ?", (session_id, position)
    ).fetchone()
    return None if row is None else str(row[0])


def count_shown(conn: sqlite3.Connection, session_id: str) -> int:
    """How many messages the active branch shows (`load_tail` pages through these)."""
    if not is_tree(conn):
        return int(conn.execute("SELECT COUNT(*) FROM messages WHERE session_id = ?", (session_id,)).fetchone()[0])
    start = active_leaf(conn, session_id)
    if start is None:
        return 0
    row = conn.execute(
        f"{SHOWN} SELECT COUNT(*) FROM shown", {"start": start, "depth": EVERY, "session": session_id}
    ).fetchone()
    return int(row[0])


def load_all(conn: sqlite3.Connection, session_id: str) -> list[Message]:
    """The active branch, whole (what an export holds by default)."""
    return load_tail(conn, session_id, None, EVERY)


def load_tree(conn: sqlite3.Connection, session_id: str) -> list[Message]:
    """Every message of the session, every branch, in creation order (each names its `parent_id`)."""
    rows = conn.execute(
        f"SELECT {_mcols(conn)} FROM messages WHERE session_id = ? ORDER BY position", (session_id,)
    ).fetchall()
    return _whole(conn, [message_from_row(row) for row in rows])


def get_message(conn: sqlite3.Connection, message_id: str) -> Message | None:
    row = conn.execute(f"SELECT {_mcols(conn)} FROM messages WHERE id = ?", (message_id,)).fetchone()
    return None if row is None else message_from_row(row)


def siblings(conn: sqlite3.Connection, message: Message) -> list[Message]:
    """The messages sharing `message`'s parent (itself included), oldest first."""
    if not is_tree(conn):
        return [message]
    rows = conn.execute(
        f"SELECT {_mcols(conn)} FROM messages WHERE session_id = ? AND parent_id IS ? ORDER BY position",
        (message.session_id, message.parent_id),
    ).fetchall()
    return _whole(conn, [message_from_row(row) for row in rows])


def children(conn: sqlite3.Connection, message: Message) -> list[Message]:
    if not is_tree(conn):  # one branch: the next message
        rows = conn.execute(
            f"SELECT {_mcols(conn)} FROM messages WHERE session_id = ? AND position = ?",
            (message.session_id, message.position + 1),
        ).fetchall()
        return _whole(conn, [message_from_row(row) for row in rows])
    rows = conn.execute(
        f"SELECT {_mcols(conn)} FROM messages WHERE session_id = ? AND parent_id = ? ORDER BY position",
        (message.session_id, message.id),
    ).fetchall()
    return _whole(conn, [message_from_row(row) for row in rows])


def newest_leaf_under(conn: sqlite3.Connection, session_id: str, message_id: str) -> str:
    """The newest message under `message_id` (itself when it has none): a leaf, since children come later."""
    row = conn.execute(
        "WITH RECURSIVE sub(id) AS (SELECT ? UNION ALL SELECT m.id FROM messages m JOIN sub "
        "ON m.session_id = ? AND m.parent_id = sub.id) "
        "SELECT id FROM messages WHERE id IN (SELECT id FROM sub) ORDER BY position DESC LIMIT 1",
        (message_id, session_id),
    ).fetchone()
    return str(row[0])


def fts_query(text: str) -> str:
    """Turn what a person typed into an FTS5 query: every word must appear (no query syntax errors)."""
    words = [word.replace('"', '""') for word in text.split()]
    return " ".join(f'"{word}"' for word in words)


def search(conn: sqlite3.Connection, text: str, limit: int) -> list[SearchHit]:
    query = fts_query(text)
    if not query:
        return []
    rows = conn.execute(
        "SELECT m.session_id, s.title, m.id, snippet(messages_fts, 0, '[', ']', '…', 12), m.role, m.position "
        "FROM messages_fts JOIN messages m ON m.seq = messages_fts.rowid JOIN sessions s ON s.id = m.session_id "
        "WHERE messages_fts MATCH ? ORDER BY rank LIMIT ?",
        (query, limit),
    )
    return [SearchHit(row[0], row[1], row[2], row[3], Role(row[4]), row[5]) for row in rows]


def session_usage(conn: sqlite3.Connection, session_id: str) -> Usage:
    """Tokens the session's replies used, in all."""
    prompt, completion = conn.execute(
        "SELECT COALESCE(SUM(prompt_tokens), 0), COALESCE(SUM(completion_tokens), 0) "
        "FROM messages WHERE session_id = ?",
        (session_id,),
    ).fetchone()
    return Usage(prompt, completion)
