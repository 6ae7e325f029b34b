"""Two processes write to one history file for a few seconds: no write lost, no "database is locked"."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.unit.history.helpers import integrity, raw_rows
from tui_agent.history.store import HistoryStore

SCRIPT = Path(__file__).with_name("busy_writer.py")
ROOT = Path(__file__).resolve().parents[3]


async def _shared_session(db: Path) -> str:
    store = await HistoryStore.open(db)
    shared = await store.create_session("shared")
    await store.close()
    return shared.id


@pytest.mark.slow
def test_two_writers_on_one_file(tmp_path: Path) -> None:
    db = tmp_path / "shared.db"
    shared_id = asyncio.run(_shared_session(db))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [
        subprocess.Popen(
            [sys.executable, str(SCRIPT), str(db), shared_id, "2.5"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for _ in range(2)
    ]
    outputs = [proc.communicate(timeout=60) for proc in procs]
    reports = []
    for proc, (out, err) in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, err
        assert "locked" not in err.lower() and "locked" not in out.lower()
        reports.append(json.loads(out.strip().splitlines()[-1]))
    for report in reports:
        assert report["pending"] == 0 and report["notices"] == []
    written = [i for report in reports for i in report["ids"]]
    assert all(len(report["ids"]) > 30 for report in reports)  # both really wrote, interleaved
    stored = {row[0] for row in raw_rows(db, "SELECT id FROM messages")}
    assert set(written) <= stored
    positions = [
        row[0]
        for row in raw_rows(db, "SELECT position FROM messages WHERE session_id = ? ORDER BY position", (shared_id,))
    ]
    assert positions == list(range(len(written) // 3))
    assert raw_rows(db, "SELECT count(*) FROM messages WHERE status != 'complete'") == [(0,)]
    assert integrity(db) == "ok"
