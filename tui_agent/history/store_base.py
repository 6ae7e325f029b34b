"""Provides `StoreBase`: the history store's one connection and one writer, and the hop every call takes.

Reads and grouped writes run on aiosqlite's connection thread, one hop each (`_call`, `_write`), so the event
loop never waits on the disk; sqlite's errors come out as a readable `HistoryError`. It says what is waiting to
be saved (`unsaved`, `on_notice`, `on_state`) and finds the session or message a call names. The parts of
`HistoryStore` (sessions, messages, replies, reads, export) build on it.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

from tui_agent.history import owners, rows
from tui_agent.history.errors import HistoryError, MessageNotFoundError, SessionNotFoundError
from tui_agent.history.models import Message, Session
from tui_agent.history.opening import Mode
from tui_agent.history.redact import Redactor
from tui_agent.history.report import OpenReport
from tui_agent.history.writer import Writer

log = logging.getLogger(__name__)

T = TypeVar("T")


class StoreBase:
    """The connection, the writer and the lookups `HistoryStore`'s parts share."""

    def __init__(
        self,
        conn: aiosqlite.Connection,
        path: Path,
        mode: Mode,
        report: OpenReport,
        redactor: Redactor,
        retry_delay: float,
    ) -> None:
        self._conn = conn
        self.path = path
        self.mode = mode
        self.report = report
        self.redactor = redactor
        self.owner = owners.new_owner()
        self.on_notice: Callable[[str], None] | None = None
        """Called with each notice raised after opening (disk full, saving again...)."""
        self.on_state: Callable[[], None] | None = None
        """Called when `unsaved` may have changed."""
        self._writer = Writer(
            self._raw_call,
            enabled=mode is not Mode.READ_ONLY and mode is not Mode.IMMUTABLE,
            notify=self._notify,
            where=str(path),
            retry_delay=retry_delay,
        )
        self._writer.on_change = self._state_changed
        self._next_position: dict[str, int] = {}
        self._closed = False

    @property
    def read_only(self) -> bool:
        """True when the file could only be opened for reading (changes are kept in memory)."""
        return self.report.read_only

    @property
    def unsaved(self) -> str | None:
        """What is not being saved and why, in a few words ("database locked (3 pending)"); None when all is."""
        reason = self._writer.failing_briefly
        if reason is None and self.read_only:
            reason = "read-only, newer schema" if self.report.newer_schema is not None else "read-only"
        if reason is None:
            return None
        pending = self._writer.pending
        return f"{reason} ({pending} pending)" if pending else reason

    def _state_changed(self) -> None:
        if self.on_state is not None:
            self.on_state()

    @property
    def pending_writes(self) -> int:
        """Writes kept in memory because the disk refused them (0 when everything is saved)."""
        return self._writer.pending

    @property
    def transactions(self) -> int:
        """Write transactions committed by this store (writes queued together share one)."""
        return self._writer.transactions

    def _notify(self, notice: str) -> None:
        self.report.add(notice)
        if self.on_notice is None:
            return
        try:
            self.on_notice(notice)
        except Exception:  # a listener gone bad (a UI shutting down) must never stop a write or a close
            log.exception("the history notice listener failed")

    async def _raw_call(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run `fn` with the sqlite3 connection on aiosqlite's thread (one hop); sqlite errors pass through."""
        if self._closed:
            raise HistoryError("The history store is closed.")
        raw = self._conn._conn  # the sqlite3 connection, used only on aiosqlite's thread
        result: T = await self._conn._execute(fn, raw)  # type: ignore[no-untyped-call]
        return result

    async def _call(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        try:
            return await self._raw_call(fn)
        except sqlite3.DatabaseError as error:
            raise _readable(error, self.path) from error

    async def _write(self, fn: Callable[[sqlite3.Connection], Any], key: object | None = None) -> Any:
        try:
            return await self._writer.submit(fn, key)
        except sqlite3.DatabaseError as error:
            raise _readable(error, self.path) from error

    def _require_writable(self, done: str) -> None:
        # A change to a stored session kept in memory would look done and be gone at exit: refuse it plainly.
        if self.read_only:
            why = " (it is from a newer tui-agent)" if self.report.newer_schema is not None else ""
            raise HistoryError(
                f"The history database {self.path} is open read-only{why}; stored sessions can't be {done}."
            )

    async def get_session(self, id_or_unique_prefix: str) -> Session | None:
        """The session with this id, or the only one whose id starts with it; None if none (or several)."""
        return await self._call(lambda conn: rows.get_session(conn, id_or_unique_prefix))

    async def _require_session(self, id_or_prefix: str) -> Session:
        session = await self.get_session(id_or_prefix)
        if session is None:
            raise SessionNotFoundError(
                f"There is no session {id_or_prefix!r} in the history (see `tui-agent sessions list`)."
            )
        return session

    async def _require_message(self, message_id: str) -> Message:
        message = await self._call(lambda conn: rows.get_message(conn, message_id))
        if message is None:
            raise MessageNotFoundError(f"There is no message {message_id!r} in the history.")
        return message

    async def _session_of(self, message_id: str) -> str:
        return (await self._require_message(message_id)).session_id


def _readable(error: sqlite3.DatabaseError, path: Path) -> HistoryError:
    code = (getattr(error, "sqlite_errorcode", 0) or 0) & 0xFF
    if code in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB):
        return HistoryError(
            f"The history database {path} is damaged ({error}); restart tui-agent to move it "
            "aside and start a fresh one."
        )
    return HistoryError(f"The history database {path} could not be used ({error}).")
