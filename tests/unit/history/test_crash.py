"""SIGKILL a process streaming a reply at random points: the database stays sound and nothing committed is lost."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.unit.history.crash_writer import FULL_REPLY
from tests.unit.history.helpers import integrity, raw_pairs, raw_rows
from tui_agent.history.store import HistoryStore
from tui_agent.status import MessageStatus, ToolStatus

RUNS = 20
SCRIPT = Path(__file__).with_name("crash_writer.py")
ROOT = Path(__file__).resolve().parents[3]


class Child:
    """The writer subprocess and the lines it has printed so far."""

    def __init__(self, db: Path) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.proc = subprocess.Popen(
            [sys.executable, str(SCRIPT), str(db)],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=env,
        )
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.strip())

    async def wait_for(self, word: str) -> None:
        deadline = time.monotonic() + 10.0
        while not any(line.startswith(word) for line in self.lines):
            if time.monotonic() > deadline or self.proc.poll() is not None:
                return
            await asyncio.sleep(0.005)

    def kill(self) -> list[str]:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        self._reader.join(timeout=5)
        return list(self.lines)


def _values(lines: list[str], word: str) -> list[str]:
    return [line.split(" ", 1)[1] for line in lines if line.startswith(word + " ")]


async def _check(db: Path, lines: list[str]) -> None:
    assert integrity(db) == "ok"
    committed = _values(lines, "committed")
    found = {row[0] for row in raw_rows(db, "SELECT id FROM messages WHERE status = 'complete'")}
    assert set(committed) <= found
    store = await HistoryStore.open(db)  # recovery runs here
    try:
        for reply_id in _values(lines, "turn"):
            [row] = raw_rows(db, "SELECT content, status FROM messages WHERE id = ?", (reply_id,))
            content, status = row
            assert isinstance(content, str)
            saved = max((int(v) for v in _values(lines, "saved")), default=0)
            assert status == ("complete" if "finished" in lines else MessageStatus.INTERRUPTED.value)
            assert FULL_REPLY.startswith(content) and len(content) >= saved
            calls = raw_pairs(db, "SELECT call_id, status FROM tool_calls WHERE message_id = ?", (reply_id,))
            assert set(_values(lines, "tool")) <= set(calls)
            if "finished" not in lines:
                assert set(calls.values()) <= {ToolStatus.INTERRUPTED.value}
    finally:
        await store.close()


@pytest.mark.slow
async def test_sigkill_at_random_points(tmp_path: Path) -> None:
    db = tmp_path / "crash.db"
    rng = random.Random(20261123)
    interrupted_mid_reply = 0
    for run in range(RUNS):
        child = Child(db)
        if run % 5 == 4:
            await asyncio.sleep(rng.uniform(0.0, 0.3))  # anywhere, even while opening or migrating
        else:
            await child.wait_for("turn")
            await asyncio.sleep(rng.uniform(0.0, 0.5))
        lines = child.kill()
        interrupted_mid_reply += any(v for v in _values(lines, "saved")) and "finished" not in lines
        await _check(db, lines)
    assert interrupted_mid_reply >= RUNS // 4  # the kills really landed mid-reply
