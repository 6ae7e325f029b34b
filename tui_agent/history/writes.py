"""Provides the writes: each builds a function of the sqlite3 connection that the `Writer` runs in a transaction."""

from __future__ import annotations

import json
import sqlite3
import time
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from tui_agent.history import attachment_rows, file_rows, rows, team_runs
from tui_agent.history.attachments import Attachment
from tui_agent.history.errors import MessageNotFoundError, SessionNotFoundError
from tui_agent.history.models import Message, Session, Usage
from tui_agent.history.writer import WriteFn
from tui_agent.status import MessageStatus, ToolStatus

OPEN_TOOL = (ToolStatus.PENDING, ToolStatus.AWAITING_APPROVAL, ToolStatus.RUNNING)


def new_id() -> str:
    """A fresh id: uuid4 as 32 hex digits."""
    return uuid.uuid4().hex


def insert_session(session: Session) -> WriteFn:
    row = (
        session.id,
        session.title,
        session.created_at.timestamp(),
        session.updated_at.timestamp(),
        session.model,
        session.endpoint,
        session.system_prompt,
        session.parent_session_id,
        session.parent_message_id,
        session.agent,
    )

    def run(conn: sqlite3.Connection) -> None:
        conn.execute(
            "INSERT INTO sessions (id, title, created_at, updated_at, model, endpoint, system_prompt, "
            "parent_session_id, parent_message_id, agent) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            row,
        )

    return run


def rename_session(session_id: str, title: str) -> WriteFn:
    """A new title only: `updated_at` is the last activity, which orders the session list."""

    def run(conn: sqlite3.Connection) -> None:
        cur = conn.execute("UPDATE sessions SET title = ? WHERE id = ?", (title, session_id))
        _require(cur.rowcount, session_id)

    return run


def set_session_agent(session_id: str, agent: str | None, system_prompt: str | None) -> WriteFn:
    """The agent a session runs and its system prompt (switching agents, or editing the prompt, sets them)."""

    def run(conn: sqlite3.Connection) -> None:
        cur = conn.execute(
            "UPDATE sessions SET agent = ?, system_prompt = ? WHERE id = ?", (agent, system_prompt, session_id)
        )
        _require(cur.rowcount, session_id)

    return run


def mark_team(session_id: str, agent: str, stop_reason: str | None) -> WriteFn:
    """The team a session runs (`agent`, "team:<name>") and why it last stopped (None: it is running)."""

    def run(conn: sqlite3.Connection) -> None:
        cur = conn.execute(
            "UPDATE sessions SET agent = ?, stop_reason = ? WHERE id = ?", (agent, stop_reason, session_id)
        )
        _require(cur.rowcount, session_id)

    return run


def delete_session(session_id: str) -> WriteFn:
    """Delete a session (its messages and their parts go with it) and the attachments no message names any more."""

    def run(conn: sqlite3.Connection) -> None:
        _require(conn.execute("DELETE FROM sessions WHERE id = ?", (session_id,)).rowcount, session_id)
        attachment_rows.prune_unreferenced(conn)

    return run


def _require(rowcount: int, session_id: str) -> None:
    if rowcount == 0:
        raise SessionNotFoundError(f"There is no session {session_id!r} in the history.")


def add_messages(messages: Sequence[Message], owner: str, compacts: Sequence[str] = ()) -> WriteFn:
    """Insert messages under the session's active leaf, each the child of the one before, and make the last
    the active leaf; returns the position of the first (decided in-transaction). `compacts`: messages the
    first one (a summary) stands for from now on (their `compacted_by`), in the same transaction."""
    session_id = messages[0].session_id

    def run(conn: sqlite3.Connection) -> int:
        row = conn.execute("SELECT active_leaf_id FROM sessions WHERE id = ?", (session_id,)).fetchone()
        first = _insert_chain(conn, messages, owner, None if row is None else row[0])
        conn.executemany(
            "UPDATE messages SET compacted_by = ? WHERE id = ? AND session_id = ?",
            [(messages[0].id, compacted, session_id) for compacted in compacts],
        )
        return first

    return run


def _insert_chain(conn: sqlite3.Connection, messages: Sequence[Message], owner: str, parent: str | None) -> int:
    """Insert `messages` as a chain under `parent`, at the end of their session, and make the last active."""
    session_id = messages[0].session_id
    now = time.time()
    row = conn.execute(
        "UPDATE sessions SET message_count = message_count + ?, updated_at = ?, active_leaf_id = ? "
        "WHERE id = ? RETURNING message_count",
        (len(messages), now, messages[-1].id, session_id),
    ).fetchone()
    if row is None:
        raise SessionNotFoundError(f"There is no session {session_id!r} in the history.")
    first = int(row[0]) - len(messages)
    for message in messages:
        message.parent_id, parent = parent, message.id
    conn.executemany(
        "INSERT INTO messages (id, session_id, position, role, content, status, model, created_at, updated_at, "
        "owner, parent_id, agent) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                m.id,
                session_id,
                first + i,
                m.role.value,
                m.content,
                m.status.value,
                m.model,
                now,
                now,
                owner if m.status is MessageStatus.STREAMING else None,
                m.parent_id,
                m.agent,
            )
            for i, m in enumerate(messages)
        ],
    )
    attachment_rows.insert_parts(conn, messages)  # a prompt's files and images (their bytes are saved apart)
    return first


def with_blobs(write: WriteFn, attachments: Sequence[Attachment]) -> WriteFn:
    """`write`, with the attachments' bytes stored first in the same transaction (each hash once)."""
    if not attachments:
        return write

    def run(conn: sqlite3.Connection) -> Any:
        attachment_rows.save_blobs(conn, attachments)
        return write(conn)

    return run


def add_sibling(of_id: str, messages: Sequence[Message], owner: str) -> WriteFn:
    """Insert `messages` as a new branch beside `of_id` (its first shares `of_id`'s parent), made active."""

    def run(conn: sqlite3.Connection) -> int:
        row = conn.execute(
            "SELECT parent_id FROM messages WHERE id = ? AND session_id = ?", (of_id, messages[0].session_id)
        ).fetchone()
        if row is None:
            raise MessageNotFoundError(f"There is no message {of_id!r} in this session.")
        return _insert_chain(conn, messages, owner, row[0])

    return run


def replace_reply(old_id: str, reply: Message, owner: str) -> WriteFn:
    """Insert `reply` (a retry) as the sibling of `old_id`, made active, and mark `old_id` as replaced by it."""
    add = add_sibling(old_id, [reply], owner)

    def run(conn: sqlite3.Connection) -> int:
        first = int(add(conn))
        conn.execute("UPDATE messages SET replaced_by = ? WHERE id = ?", (reply.id, old_id))
        return first

    return run


def switch_to(session_id: str, message_id: str) -> WriteFn:
    """Make the branch through `message_id` active (its newest leaf); returns that leaf's id."""

    def run(conn: sqlite3.Connection) -> str:
        if (
            conn.execute("SELECT 1 FROM messages WHERE id = ? AND session_id = ?", (message_id, session_id)).fetchone()
            is None
        ):
            raise MessageNotFoundError(f"There is no message {message_id!r} in session {session_id!r}.")
        leaf = rows.newest_leaf_under(conn, session_id, message_id)
        conn.execute("UPDATE sessions SET active_leaf_id = ? WHERE id = ?", (leaf, session_id))
        return leaf

    return run


def update_text(message_id: str, text: str, parts: Mapping[str, str] | None = None) -> WriteFn:
    def run(conn: sqlite3.Connection) -> None:
        conn.execute("UPDATE messages SET content = ?, updated_at = ? WHERE id = ?", (text, time.time(), message_id))
        _save_parts(conn, message_id, parts)

    return run


def _save_parts(conn: sqlite3.Connection, message_id: str, parts: Mapping[str, str] | None) -> None:
    """The reply's other parts, one row per kind: a kind it has is updated in place, a new one goes after its
    last (an empty or missing kind: no change, a continued reply keeps its own)."""
    for kind, content in (parts or {}).items():
        if not content:
            continue
        updated = conn.execute(
            "UPDATE message_parts SET content = ? WHERE message_id = ? AND kind = ?", (content, message_id, kind)
        )
        if updated.rowcount == 0:
            conn.execute(
                "INSERT INTO message_parts (message_id, position, kind, content) VALUES (?, (SELECT "
                "COALESCE(MAX(position) + 1, 0) FROM message_parts WHERE message_id = ?), ?, ?)",
                (message_id, message_id, kind, content),
            )


def finish_message(
    message_id: str,
    status: MessageStatus,
    content: str | None,
    error: str | None,
    usage: Usage | None,
    parts: Mapping[str, str] | None = None,
) -> WriteFn:
    tokens = (
        (None,) * 4
        if usage is None
        else (usage.prompt_tokens, usage.completion_tokens, usage.cached_tokens, usage.cache_write_tokens)
    )

    def run(conn: sqlite3.Connection) -> None:
        now = time.time()
        row = conn.execute(
            "UPDATE messages SET status = ?, content = COALESCE(?, content), error = ?, "
            "prompt_tokens = COALESCE(?, prompt_tokens), completion_tokens = COALESCE(?, completion_tokens), "
            "cached_tokens = COALESCE(?, cached_tokens), cache_write_tokens = COALESCE(?, cache_write_tokens), "
            "updated_at = ?, owner = NULL WHERE id = ? "
            "RETURNING session_id",
            (status.value, content, error, *tokens, now, message_id),
        ).fetchone()
        if row is None:
            raise MessageNotFoundError(f"There is no message {message_id!r} in the history.")
        _save_parts(conn, message_id, parts)
        conn.execute("UPDATE sessions SET updated_at = ? WHERE id = ?", (now, row[0]))

    return run


def record_tool_call(
    message_id: str,
    call_id: str,
    name: str,
    raw_arguments: str,
    arguments: dict[str, Any] | None,
    status: ToolStatus,
    owner: str,
) -> WriteFn:
    row = (
        message_id,
        call_id,
        name,
        raw_arguments,
        None if arguments is None else json.dumps(arguments),
        status.value,
        owner if status in OPEN_TOOL else None,
    )

    def run(conn: sqlite3.Connection) -> None:
        now = time.time()
        try:
            conn.execute(
                "INSERT INTO tool_calls (message_id, call_id, name, raw_arguments, arguments, status, owner, "
                "started_at, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (message_id, call_id) DO UPDATE SET name = excluded.name, "
                "raw_arguments = excluded.raw_arguments, arguments = COALESCE(excluded.arguments, arguments), "
                "status = excluded.status, owner = excluded.owner, "
                "started_at = COALESCE(started_at, excluded.started_at), "
                "finished_at = COALESCE(excluded.finished_at, finished_at)",
                (*row, now if status is ToolStatus.RUNNING else None, now if status.is_final else None),
            )
        except sqlite3.IntegrityError as error:
            raise MessageNotFoundError(
                f"There is no message {message_id!r} to attach tool call {call_id!r} to."
            ) from error

    return run


def update_tool_call(
    message_id: str, call_id: str, status: ToolStatus, result: str | None, error: str | None, owner: str
) -> WriteFn:
    def run(conn: sqlite3.Connection) -> None:
        now = time.time()
        cur = conn.execute(
            "UPDATE tool_calls SET status = ?, result = COALESCE(?, result), error = COALESCE(?, error), "
            "started_at = CASE WHEN ? THEN COALESCE(started_at, ?) ELSE started_at END, "
            "finished_at = CASE WHEN ? THEN ? ELSE finished_at END, owner = ? WHERE message_id = ? AND call_id = ?",
            (
                status.value,
                result,
                error,
                status is ToolStatus.RUNNING,
                now,
                status.is_final,
                now,
                owner if status in OPEN_TOOL else None,
                message_id,
                call_id,
            ),
        )
        if cur.rowcount == 0:
            raise MessageNotFoundError(f"There is no tool call {call_id!r} on message {message_id!r}.")

    return run


def fork_session(fork: Session, source_id: str, message_id: str) -> WriteFn:
    """Create `fork` holding copies of the branch up to and including `message_id` (with the replies retried on
    it), numbered from 0, `message_id`'s copy the active leaf."""

    def run(conn: sqlite3.Connection) -> int:
        row = conn.execute(
            "SELECT position FROM messages WHERE id = ? AND session_id = ?", (message_id, source_id)
        ).fetchone()
        if row is None:
            raise MessageNotFoundError(f"Session {source_id!r} has no message {message_id!r} to fork from.")
        insert_session(fork)(conn)
        count = _copy_messages(conn, source_id, fork.id, message_id)
        conn.execute(
            "UPDATE sessions SET message_count = ?, active_leaf_id = (SELECT new FROM fork_tree WHERE "
            "old = ?) WHERE id = ?",
            (count, message_id, fork.id),
        )
        team_runs.copy_to_fork(conn, source_id, fork.id)  # the stop lines of the team runs it copied
        file_rows.copy_to_fork(conn, source_id, fork.id)  # the files its tool calls changed, and their contents
        conn.execute("DELETE FROM fork_tree")
        return count

    return run


def _copy_messages(conn: sqlite3.Connection, source_id: str, fork_id: str, last_id: str) -> int:
    rows_ = conn.execute(
        f"{rows.SHOWN} SELECT m.id FROM messages m WHERE m.id IN (SELECT id FROM shown) ORDER BY m.position",
        {"start": last_id, "depth": rows.EVERY, "session": source_id},
    )
    mapping = [(new_id(), old, index) for index, (old,) in enumerate(rows_.fetchall())]
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS fork_tree (new TEXT, old TEXT, position INTEGER)")
    conn.execute("DELETE FROM fork_tree")
    conn.executemany("INSERT INTO fork_tree VALUES (?, ?, ?)", mapping)
    # A copied reply that was still streaming is not streaming in the fork.
    conn.execute(
        "INSERT INTO messages (id, session_id, position, role, content, status, error, model, prompt_tokens, "
        "completion_tokens, cached_tokens, cache_write_tokens, created_at, updated_at, replaced_by, parent_id, agent, "
        "compacted_by) "
        "SELECT f.new, ?, f.position, m.role, m.content, "
        "CASE m.status WHEN 'streaming' THEN 'interrupted' ELSE m.status END, m.error, m.model, "
        "m.prompt_tokens, m.completion_tokens, m.cached_tokens, m.cache_write_tokens, m.created_at, m.updated_at, "
        "(SELECT r.new FROM fork_tree r WHERE r.old = m.replaced_by), "
        "(SELECT p.new FROM fork_tree p WHERE p.old = m.parent_id), m.agent, "
        # A summary forked with its messages stands for them in the fork too; one left behind (the fork is
        # cut before it) compacts nothing there.
        "(SELECT c.new FROM fork_tree c WHERE c.old = m.compacted_by) "
        "FROM fork_tree f JOIN messages m ON m.id = f.old ORDER BY f.position",
        (fork_id,),
    )
    conn.execute(
        "INSERT INTO tool_calls (message_id, call_id, name, raw_arguments, arguments, status, result, error, "
        "started_at, finished_at) SELECT f.new, t.call_id, t.name, t.raw_arguments, t.arguments, "
        "CASE WHEN t.status IN ('pending', 'awaiting_approval', 'running') THEN 'interrupted' ELSE t.status END, "
        "t.result, t.error, t.started_at, t.finished_at FROM fork_tree f JOIN tool_calls t ON t.message_id = f.old "
        "ORDER BY t.seq"
    )
    conn.execute(
        "INSERT INTO message_parts (message_id, position, kind, content) SELECT f.new, p.position, p.kind, "
        "p.content FROM fork_tree f JOIN message_parts p ON p.message_id = f.old ORDER BY p.seq"
    )
    return len(mapping)


def interrupt_owned(owner: str) -> WriteFn:
    """On close: this store's replies still streaming and calls still open become interrupted."""

    def run(conn: sqlite3.Connection) -> None:
        now = time.time()
        conn.execute(
            "UPDATE messages SET status = 'interrupted', updated_at = ?, owner = NULL "
            "WHERE status = 'streaming' AND owner = ?",
            (now, owner),
        )
        conn.execute(
            "UPDATE tool_calls SET status = 'interrupted', finished_at = ?, owner = NULL "
            "WHERE status IN ('pending', 'awaiting_approval', 'running') AND owner = ?",
            (now, owner),
        )

    return run
