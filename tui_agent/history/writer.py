"""Provides `Writer`: the single writer that groups queued writes into one transaction per thread hop.

Each write is a function of the sqlite3 connection. Writes queued while a transaction is in flight are
committed together in the next one (each inside its own savepoint, so one bad write fails alone).
A long batch hands the interpreter to the event loop's thread every `HAND_OVER_EVERY` seconds (`HandOver`).
When the disk is full, the file is locked for longer than `busy_timeout`, or it turns read-only, the
writes stay queued in memory, callers get their in-memory result, a notice is raised and the writer
retries with backoff; `flush()` tries once more at once (`flush(busy_ms=...)`: waiting that long for a lock, as
an exit that waits for the file does). While it is failing, new writes join the queue without waiting, and a
retry waits only `RETRY_BUSY_MS` for a lock (the connection's reads queue behind it); `on_change` is told
whenever `pending` or `failing` may have changed, for an indicator.
"""

from __future__ import annotations

import asyncio
import functools
import sqlite3
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

TRANSIENT_CODES = frozenset(
    {
        sqlite3.SQLITE_BUSY,
        sqlite3.SQLITE_LOCKED,
        sqlite3.SQLITE_READONLY,
        sqlite3.SQLITE_IOERR,
        sqlite3.SQLITE_FULL,
        sqlite3.SQLITE_CANTOPEN,
        sqlite3.SQLITE_PROTOCOL,
    }
)
MAX_BATCH = 500
RETRY_BUSY_MS = 100
HAND_OVER_EVERY = 0.0005
"""Seconds of a batch's work between two hand-overs of the interpreter to the event loop's thread."""
HAND_OVER_SLEEP = 0.00005
"""How long a hand-over sleeps: long enough for the loop's thread, woken when the GIL is let go, to take it."""
WriteFn = Callable[[sqlite3.Connection], Any]
Call = Callable[[Callable[[sqlite3.Connection], Any]], Awaitable[Any]]


class Deferred:
    """Marker result: the write is kept in memory and will be retried."""


DEFERRED = Deferred()


def is_transient(error: BaseException) -> bool:
    """True for failures that may pass (disk full, locked, I/O, read-only) - worth keeping and retrying."""
    code = getattr(error, "sqlite_errorcode", None)
    return isinstance(error, sqlite3.OperationalError) and code is not None and (code & 0xFF) in TRANSIENT_CODES


def is_lock(error: BaseException) -> bool:
    """True when another connection holds the file's lock (it may let go: worth waiting for at exit)."""
    code = (getattr(error, "sqlite_errorcode", 0) or 0) & 0xFF
    return code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


def describe(error: BaseException) -> str:
    """A short human reason for a transient failure."""
    code = (getattr(error, "sqlite_errorcode", 0) or 0) & 0xFF
    return {
        sqlite3.SQLITE_FULL: "the disk is full",
        sqlite3.SQLITE_BUSY: "another program kept the database locked",
        sqlite3.SQLITE_LOCKED: "another program kept the database locked",
        sqlite3.SQLITE_READONLY: "the file became read-only",
    }.get(code, f"the disk reported an error ({error})")


def brief(error: BaseException) -> str:
    """The reason of `describe` in two or three words, for a status line."""
    code = (getattr(error, "sqlite_errorcode", 0) or 0) & 0xFF
    return {
        sqlite3.SQLITE_FULL: "disk full",
        sqlite3.SQLITE_BUSY: "database locked",
        sqlite3.SQLITE_LOCKED: "database locked",
        sqlite3.SQLITE_READONLY: "file read-only",
    }.get(code, "disk error")


@dataclass
class _Op:
    fn: WriteFn
    key: object | None
    future: asyncio.Future[Any]
    followers: list[asyncio.Future[Any]] = field(default_factory=list)

    def resolve(self, value: Any, error: BaseException | None = None) -> None:
        for future in (self.future, *self.followers):
            if future.done():
                continue
            if error is None:
                future.set_result(value)
            else:
                future.set_exception(error)


class HandOver:
    """Lets the event loop's thread run during long work on the connection's thread (a batch, a search).

    Between two statements, and between two rows, that thread lets go of the GIL only for the microseconds
    sqlite works, and takes it back before the loop's thread, woken to wait for it, is running: the loop waited
    for a whole batch (7 ms for 100 appends, bench/history.py's worst lag). Python's switch interval does not
    help: those brief releases keep resetting it. A sleep lets go for long enough; taken every `every` seconds of
    work (between writes, and as sqlite's progress handler) and only when `wanted` says the loop has something
    to run, it costs a short call or an idle loop nothing (`restart` at each call)."""

    def __init__(
        self,
        every: float = HAND_OVER_EVERY,
        *,
        wanted: Callable[[], bool] = lambda: True,
        clock: Callable[[], float] = time.perf_counter,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._every, self._wanted, self._clock, self._sleep = every, wanted, clock, sleep
        self._due = clock() + every

    def restart(self) -> None:
        """A call begins: the next hand-over is due `every` seconds from now."""
        self._due = self._clock() + self._every

    def __call__(self) -> None:
        """Hand over if the work has gone on `every` seconds since the last time (returns None: sqlite's progress
        handler goes on)."""
        if self._clock() >= self._due:
            if self._wanted():
                self._sleep(HAND_OVER_SLEEP)
            self._due = self._clock() + self._every


def loop_has_work(loop: asyncio.AbstractEventLoop) -> Callable[[], bool]:
    """For `HandOver`, from another thread: whether `loop` has callbacks ready or a timer due (a key the input
    thread handed over, a frame, a ticker). Reads asyncio's own queues (no public API says it); a loop of
    another kind always counts as having work."""
    ready, scheduled = getattr(loop, "_ready", None), getattr(loop, "_scheduled", None)
    if ready is None or scheduled is None:
        return lambda: True

    def has_work() -> bool:
        try:
            return bool(ready) or (bool(scheduled) and scheduled[0].when() <= loop.time())
        except (IndexError, AttributeError):  # changed under us by the loop's thread: look again next time
            return True

    return has_work


def run_batch(
    conn: sqlite3.Connection, fns: list[WriteFn], between: Callable[[], None] | None = None
) -> list[tuple[bool, Any]]:
    """Run writes in one BEGIN IMMEDIATE transaction; return (ok, value-or-error) per write. `between` is called
    between two writes (`HandOver`).

    A transient error aborts the whole transaction (raised); any other error fails only its write.
    """
    conn.execute("BEGIN IMMEDIATE")
    try:
        results = []
        for index, fn in enumerate(fns):
            if index and between is not None:
                between()
            results.append(_run_one(conn, fn, savepoint=len(fns) > 1))
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return results


def _run_batch_of(
    fns: list[WriteFn], busy_ms: int | None, between: Callable[[], None] | None, conn: sqlite3.Connection
) -> list[tuple[bool, Any]]:
    if busy_ms is None:
        return run_batch(conn, fns, between)
    usual = conn.execute("PRAGMA busy_timeout").fetchone()[0]
    conn.execute(f"PRAGMA busy_timeout = {int(busy_ms)}")
    try:
        return run_batch(conn, fns, between)
    finally:
        conn.execute(f"PRAGMA busy_timeout = {int(usual)}")


def _run_one(conn: sqlite3.Connection, fn: WriteFn, *, savepoint: bool) -> tuple[bool, Any]:
    if savepoint:
        conn.execute("SAVEPOINT op")
    try:
        value = fn(conn)
    except Exception as error:
        if is_transient(error) or not savepoint:
            raise
        conn.execute("ROLLBACK TO op")
        conn.execute("RELEASE op")
        return False, error
    if savepoint:
        conn.execute("RELEASE op")
    return True, value


class Writer:
    """Queue of writes, drained by one task; keeps writes in memory while the disk refuses them."""

    def __init__(
        self,
        call: Call,
        *,
        enabled: bool,
        notify: Callable[[str], None],
        where: str,
        retry_delay: float = 1.0,
        max_retry_delay: float = 5.0,
        between: Callable[[], None] | None = None,
    ) -> None:
        """`between`: called between two writes of a batch, on the connection's thread (`HandOver`)."""
        self._call = call
        self._between = between
        self._enabled = enabled
        self._notify = notify
        self._where = where
        self._queue: list[_Op] = []
        self._in_flight = 0
        self._drainer: asyncio.Task[None] | None = None
        self._retry: asyncio.TimerHandle | None = None
        self._failing: str | None = None
        self._failing_briefly: str | None = None
        self._locked_out = False
        self._busy_ms: int | None = None
        """How long the next attempt waits for a lock (`flush(busy_ms=...)`); None: as usual."""
        self._base_delay = retry_delay
        self._delay = retry_delay
        self._max_delay = max_retry_delay
        self.transactions = 0
        """Transactions committed so far (several writes may share one)."""
        self.on_change: Callable[[], None] | None = None
        """Told when `pending` or `failing` may have changed while writes are kept in memory."""

    @property
    def pending(self) -> int:
        """Writes kept in memory, not yet committed."""
        return len(self._queue)

    @property
    def failing(self) -> str | None:
        """Why writes are being kept in memory, or None when they are being saved."""
        return self._failing

    @property
    def failing_briefly(self) -> str | None:
        """`failing` in two or three words ("database locked", "disk full"), or None."""
        return self._failing_briefly

    @property
    def locked_out(self) -> bool:
        """Writes are kept in memory because another program holds the file's lock."""
        return self._failing is not None and self._locked_out

    def hold(self, fn: WriteFn, error: BaseException) -> None:
        """Start failing with `error` (found before the writer ran), with `fn` queued first; retries as usual."""
        op = _Op(fn, None, asyncio.get_running_loop().create_future())
        self._queue.insert(0, op)
        self._keep_in_memory(error)

    async def submit(self, fn: WriteFn, key: object | None = None) -> Any:
        """Queue a write and wait for its commit; returns its value, or `DEFERRED` if kept in memory."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        op = _Op(fn, key, future)
        if key is not None:
            self._supersede(op)
        self._queue.append(op)
        if not self._enabled or self._failing:
            # Kept in memory at once: a retry in flight may wait for a lock, the caller must not.
            op.resolve(DEFERRED)
            self._changed()
        else:
            self._start()
        return await future

    def _supersede(self, op: _Op) -> None:
        # An older write with the same key (the same streaming text) is replaced by the newer one.
        for index in range(self._in_flight, len(self._queue)):
            old = self._queue[index]
            if old.key == op.key:
                del self._queue[index]
                op.followers.append(old.future)
                op.followers.extend(old.followers)
                return

    def _start(self) -> None:
        if self._drainer is None or self._drainer.done():
            self._drainer = asyncio.get_running_loop().create_task(self._drain(), name="history-writer")

    async def flush(self, *, busy_ms: int | None = None) -> bool:
        """Try to commit everything queued now (waiting up to `busy_ms` for a lock, when given); True when nothing
        is left in memory."""
        if not self._enabled:
            return not self._queue
        self._cancel_retry()
        if self._drainer is not None and not self._drainer.done():
            await asyncio.shield(self._drainer)
        if self._queue:
            self._busy_ms = busy_ms
            try:
                self._start()
                assert self._drainer is not None
                await asyncio.shield(self._drainer)
            finally:
                self._busy_ms = None
        return not self._queue

    async def _drain(self) -> None:
        while self._queue:
            batch = self._queue[:MAX_BATCH]
            self._in_flight = len(batch)
            busy_ms = self._busy_ms or (RETRY_BUSY_MS if self._failing else None)
            try:
                results = await self._call(
                    functools.partial(_run_batch_of, [op.fn for op in batch], busy_ms, self._between)
                )
            except Exception as error:
                self._in_flight = 0
                if not is_transient(error):
                    self._fail_batch(batch, error)
                    continue
                self._keep_in_memory(error)
                return
            self._in_flight = 0
            self.transactions += 1
            del self._queue[: len(batch)]
            for op, (ok, value) in zip(batch, results, strict=True):
                op.resolve(value if ok else None, None if ok else value)
            self._recovered()

    def _fail_batch(self, batch: list[_Op], error: BaseException) -> None:
        # Not a disk condition: the write itself is wrong; its caller gets the error.
        del self._queue[: len(batch)]
        for op in batch:
            op.resolve(None, error)

    def _keep_in_memory(self, error: BaseException) -> None:
        # Everything queued, including writes that arrived while this attempt was in flight, waits in memory.
        for op in self._queue:
            op.resolve(DEFERRED)
        if self._failing is None:
            self._notify(
                f"Could not save history to {self._where}: {describe(error)}. Keeping this session "
                "in memory and retrying."
            )
        self._failing, self._failing_briefly = describe(error), brief(error)
        self._locked_out = is_lock(error)
        self._changed()
        loop = asyncio.get_running_loop()
        self._retry = loop.call_later(self._delay, self._retry_now)
        self._delay = min(self._delay * 2, self._max_delay)

    def _retry_now(self) -> None:
        self._retry = None
        self._start()

    def _cancel_retry(self) -> None:
        if self._retry is not None:
            self._retry.cancel()
            self._retry = None

    def _recovered(self) -> None:
        if self._failing is not None:
            self._failing = self._failing_briefly = None
            self._notify(f"History is being saved to {self._where} again; nothing was lost.")
            self._changed()
        self._delay = self._base_delay

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()

    async def close(self) -> None:
        """Stop retrying (after the caller's last flush)."""
        self._cancel_retry()
        if self._drainer is not None and not self._drainer.done():
            await asyncio.shield(self._drainer)
