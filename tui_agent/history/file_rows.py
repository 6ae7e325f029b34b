"""Provides the SQL of the files tool calls changed: a row per file per call in `file_changes` (its path and the
SHA-256 of its content before and after, NULL for "did not exist"), and the bytes once per distinct content per
session (`file_contents`: whole in `file_blobs`, or an edit's content after as the span it replaced in its content
before, in `file_deltas`).

Why in the history file rather than beside it: the file is already private (0600), a call's rows and bytes are
written in one transaction with nothing left half-saved by a crash, and deleting a session deletes its bytes by
the same cascade that deletes its messages (no sweeping of loose files). The bytes are stored as they were,
never redacted: a rewind writes them back, so they must be exact. Exports read messages, never these tables:
what an export shows of a change is its diff, made from the call's `file_changes`.

Plain functions of a sqlite3 connection, called inside the store's reads and write transactions.
"""

from __future__ import annotations

import functools
import os
import sqlite3
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from tui_agent.history import file_contents
from tui_agent.history.file_contents import digest
from tui_agent.history.in_lists import rows_in
from tui_agent.history.models import Message
from tui_agent.payloads import FileChange
from tui_agent.status import Role

__all__ = ["digest"]  # also the name other history modules take from here


@dataclass(frozen=True)
class StoredChange:
    """One recorded change as history keeps it: which call made it, and its contents by hash."""

    message_id: str
    call_id: str
    path: str
    before_hash: str | None
    after_hash: str | None


def working_folder() -> str:
    """The folder tui-agent works in, as a change records it: its real path."""
    return _real(os.getcwd())


@functools.lru_cache(maxsize=16)
def _real(folder: str) -> str:
    # Cached by the path the OS gives for the working folder, which names no symlink on Linux and macOS already
    # (`getcwd` returns the folder's physical path): resolving it again cost as much as storing an edit's span.
    return os.path.realpath(folder)


def record(
    message_id: str, call_id: str, changes: Sequence[FileChange], work_dir: str
) -> Callable[[sqlite3.Connection], None]:
    """A write recording the files call `call_id` of reply `message_id` changed (paths relative to `work_dir`),
    after any already recorded for it, each distinct content stored once in the reply's session."""

    def run(conn: sqlite3.Connection) -> None:
        # One query for the reply's session and where this call's rows go on (an edit's record is mostly SQL
        # once its names are ready: each statement saved is a few percent of issue 29's bench).
        row = conn.execute(
            "SELECT m.session_id, COALESCE((SELECT MAX(position) + 1 FROM file_changes "
            "WHERE message_id = m.id AND call_id = ?), 0) FROM messages m WHERE m.id = ?",
            (call_id, message_id),
        ).fetchone()
        if row is None:  # the reply was deleted meanwhile (its session with it): nothing to keep
            return
        session_id, start = str(row[0]), int(row[1])
        whole: dict[str, bytes] = {}
        spans: dict[str, tuple[str, bytes, bytes]] = {}
        names: list[tuple[str | None, str | None]] = []
        for change in changes:
            old, new = change.before, change.after
            before, after = _name(old), _name(new)
            names.append((before, after))
            if old is not None and before is not None:
                if new is not None and after is not None:
                    spans[after] = (before, old, new)  # the after as a span of the before
                else:
                    whole[before] = old
            elif new is not None and after is not None:
                whole[after] = new
        file_contents.store(conn, session_id, whole, spans)
        conn.executemany(
            "INSERT INTO file_changes (message_id, call_id, position, path, before_hash, after_hash, work_dir) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                (message_id, call_id, start + i, change.path, before, after, work_dir)
                for i, (change, (before, after)) in enumerate(zip(changes, names, strict=True))
            ],
        )

    return run


def store_blobs(conn: sqlite3.Connection, session_id: str, blobs: Mapping[str, bytes]) -> None:
    """Keep each content (by hash) once in `session_id`, whole."""
    file_contents.store(conn, session_id, blobs)


def _name(data: bytes | None) -> str | None:
    return None if data is None else digest(data)


def attach_changes(conn: sqlite3.Connection, messages: list[Message]) -> list[Message]:
    """Fill each reply's tool calls' `file_changes` from the stored rows and bytes (a database older than the
    table has none). A content whose bytes are missing reads as absent."""
    replies = {m.id: m for m in messages if m.role is Role.ASSISTANT and m.tool_calls}
    if not replies or not _has_table(conn):
        return messages
    found = changes_of(conn, list(replies))
    data = load_blobs(conn, (h for c in found for h in (c.before_hash, c.after_hash) if h is not None))
    by_call: dict[tuple[str, str], list[FileChange]] = {}
    for c in found:
        change = FileChange(c.path, _bytes(c.before_hash, data), _bytes(c.after_hash, data))
        by_call.setdefault((c.message_id, c.call_id), []).append(change)
    for message_id, message in replies.items():
        message.tool_calls[:] = [
            call.replace(file_changes=tuple(by_call[key])) if (key := (message_id, call.call_id)) in by_call else call
            for call in message.tool_calls
        ]
    return messages


def _bytes(name: str | None, data: dict[str, bytes]) -> bytes | None:
    return None if name is None else data.get(name)


def changes_of(conn: sqlite3.Connection, message_ids: Sequence[str]) -> list[StoredChange]:
    """The recorded changes of these replies' calls, in the order they were recorded."""
    sql = (
        "SELECT message_id, call_id, path, before_hash, after_hash FROM file_changes "
        "WHERE message_id IN ({marks}) ORDER BY seq"
    )
    return [StoredChange(*row) for row in rows_in(conn, sql, message_ids)]


def session_changes(conn: sqlite3.Connection, session_id: str) -> list[tuple[StoredChange, str | None]]:
    """Every recorded change of a session's calls in the order they were made, each with its call's tool name
    (None when the call's row is gone)."""
    if not _has_table(conn):
        return []
    rows = conn.execute(
        "SELECT f.message_id, f.call_id, f.path, f.before_hash, f.after_hash, t.name FROM file_changes f "
        "JOIN messages m ON m.id = f.message_id "
        "LEFT JOIN tool_calls t ON t.message_id = f.message_id AND t.call_id = f.call_id "
        "WHERE m.session_id = ? ORDER BY f.seq",
        (session_id,),
    )
    return [(StoredChange(*row[:5]), row[5]) for row in rows]


def changed_files(conn: sqlite3.Connection, session_id: str) -> list[tuple[str | None, str, FileChange]]:
    """Every recorded change of a session, in order, as (tool name, the reply's id, the change with its
    contents)."""
    stored = session_changes(conn, session_id)
    blobs = load_blobs(conn, [h for change, _ in stored for h in (change.before_hash, change.after_hash) if h])
    return [
        (
            tool,
            change.message_id,
            FileChange(change.path, _blob(blobs, change.before_hash), _blob(blobs, change.after_hash)),
        )
        for change, tool in stored
    ]


def _blob(blobs: Mapping[str, bytes], digest: str | None) -> bytes | None:
    return None if digest is None else blobs.get(digest, b"")


def load_blobs(conn: sqlite3.Connection, hashes: Iterable[str], sessions: Sequence[str] = ()) -> dict[str, bytes]:
    """The stored bytes of each content by hash (a content is the same whichever session stored it), rebuilt
    from its delta where it is kept as one; a content that cannot be rebuilt is left out. `sessions`: where to
    look first, by the tables' key (`file_contents.load`)."""
    return file_contents.load(conn, hashes, sessions)


def copy_to_fork(conn: sqlite3.Connection, source_id: str, fork_id: str) -> None:
    """Copy the changes of the replies a fork copied (`fork_tree`: old id -> new id), and the contents they
    name into the fork's session: the fork's diffs and its undo keep working when the source is deleted."""
    if not _has_table(conn):
        return
    conn.execute(
        "INSERT INTO file_changes (message_id, call_id, position, path, before_hash, after_hash, work_dir) "
        "SELECT f.new, c.call_id, c.position, c.path, c.before_hash, c.after_hash, c.work_dir "
        "FROM file_changes c JOIN fork_tree f ON f.old = c.message_id ORDER BY c.seq"
    )
    file_contents.copy_named(
        conn,
        source_id,
        fork_id,
        "SELECT c.before_hash FROM file_changes c JOIN fork_tree f ON f.new = c.message_id "
        "UNION SELECT c.after_hash FROM file_changes c JOIN fork_tree f ON f.new = c.message_id",
    )


def _has_table(conn: sqlite3.Connection) -> bool:
    """Whether this database has the tables (a read-only file of an older version may not)."""
    row = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'file_changes'").fetchone()
    return row is not None
