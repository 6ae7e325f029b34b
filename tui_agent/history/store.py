"""Provides `HistoryStore`: the async API over the history database (one connection, one writer).

Reads and grouped writes run on aiosqlite's connection thread, one hop each, so the event loop never
waits on the disk. Writes that the disk refuses (full, locked, read-only) are kept in memory and retried;
`report.notices()` says what happened, `unsaved` says what is waiting (for an indicator).

This module opens and closes the store; its parts live beside it: the connection and writer
(`store_base`), sessions (`store_sessions`), new messages and branches (`store_messages`), a reply's progress
(`store_replies`), reads (`store_reads`) and export (`store_export`).
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

import aiosqlite

from tui_agent import paths
from tui_agent.history import owners, writes
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
from tui_agent.history.store_export import StoreExport
from tui_agent.history.store_messages import StoreMessages
from tui_agent.history.store_replies import StoreReplies
from tui_agent.history.store_sessions import StoreSessions

DEFAULT_BUSY_TIMEOUT = 5.0
LOCK_WAIT_STEP = 0.5
"""Seconds each attempt of `save_before_exit` waits for the lock (between attempts, the wait can be cancelled)."""


class HistoryStore(StoreSessions, StoreMessages, StoreReplies, StoreExport):
    """Sessions, messages and tool calls in one SQLite file. Create with `await HistoryStore.open(path)`."""

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
        store = cls(conn, db, mode, report, redactor, retry_delay)
        if locked is not None:  # the session starts in memory; the upgrade and recovery wait with the writes
            store._writer.hold(settle, locked)
        return store

    async def flush(self) -> bool:
        """Try to save everything kept in memory now; True when nothing is left unsaved."""
        return await self._writer.flush()

    async def save_before_exit(self, within: float, on_wait: Callable[[str], None]) -> bool:
        """Before an exit: when another program holds the file's lock, wait for it (at most `within` seconds, said
        once through `on_wait`) and save what is kept in memory; True when nothing is left unsaved. Any other
        failure (disk full, read-only) is tried once, as `flush` does: waiting would not help."""
        if not self._writer.locked_out:
            return await self.flush()
        on_wait(
            f"Another program holds the history file {self.path}; waiting up to {within:g} s for it "
            f"to save this run ({self._writer.pending} change(s))."
        )
        deadline = time.monotonic() + within
        while True:
            step = min(LOCK_WAIT_STEP, max(deadline - time.monotonic(), 0.0))
            if await self._writer.flush(busy_ms=max(int(step * 1000), 1)):
                return True
            if not self._writer.locked_out or time.monotonic() >= deadline:
                return False

    async def close(self) -> None:
        """Save what can be saved, mark this store's unfinished replies interrupted, close the file."""
        if self._closed:
            return
        if self._writer.pending == 0 and self.mode in (Mode.READ_WRITE, Mode.MEMORY):
            await self._write(writes.interrupt_owned(self.owner))
        saved = await self._writer.flush()
        await self._writer.close()
        if not saved:
            self.report.not_saved = (
                f"{self._writer.pending} change(s) to the history could not be saved to "
                f"{self.path} ({self._writer.failing or 'it is read-only'})."
            )
            self._notify(self.report.not_saved)
        self._closed = True
        owners.release(self.owner)
        await self._conn.close()


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
