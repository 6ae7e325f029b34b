"""Provides `HistoryStore`: the async API over the history database (one connection, one writer).

Reads and grouped writes run on aiosqlite's connection thread, one hop each, so the event loop never
waits on the disk. Writes that the disk refuses (full, locked, read-only) are kept in memory and retried;
`report.notices()` says what happened, `unsaved` says what is waiting (for an indicator).

This module opens the store and hands out its parts, small objects that each own what they need: the
connection and writer (`db`, `database.py`), sessions (`sessions`, `store_sessions.py`), new messages and
branches (`messages`, `store_messages.py`), a reply's progress (`replies`, `store_replies.py`), reads (`reads`,
`store_reads.py`) and export (`export`, `store_export.py`). Callers say `store.rename_session(...)`: each such
method is one part's own (`Via`), so the store holds no state of theirs.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from pathlib import Path

import aiosqlite

from tui_agent import paths
from tui_agent.history.database import Database
from tui_agent.history.next_positions import NextPositions
from tui_agent.history.opening import (
    CorruptDatabaseError,
    Mode,
    NotOursError,
    check_file,
    choose_mode,
    make_private,
    move_aside,
    prepare,
    settle,
    uri_for,
)
from tui_agent.history.redact import Redactor
from tui_agent.history.report import OpenReport
from tui_agent.history.store_export import Export
from tui_agent.history.store_files import Files
from tui_agent.history.store_messages import Messages
from tui_agent.history.store_reads import Reads
from tui_agent.history.store_replies import Replies
from tui_agent.history.store_sessions import Sessions
from tui_agent.history.via import Via

DEFAULT_BUSY_TIMEOUT = 5.0


def _db(store: HistoryStore) -> Database:
    return store.db


def _sessions(store: HistoryStore) -> Sessions:
    return store.sessions


def _messages(store: HistoryStore) -> Messages:
    return store.messages


def _replies(store: HistoryStore) -> Replies:
    return store.replies


def _reads(store: HistoryStore) -> Reads:
    return store.reads


def _files(store: HistoryStore) -> Files:
    return store.files


def _export(store: HistoryStore) -> Export:
    return store.export


class HistoryStore:
    """Sessions, messages and tool calls in one SQLite file. Create with `await HistoryStore.open(path)`."""

    def __init__(self, db: Database, redactor: Redactor) -> None:
        self.db = db
        """The connection and its writer: every part reaches the file through it."""
        self.path, self.mode, self.report, self.owner = db.path, db.mode, db.report, db.owner
        self.redactor = redactor
        """What every text is passed through before it is stored."""
        positions = NextPositions()
        self.reads = Reads(db)
        self.sessions = Sessions(db, self.reads, redactor, positions)
        self.messages = Messages(db, self.reads, redactor, positions)
        self.replies = Replies(db, redactor)
        self.export = Export(db, self.reads)
        self.files = Files(db)

    @classmethod
    async def open(
        cls,
        path: Path | None = None,
        *,
        busy_timeout: float = DEFAULT_BUSY_TIMEOUT,
        retry_delay: float = 1.0,
        redactor: Redactor | None = None,
    ) -> HistoryStore:
        """Open (creating, migrating, recovering or moving aside as needed) the database at `path`."""
        db, mode = await asyncio.to_thread(_resolve, path)
        report = OpenReport(db)
        mode = await asyncio.to_thread(check_file, db, mode, report)
        try:
            conn, locked = await _connect(db, mode, report, int(busy_timeout * 1000))
        except CorruptDatabaseError as error:
            report.moved_aside = await asyncio.to_thread(move_aside, db)
            report.not_ours = error.reason if isinstance(error, NotOursError) else None
            await asyncio.to_thread(make_private, db)
            conn, locked = await _connect(db, mode, report, int(busy_timeout * 1000))
        report.read_only = mode in (Mode.READ_ONLY, Mode.IMMUTABLE)
        report.in_memory = mode is Mode.MEMORY
        if redactor is None:
            redactor = await asyncio.to_thread(Redactor.default, paths.config_file())
        store = cls(Database(conn, db, mode, report, retry_delay), redactor)
        if locked is not None:  # the session starts in memory; the upgrade and recovery wait with the writes
            store.db.hold(settle, locked)
        return store

    @property
    def on_notice(self) -> Callable[[str], None] | None:
        """Called with each notice raised after opening (disk full, saving again...)."""
        return self.db.on_notice

    @on_notice.setter
    def on_notice(self, listener: Callable[[str], None] | None) -> None:
        self.db.on_notice = listener

    @property
    def on_state(self) -> Callable[[], None] | None:
        """Called when `unsaved` may have changed."""
        return self.db.on_state

    @on_state.setter
    def on_state(self, listener: Callable[[], None] | None) -> None:
        self.db.on_state = listener

    @property
    def read_only(self) -> bool:
        """True when the file could only be opened for reading (changes are kept in memory)."""
        return self.db.read_only

    @property
    def unsaved(self) -> str | None:
        """What is not being saved and why, in a few words ("database locked (3 pending)"); None when all is."""
        return self.db.unsaved

    @property
    def pending_writes(self) -> int:
        """Writes kept in memory because the disk refused them (0 when everything is saved)."""
        return self.db.pending_writes

    @property
    def transactions(self) -> int:
        """Write transactions committed by this store (writes queued together share one)."""
        return self.db.transactions

    # Each of these is one part's method, under the name callers have always used.
    flush = Via(_db, Database.flush)
    save_before_exit = Via(_db, Database.save_before_exit)
    close = Via(_db, Database.close)

    create_session = Via(_sessions, Sessions.create_session)
    create_sub_session = Via(_sessions, Sessions.create_sub_session)
    mark_team = Via(_sessions, Sessions.mark_team)
    record_team_stop = Via(_sessions, Sessions.record_team_stop)
    team_stops = Via(_sessions, Sessions.team_stops)
    rename_session = Via(_sessions, Sessions.rename_session)
    set_session_agent = Via(_sessions, Sessions.set_session_agent)
    delete_session = Via(_sessions, Sessions.delete_session)
    fork_session = Via(_sessions, Sessions.fork_session)

    begin_turn = Via(_messages, Messages.begin_turn)
    leave_out_images = Via(_messages, Messages.leave_out_images)
    leave_out_call_images = Via(_messages, Messages.leave_out_call_images)
    attach_to_call = Via(_messages, Messages.attach_to_call)
    append_message = Via(_messages, Messages.append_message)
    add_summary = Via(_messages, Messages.add_summary)
    replace_reply = Via(_messages, Messages.replace_reply)
    add_sibling = Via(_messages, Messages.add_sibling)
    switch_to = Via(_messages, Messages.switch_to)

    update_streaming_text = Via(_replies, Replies.update_streaming_text)
    finish_message = Via(_replies, Replies.finish_message)
    record_tool_call = Via(_replies, Replies.record_tool_call)
    update_tool_call = Via(_replies, Replies.update_tool_call)
    record_file_changes = Via(_replies, Replies.record_file_changes)

    get_session = Via(_reads, Reads.get_session)
    list_recent = Via(_reads, Reads.list_recent)
    find_sessions = Via(_reads, Reads.find_sessions)
    glances = Via(_reads, Reads.glances)
    search = Via(_reads, Reads.search)
    sub_sessions = Via(_reads, Reads.sub_sessions)
    sub_session_calls = Via(_reads, Reads.sub_session_calls)
    sub_usage = Via(_reads, Reads.sub_usage)
    attachment_data = Via(_reads, Reads.attachment_data)
    siblings = Via(_reads, Reads.siblings)
    children = Via(_reads, Reads.children)
    tree = Via(_reads, Reads.tree)
    load_tail = Via(_reads, Reads.load_tail)
    load_before = Via(_reads, Reads.load_before)
    count_messages = Via(_reads, Reads.count_messages)

    file_moves = Via(_files, Files.file_moves)
    record_restore = Via(_files, Files.record_restore)
    last_restore = Via(_files, Files.last_restore)

    export_markdown = Via(_export, Export.export_markdown)
    export_json = Via(_export, Export.export_json)


def _resolve(path: Path | None) -> tuple[Path, Mode]:
    resolved = Path(path).expanduser() if path is not None else paths.db_path()
    return resolved, choose_mode(resolved)


async def _connect(
    path: Path, mode: Mode, report: OpenReport, busy_ms: int
) -> tuple[aiosqlite.Connection, sqlite3.OperationalError | None]:
    """The prepared connection, and the lock that kept the upgrade or recovery from running, if one did."""
    conn = await aiosqlite.connect(uri_for(path, mode), uri=True, isolation_level=None)
    try:
        locked = await conn._execute(prepare, conn._conn, path, mode, report, busy_ms)  # type: ignore[no-untyped-call]
    except BaseException:
        await conn.close()
        raise
    return conn, locked
