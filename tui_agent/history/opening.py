"""Provides the steps of opening the database: pick a mode, check whose file it is, migrate it, recover it.

The functions here are blocking; the store runs them on its connection thread (or `to_thread`).
History files are private: a new database is created 0600 before SQLite opens it (SQLite gives its
`-wal`/`-shm` the database's permissions), and looser files of ours are tightened.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import time
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from urllib.parse import quote

from tui_agent import paths
from tui_agent.history import check_policy, owners
from tui_agent.history.errors import HistoryError
from tui_agent.history.identity import inspect_file, not_ours, read_facts
from tui_agent.history.report import OpenReport
from tui_agent.history.schema import LATEST_VERSION, check_not_newer, migrate, migrate_within, user_version
from tui_agent.history.writer import is_transient

CORRUPT_CODES = frozenset({sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB})
SIDE_FILES = ("-wal", "-shm", "-journal")
INTERRUPTED_REPLY = "The reply was cut off when tui-agent stopped; this is the text saved before that."
INTERRUPTED_TOOL = "tui-agent stopped before this tool call finished; it was not run again."
OPEN_TOOL_STATUSES = ("pending", "awaiting_approval", "running")
OLDEST_READABLE = 2
"""The oldest schema the reads work on unchanged (a read-only file can't be upgraded first)."""
START_LOCK_WAIT_MS = 1000
"""How long opening waits for another program's write lock before it starts with the session in memory."""
PRIVATE = 0o600


class Mode(StrEnum):
    """How the database file is opened."""

    READ_WRITE = "rw"
    READ_ONLY = "ro"
    IMMUTABLE = "immutable"
    MEMORY = "memory"


class CorruptDatabaseError(Exception):
    """The file is not a usable SQLite database (caught by the store, which moves it aside)."""


class NotOursError(CorruptDatabaseError):
    """The file is a database, but not a tui-agent history file; `reason` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def is_corruption(error: BaseException) -> bool:
    """True for the errors that mean the file itself is damaged."""
    code = getattr(error, "sqlite_errorcode", None)
    return isinstance(error, sqlite3.DatabaseError) and code is not None and (code & 0xFF) in CORRUPT_CODES


def uri_for(path: Path, mode: Mode) -> str:
    """Return the sqlite URI that opens `path` in `mode`."""
    if mode is Mode.MEMORY:
        return "file::memory:"
    base = f"file:{quote(str(path.resolve()))}"
    if mode is Mode.READ_WRITE:
        return base + "?mode=rwc"
    return base + ("?mode=ro&immutable=1" if mode is Mode.IMMUTABLE else "?mode=ro")


def choose_mode(path: Path) -> Mode:
    """Decide how to open `path`: read-write if we may write it, read-only if not, memory if it can't exist."""
    if path.is_dir():
        raise HistoryError(f"{path} is a folder; the history database must be a file path (see --db).")
    try:
        paths.private_folder(path.parent)
    except OSError:
        if not path.exists():
            return Mode.MEMORY
    if not path.exists():
        return Mode.READ_WRITE if os.access(path.parent, os.W_OK) else Mode.MEMORY
    if os.access(path, os.W_OK) and os.access(path.parent, os.W_OK):
        return Mode.READ_WRITE
    return _read_only_mode(path)


def _read_only_mode(path: Path) -> Mode:
    # A WAL database without its -shm file can't be opened with mode=ro in a read-only folder;
    # `immutable` can, and is only safe when there is no -wal holding newer pages.
    try:
        probe = sqlite3.connect(uri_for(path, Mode.READ_ONLY), uri=True)
        try:
            probe.execute("SELECT count(*) FROM sqlite_master").fetchone()
        finally:
            probe.close()
        return Mode.READ_ONLY
    except sqlite3.DatabaseError as error:
        if is_corruption(error):
            raise HistoryError(_damaged_read_only(path)) from error
        return Mode.IMMUTABLE


def _damaged_read_only(path: Path) -> str:
    return (
        f"The history database {path} is damaged and read-only, so it can't be moved aside; "
        "use --db to choose another file."
    )


SQLITE_MAGIC = b"SQLite format 3\x00"


def has_bad_header(path: Path) -> bool:
    """True when `path` exists, is not empty and is not an SQLite file.

    Checked before SQLite opens it, so SQLite never rewrites or drops the side files of a damaged database.
    """
    try:
        with path.open("rb") as handle:
            head = handle.read(len(SQLITE_MAGIC))
    except FileNotFoundError:
        return False
    except OSError:
        return False  # unreadable: opening it will say so
    return bool(head) and head != SQLITE_MAGIC


def check_file(path: Path, mode: Mode, report: OpenReport) -> Mode:
    """Before SQLite opens `path` for real: move it aside if it is damaged or not ours, make it private,
    and open a database from a newer tui-agent read-only. Returns the mode to open it in."""
    if mode is Mode.MEMORY:
        return mode
    if mode is Mode.READ_WRITE and has_bad_header(path):
        report.moved_aside = move_aside(path)
    elif path.exists():
        mode = _check_owner(path, mode, report)
    if mode is Mode.READ_WRITE:
        report.tightened = make_private(path)
    return mode


def _check_owner(path: Path, mode: Mode, report: OpenReport) -> Mode:
    try:
        facts = inspect_file(uri_for(path, Mode.READ_ONLY if mode is Mode.READ_WRITE else mode))
    except sqlite3.DatabaseError:
        return mode  # damaged or busy: `prepare` looks again and says so
    reason = not_ours(facts)
    if reason is not None:
        if mode is not Mode.READ_WRITE:
            raise HistoryError(
                f"{path} is not a tui-agent history file ({reason}) and is read-only, so it "
                "can't be moved aside; use --db to choose another file."
            )
        report.moved_aside, report.not_ours = move_aside(path), reason
    elif facts.version > LATEST_VERSION:
        report.newer_schema = facts.version
        return Mode.READ_ONLY if mode is Mode.READ_WRITE else mode
    return mode


def make_private(path: Path) -> list[str]:
    """Create `path` 0600 if it is missing; take group and other permissions off it and its side files if they
    are ours. Returns `name 0644 -> 0600` for each file tightened."""
    try:
        # O_EXCL: never open (and close) a file SQLite may hold; closing any descriptor of a file drops this
        # process's POSIX locks on it.
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE))
    except FileExistsError:
        pass
    except OSError:
        return []  # opening it will say what is wrong
    tightened: list[str] = []
    for file in (path, *(Path(f"{path}{suffix}") for suffix in SIDE_FILES)):
        try:
            info = file.stat()
            old = info.st_mode & 0o777
            if info.st_uid == os.geteuid() and old & 0o077:
                file.chmod(old & 0o700)
                tightened.append(f"{file} {old:04o} -> {old & 0o700:04o}")
        except OSError:
            continue  # no such side file, or not ours to change
    return tightened


def move_aside(path: Path) -> Path:
    """Rename a damaged database and its side files to `<name>.corrupt-<UTC time>`; never delete."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    target = path.with_name(f"{path.name}.corrupt-{stamp}")
    n = 1
    while target.exists():
        n += 1
        target = path.with_name(f"{path.name}.corrupt-{stamp}-{n}")
    try:
        os.replace(path, target)
        for suffix in SIDE_FILES:
            side = Path(f"{path}{suffix}")
            if side.exists():
                os.replace(side, Path(f"{target}{suffix}"))
    except OSError as error:
        raise HistoryError(
            f"The history database {path} is damaged and could not be moved aside "
            f"({error.strerror}); use --db to choose another file."
        ) from error
    return target


def prepare(
    conn: sqlite3.Connection, path: Path, mode: Mode, report: OpenReport, busy_ms: int
) -> sqlite3.OperationalError | None:
    """Configure, check, migrate and recover a freshly opened connection (runs on its thread).

    Returns the lock that kept the upgrade or recovery from running (the store runs `settle` first among its
    writes once the lock is gone), or None. Damage is a `CorruptDatabaseError` wherever it surfaces: the whole
    file is checked only when `check_policy` says it is due, so an error reading it later (the upgrade, the
    recovery) has it checked then, and moved aside if damaged.
    """
    conn.execute(f"PRAGMA busy_timeout = {int(busy_ms)}")
    conn.execute("PRAGMA foreign_keys = ON")
    try:
        return _prepare(conn, path, mode, report, busy_ms)
    except sqlite3.DatabaseError as error:
        if is_corruption(error):
            raise CorruptDatabaseError(str(error)) from error
        if mode is not Mode.MEMORY and not report.whole_file_checked and not is_transient(error):
            _check_whole_file(conn, report)  # e.g. "vtable constructor failed" over damaged pages
        raise


def _prepare(
    conn: sqlite3.Connection, path: Path, mode: Mode, report: OpenReport, busy_ms: int
) -> sqlite3.OperationalError | None:
    version = _checked_version(conn, path, mode)
    if mode is not Mode.MEMORY:
        _check_whole_file_when_due(conn, path, version, report)
    if mode in (Mode.READ_ONLY, Mode.IMMUTABLE):
        _check_readable_version(version, path)
        return None
    if mode is Mode.READ_WRITE:
        _set_durable(conn, path)
        if 0 < version < LATEST_VERSION:
            report.backup = backup_copy(conn, path, version)
            report.migrated_from = version
    if mode is Mode.MEMORY:
        _migrate(conn, path, deferrable=False)
        return None
    return _settle_unless_locked(conn, path, version, report, busy_ms)


def _check_whole_file_when_due(conn: sqlite3.Connection, path: Path, version: int, report: OpenReport) -> None:
    """`PRAGMA quick_check` over the whole file when `check_policy` says it may have changed since it was last
    known good (it reads every page: seconds for a big history); a new file is good as it is."""
    if version == 0:
        report.known_good_since = time.time()
        return
    stamp = check_policy.read_stamp(path)
    if stamp is not None and not check_policy.needs_check(path, stamp):
        report.known_good_since = stamp.checked_at
        return
    _check_whole_file(conn, report)


def _check_whole_file(conn: sqlite3.Connection, report: OpenReport) -> None:
    """`PRAGMA quick_check`: raises `CorruptDatabaseError` when the file is damaged."""
    report.whole_file_checked = True
    try:
        row = conn.execute("PRAGMA quick_check").fetchone()
    except sqlite3.DatabaseError as error:
        if is_corruption(error):
            raise CorruptDatabaseError(str(error)) from error
        raise
    if row is None or row[0] != "ok":
        raise CorruptDatabaseError(str(row[0] if row else "quick_check returned nothing"))
    report.known_good_since = time.time()


def _checked_version(conn: sqlite3.Connection, path: Path, mode: Mode) -> int:
    # `check_file` looked through a read-only connection; a verdict here means the file changed in between
    # (rare). It is moved aside all the same, though closing this connection may checkpoint a -wal into it.
    reason = not_ours(read_facts(conn))
    if reason is not None:
        raise NotOursError(reason)
    if mode in (Mode.READ_ONLY, Mode.IMMUTABLE):
        return user_version(conn)
    return check_not_newer(conn, str(path))


def _check_readable_version(version: int, path: Path) -> None:
    if version < OLDEST_READABLE:
        raise HistoryError(
            f"The history database {path} uses an older format and is read-only, so it can't "
            "be upgraded; make it writable or use --db to choose another file."
        )


def _set_durable(conn: sqlite3.Connection, path: Path) -> None:
    try:
        mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
    except sqlite3.OperationalError as error:
        raise HistoryError(
            f"The history database {path} is in use and could not be opened ({error}); try again in a moment."
        ) from error
    if str(mode).lower() != "wal":
        raise HistoryError(f"The history database {path} could not be switched to WAL mode (got {mode}).")
    # FULL: a commit survives power loss, not only a crash; commits are rare (grouped, ~300 ms apart).
    conn.execute("PRAGMA synchronous = FULL")


def _migrate(conn: sqlite3.Connection, path: Path, *, deferrable: bool) -> None:
    try:
        migrate(conn)
    except sqlite3.OperationalError as error:
        if deferrable and is_transient(error):
            raise  # the reads work on this version: `settle` upgrades it first among the writes
        raise HistoryError(
            f"The history database {path} could not be upgraded ({error}); nothing was "
            "changed. Close other tui-agent windows and try again."
        ) from error


def backup_copy(conn: sqlite3.Connection, path: Path, version: int) -> Path:
    """Copy the whole database (WAL included) next to it before migrating; return the copy's path."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    target = path.with_name(f"{path.name}.v{version}-backup-{stamp}")
    tmp = target.with_name(target.name + ".partial")
    os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE))  # a copy as private as the file
    copy = sqlite3.connect(tmp)
    try:
        conn.backup(copy)
    finally:
        copy.close()
    shutil.move(tmp, target)
    return target


def _settle_unless_locked(
    conn: sqlite3.Connection, path: Path, version: int, report: OpenReport, busy_ms: int
) -> sqlite3.OperationalError | None:
    # Another program holding the write lock must not stop tui-agent from starting (nor keep it waiting
    # long): the session starts in memory, and the store runs `settle` first among the writes.
    conn.execute(f"PRAGMA busy_timeout = {min(int(busy_ms), START_LOCK_WAIT_MS)}")
    try:
        _migrate(conn, path, deferrable=version >= OLDEST_READABLE)
        recover(conn, report)
    except sqlite3.OperationalError as error:
        if not is_transient(error):
            raise
        return error
    finally:
        conn.execute(f"PRAGMA busy_timeout = {int(busy_ms)}")
    return None


def settle(conn: sqlite3.Connection) -> None:
    """In the writer's transaction: what opening could not do under a lock - upgrade the schema, then mark
    what stores that are gone left unfinished (not counted in the report: it was given long before)."""
    migrate_within(conn)
    mark_unfinished(conn)


def recover(conn: sqlite3.Connection, report: OpenReport) -> None:
    """Mark replies and tool calls left unfinished by a store that is gone as interrupted."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        replies, calls = mark_unfinished(conn)
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    report.interrupted_messages += replies
    report.interrupted_tool_calls += calls


def mark_unfinished(conn: sqlite3.Connection) -> tuple[int, int]:
    """In the caller's transaction: mark what stores that are gone left unfinished; return (replies, calls)."""
    now = time.time()
    rows = conn.execute("SELECT seq, owner FROM messages WHERE status = 'streaming'").fetchall()
    dead = [(now, seq) for seq, owner in rows if not owners.is_alive(owner)]
    conn.executemany(
        "UPDATE messages SET status = 'interrupted', error = COALESCE(error, ?), "
        "updated_at = ?, owner = NULL WHERE seq = ?",
        [(INTERRUPTED_REPLY, *row) for row in dead],
    )
    calls = conn.execute(
        "SELECT seq, owner FROM tool_calls WHERE status IN ('pending', 'awaiting_approval', 'running')"
    ).fetchall()
    dead_calls = [(now, seq) for seq, owner in calls if not owners.is_alive(owner)]
    conn.executemany(
        "UPDATE tool_calls SET status = 'interrupted', error = COALESCE(error, ?), "
        "finished_at = ?, owner = NULL WHERE seq = ?",
        [(INTERRUPTED_TOOL, *row) for row in dead_calls],
    )
    return len(dead), len(dead_calls)
