"""A long batch of writes lets the event loop's thread in (`HandOver`), and still commits as one transaction."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from tui_agent.history.writer import HAND_OVER_SLEEP, HandOver, WriteFn, loop_has_work, run_batch


def test_hand_over_sleeps_only_once_the_batch_has_worked_long_enough() -> None:
    now = [10.0]
    slept: list[float] = []
    hand_over = HandOver(0.5, clock=lambda: now[0], sleep=slept.append)
    hand_over()
    now[0] += 0.4
    hand_over()
    assert slept == [], "a short batch pays nothing"
    now[0] += 0.1
    hand_over()
    assert slept == [HAND_OVER_SLEEP]
    now[0] += 0.3
    hand_over()
    assert slept == [HAND_OVER_SLEEP], "the next one is due `every` seconds after the last"
    now[0] += 0.2
    hand_over()
    assert slept == [HAND_OVER_SLEEP, HAND_OVER_SLEEP]


def test_run_batch_hands_over_between_writes_in_one_transaction(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "t.db", isolation_level=None)
    conn.execute("CREATE TABLE t (n INTEGER UNIQUE)")
    seen: list[tuple[int, bool]] = []

    def insert(n: int) -> WriteFn:
        return lambda c: c.execute("INSERT INTO t VALUES (?)", (n,)).rowcount

    def between() -> None:
        seen.append((len(conn.execute("SELECT n FROM t").fetchall()), conn.in_transaction))

    results = run_batch(conn, [insert(1), insert(1), insert(2)], between)  # the second fails alone
    assert [ok for ok, _ in results] == [True, False, True]
    assert seen == [(1, True), (1, True)], "called between writes only, inside the one transaction"
    assert conn.execute("SELECT n FROM t ORDER BY n").fetchall() == [(1,), (2,)]
    assert run_batch(conn, [insert(3)], between) == [(True, 1)] and len(seen) == 2, "a lone write: never"


def test_hand_over_sleeps_only_when_the_loop_has_work_and_sees_its_work() -> None:
    now, slept, busy = [0.0], list[float](), [False]
    hand_over = HandOver(0.5, wanted=lambda: busy[0], clock=lambda: now[0], sleep=slept.append)
    now[0] += 1
    hand_over()
    assert slept == [], "an idle loop: nobody to let in"
    now[0] += 1
    busy[0] = True
    hand_over()
    assert slept == [HAND_OVER_SLEEP]
    loop = asyncio.new_event_loop()
    try:
        has_work = loop_has_work(loop)
        loop.call_later(60, print)
        assert not has_work(), "a timer not yet due"
        loop.call_at(loop.time() - 1, print)
        assert has_work(), "a timer due"
        other = asyncio.new_event_loop()
        other.call_soon(print)
        assert loop_has_work(other)(), "a callback ready"
        other.close()
    finally:
        loop.close()
