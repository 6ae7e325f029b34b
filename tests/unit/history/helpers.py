"""Helpers for history tests: raw looks at the database file, making files truly read-only, and a history with
enough pages to damage."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tui_agent.history.store import HistoryStore
from tui_agent.status import MessageStatus, Role


def raw_rows(path: Path, sql: str, params: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    """Run a query with plain sqlite3 (a second, independent reader of the file)."""
    conn = sqlite3.connect(path)
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def raw_pairs(path: Path, sql: str, params: tuple[object, ...] = ()) -> dict[object, object]:
    """A two-column query's rows as a dict, first column to second (see `raw_rows`)."""
    return {key: value for key, value in raw_rows(path, sql, params)}


def integrity(path: Path) -> str:
    return str(raw_rows(path, "PRAGMA integrity_check")[0][0])


@contextmanager
def read_only(*targets: Path) -> Iterator[None]:
    """Make files/folders read-only for this process, even as root (then via `chattr +i`)."""
    modes = {t: t.stat().st_mode for t in targets}
    immutable: list[Path] = []
    try:
        for target in targets:
            target.chmod(0o555 if target.is_dir() else 0o444)
        if os.geteuid() == 0:
            if shutil.which("chattr") is None:
                pytest.skip("running as root without chattr: cannot make a file read-only")
            for target in targets:
                done = subprocess.run(["chattr", "+i", str(target)], capture_output=True)
                if done.returncode != 0:
                    pytest.skip(f"chattr +i is not permitted here: {done.stderr.decode().strip()}")
                immutable.append(target)
        yield
    finally:
        for target in immutable:
            subprocess.run(["chattr", "-i", str(target)], check=False)
        for target, mode in modes.items():
            target.chmod(mode)


def file_bytes(path: Path | str) -> bytes:
    """The file's bytes (a sync helper: reading a small file in a test needs no thread)."""
    return Path(path).read_bytes()


def put_bytes(path: Path | str, data: bytes) -> None:
    Path(path).write_bytes(data)


async def filled_history(db_path: Path) -> str:
    """A history of one session of 200 messages (a few hundred pages), closed; the session's id."""
    store = await HistoryStore.open(db_path)
    session = await store.create_session("s")
    for i in range(200):
        await store.append_message(session.id, Role.USER, f"message {i} " * 20, MessageStatus.COMPLETE)
    await store.close()
    return session.id


async def assert_moved_aside_and_fresh(db_path: Path) -> None:
    """Opening `db_path` moves the damaged file aside (kept) and starts an empty history."""
    reopened = await HistoryStore.open(db_path)
    try:
        assert reopened.report.moved_aside is not None and reopened.report.moved_aside.exists()
        assert await reopened.list_recent() == []
    finally:
        await reopened.close()
