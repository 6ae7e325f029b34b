"""History files are private: created 0600 (the database and its -wal/-shm) under a normal umask, and looser
files of ours are tightened, with a notice."""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.unit.history.helpers import put_bytes
from tui_agent import paths
from tui_agent.history.schema import migrate
from tui_agent.history.store import HistoryStore
from tui_agent.status import MessageStatus, Role


@pytest.fixture(autouse=True)
def normal_umask() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def _mode(path: Path | str) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


async def _write_something(store: HistoryStore) -> None:
    session = await store.create_session("private")
    await store.append_message(session.id, Role.USER, "my secrets", MessageStatus.COMPLETE)


async def test_the_default_history_files_are_created_0600_in_a_0700_folder() -> None:
    db = paths.db_path()
    store = await HistoryStore.open(None)
    try:
        await _write_something(store)
        modes = {name: _mode(f"{db}{name}") for name in ("", "-wal", "-shm")}  # all three exist while open
    finally:
        await store.close()
    assert modes == {"": 0o600, "-wal": 0o600, "-shm": 0o600}
    assert _mode(db.parent) == 0o700


async def test_a_db_file_given_with_db_is_created_0600(tmp_path: Path) -> None:
    db = tmp_path / "elsewhere" / "chats.sqlite"
    store = await HistoryStore.open(db)
    try:
        await _write_something(store)
        assert {_mode(f"{db}{s}") for s in ("", "-wal", "-shm")} == {0o600}
    finally:
        await store.close()
    assert store.report.notices() == []


async def test_looser_files_of_ours_are_tightened_and_the_user_is_told(db_path: Path) -> None:
    store = await HistoryStore.open(db_path)
    await store.close()
    os.chmod(db_path, 0o644)
    put_bytes(f"{db_path}-wal", b"")
    os.chmod(f"{db_path}-wal", 0o666)
    store = await HistoryStore.open(db_path)
    try:
        await _write_something(store)
        assert _mode(db_path) == 0o600 and _mode(f"{db_path}-wal") == 0o600 and _mode(f"{db_path}-shm") == 0o600
        assert any("0644" in n and "0600" in n and str(db_path) in n for n in store.report.notices())
    finally:
        await store.close()


async def test_a_backup_before_an_upgrade_is_private_too(db_path: Path) -> None:
    db_path.parent.mkdir(parents=True)
    conn = sqlite3.connect(db_path, isolation_level=None)
    migrate(conn, target=1)
    conn.close()
    os.chmod(db_path, 0o600)
    store = await HistoryStore.open(db_path)
    await store.close()
    assert store.report.backup is not None and _mode(store.report.backup) == 0o600
