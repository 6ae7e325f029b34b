"""When opening checks the whole history file (`check_policy`), on real SQLite files.

Before, every open ran `PRAGMA quick_check` over the whole file (7-11 s for a 1.9 GB history). Now a file a
tui-agent closed cleanly and nothing has touched since opens without it; a file changed by anything else, new
to the machine, checked long ago, or seen damaged in use is checked whole again.
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

import pytest

from tests.unit.history.helpers import assert_moved_aside_and_fresh, file_bytes, filled_history, put_bytes
from tui_agent.history import check_policy
from tui_agent.history.errors import HistoryError
from tui_agent.history.store import HistoryStore


async def _checked_whole(db_path: Path) -> bool:
    store = await HistoryStore.open(db_path)
    try:
        return store.report.whole_file_checked
    finally:
        await store.close()


async def test_a_cleanly_closed_file_opens_without_a_whole_file_check_and_anything_else_is_checked(
    db_path: Path,
) -> None:
    await filled_history(db_path)
    stamp = check_policy.stamp_path(db_path)
    assert stamp.exists() and stamp.stat().st_mode & 0o777 == 0o600
    assert not await _checked_whole(db_path)  # closed cleanly by us, untouched since
    assert not await _checked_whole(db_path)

    other = sqlite3.connect(db_path)  # another program (or a tui-agent that never closed) writes it
    with other:
        other.execute("UPDATE sessions SET title = 'changed elsewhere'")
    other.close()
    assert await _checked_whole(db_path)
    assert not await _checked_whole(db_path)  # found good and closed cleanly again

    stamp.unlink()  # new to this machine (copied in, restored): no stamp
    assert await _checked_whole(db_path)

    old = check_policy.read_stamp(db_path)
    assert old is not None
    check_policy.write_stamp(db_path, time.time() - check_policy.RECHECK_AFTER - 60)  # checked long ago
    assert await _checked_whole(db_path)
    assert not await _checked_whole(db_path)


def _rot(db_path: Path, pages: int) -> None:
    """Damage the last `pages` pages as a disk does: the file's times do not move, and the stamp is rewritten
    as if its sample had missed them."""
    info = db_path.stat()
    data = bytearray(file_bytes(db_path))
    for offset in range(len(data) - 4096 * pages, len(data), 4096):
        data[offset : offset + 64] = b"\x0d" + b"\xff" * 63
    put_bytes(db_path, bytes(data))
    os.utime(db_path, ns=(info.st_atime_ns, info.st_mtime_ns))
    check_policy.write_stamp(db_path, time.time())


async def test_damage_the_stamp_cannot_see_is_caught_where_it_surfaces_and_the_next_start_checks(
    db_path: Path,
) -> None:
    session_id = await filled_history(db_path)
    _rot(db_path, 5)  # only message pages: opening reads none of them
    store = await HistoryStore.open(db_path)
    try:
        assert not store.report.whole_file_checked and store.report.moved_aside is None
        with pytest.raises(HistoryError, match="damaged"):
            await store.load_tail(session_id, 500)
        assert not check_policy.stamp_path(db_path).exists()
    finally:
        await store.close()
    assert not check_policy.stamp_path(db_path).exists()  # not written again by the close
    await assert_moved_aside_and_fresh(db_path)


async def test_damage_met_while_opening_moves_the_file_aside_though_no_check_was_due(db_path: Path) -> None:
    await filled_history(db_path)
    _rot(db_path, 40)  # the full-text index too: the recovery at open fails on it ("vtable constructor failed")
    store = await HistoryStore.open(db_path)
    try:
        assert store.report.moved_aside is not None and store.report.moved_aside.exists()
        session = await store.create_session("fresh start")
        assert [s.id for s in await store.list_recent()] == [session.id]
    finally:
        await store.close()
