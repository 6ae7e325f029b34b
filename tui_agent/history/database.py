"""Provides `Database`: the history file's one connection and its one writer, and the hop every call takes.

Reads and grouped writes run on aiosqlite's connection thread, one hop each (`call`, `write`), so the event
loop never waits on the disk; sqlite's errors come out as a readable `HistoryError`. It says what is waiting to
be saved (`unsaved`, `on_notice`, `on_state`), saves it when asked (`flush`, `save_before_exit`) and, when it
closes, marks the replies this store left unfinished interrupted. Every part of `HistoryStore` reaches the file
through it.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

from tui_agent.history import check_policy, owners, writes
from tui_agent.history.errors import HistoryError
from tui_agent.history.opening import Mode, is_corruption
from tui_agent.history.report import OpenReport
from tui_agent.history.writer import HandOver, WriteFn, Writer, loop_has_work

log = logging.getLogger(__name__)

T = TypeVar("T")

PROGRESS_STEPS = 10_000
"""SQLite virtual-machine steps between two looks at the clock (`HandOver` as its progress handler): tens of
microseconds of work, so the look costs well under 1%."""
LOCK_WAIT_STEP = 0.5
"""Seconds each attempt of `save_before_exit` waits for the lock (between attempts, the wait can be cancelled)."""


class Database:
    """The connection, its writer, and what they say about saving."""

    def __init__(
        self, conn: aiosqlite.Connection, path: Path, mode: Mode, report: OpenReport, retry_delay: float
    ) -> None:
        self._conn = conn
        self.path = path
        self.mode = mode
        self.report = report
        self.owner = owners.new_owner()
        """The tag this store's unfinished replies and tool calls carry (`owners`)."""
        self.on_notice: Callable[[str], None] | None = None
        """Called with each notice raised after opening (disk full, saving again...)."""
        self.on_state: Callable[[], None] | None = None
        """Called when `unsaved` may have changed."""
        self._hand_over = HandOver(wanted=loop_has_work(asyncio.get_running_loop()))
        """Lets the event loop run during a long read or batch on the connection's thread."""
        self._hand_over_installed = False
        self._writer = Writer(
            self._raw_call,
            enabled=mode is not Mode.READ_ONLY and mode is not Mode.IMMUTABLE,
            notify=self._notify,
            where=str(path),
            retry_delay=retry_delay,
            between=self._hand_over,
        )
        self._writer.on_change = self._state_changed
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
        result: T = await self._conn._execute(self._on_thread, fn, raw)  # type: ignore[no-untyped-call]
        return result

    def _on_thread(self, fn: Callable[[sqlite3.Connection], T], conn: sqlite3.Connection) -> T:
        """`fn(conn)` on the connection's thread, the event loop let in every so often (`HandOver`)."""
        if not self._hand_over_installed:  # here: the connection may only be used on its own thread
            conn.set_progress_handler(self._hand_over, PROGRESS_STEPS)
            self._hand_over_installed = True
        self._hand_over.restart()
        return fn(conn)

    async def call(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run `fn` (a read) with the sqlite3 connection on aiosqlite's thread, one hop."""
        try:
            return await self._raw_call(fn)
        except sqlite3.DatabaseError as error:
            raise self._readable(error) from error

    async def write(self, fn: Callable[[sqlite3.Connection], Any], key: object | None = None) -> Any:
        """Queue the write `fn` and wait for its commit (`Writer.submit`: `DEFERRED` when kept in memory)."""
        try:
            return await self._writer.submit(fn, key)
        except sqlite3.DatabaseError as error:
            raise self._readable(error) from error

    def _readable(self, error: sqlite3.DatabaseError) -> HistoryError:
        """`error` for the user; damage seen makes the next start check the whole file (`check_policy`)."""
        if is_corruption(error) and self.mode is not Mode.MEMORY:
            self.report.known_good_since = None
            check_policy.forget(self.path)
        return _readable(error, self.path)

    def hold(self, fn: WriteFn, error: BaseException) -> None:
        """Keep `fn` in memory, first, as if the disk had refused it with `error` (`Writer.hold`)."""
        self._writer.hold(fn, error)

    def require_writable(self, done: str) -> None:
        """Refuse a change to a stored session when the file is read-only (`done`: "renamed", "deleted"...)."""
        # A change to a stored session kept in memory would look done and be gone at exit: refuse it plainly.
        if self.read_only:
            why = " (it is from a newer tui-agent)" if self.report.newer_schema is not None else ""
            raise HistoryError(
                f"The history database {self.path} is open read-only{why}; stored sessions can't be {done}."
            )

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
            await self.write(writes.interrupt_owned(self.owner))
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
        if self.mode is Mode.READ_WRITE and saved and self.report.known_good_since is not None:
            # closed cleanly, known good: the next start need not check the whole file (`check_policy`)
            await asyncio.to_thread(check_policy.write_stamp, self.path, self.report.known_good_since)


def _readable(error: sqlite3.DatabaseError, path: Path) -> HistoryError:
    code = (getattr(error, "sqlite_errorcode", 0) or 0) & 0xFF
    if code in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB):
        return HistoryError(
            f"The history database {path} is damaged ({error}); restart tui-agent to move it "
            "aside and start a fresh one."
        )
    return HistoryError(f"The history database {path} could not be used ({error}).")
