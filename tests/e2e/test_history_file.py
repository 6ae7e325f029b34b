"""The real `tui-agent` in tmux over a history file that is not ours (the WAL of another database beside it):
it is moved aside untouched, the app says so on screen, and says it again on stderr once it has quit."""

from __future__ import annotations

import asyncio
import os
import shlex
import shutil
import sqlite3
import sys
import uuid
from pathlib import Path

import pytest

from tests.e2e.test_tmux import session_alive, tmux, wait_for
from tui_agent.history.store import HistoryStore
from tui_agent.status import MessageStatus, Role

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


async def _our_history(db: Path) -> None:
    store = await HistoryStore.open(db)
    try:
        session = await store.create_session("my precious chat")
        await store.append_message(session.id, Role.USER, "remember the walrus", MessageStatus.COMPLETE)
    finally:
        await store.close()


def test_a_foreign_wal_is_moved_aside_and_reported_on_screen_and_on_stderr(isolated_home: Path) -> None:
    db = isolated_home / "data" / "history.db"
    asyncio.run(_our_history(db))
    original = db.read_bytes()
    other = sqlite3.connect(isolated_home / "notes.db", isolation_level=None)
    other.execute("PRAGMA journal_mode = WAL")
    other.execute("CREATE TABLE notes (body TEXT)")
    other.execute("INSERT INTO notes VALUES ('buy milk')")
    shutil.copyfile(isolated_home / "notes.db-wal", f"{db}-wal")
    other.close()
    name = f"store-history-file-{uuid.uuid4().hex[:8]}"
    # The tmux server may be older than this test: its environment is not ours, so pass what matters.
    command = (f"env -u COLUMNS -u LINES PYTHONPATH={shlex.quote(os.environ.get('PYTHONPATH', ''))} "
               f"TUI_AGENT_HOME={shlex.quote(str(isolated_home))} {shlex.quote(sys.executable)} -m tui_agent "
               f"--offline; echo tui-agent exited; sleep 60")
    tmux("new-session", "-d", "-s", name, "-x", "160", "-y", "45", command)
    try:
        wait_for(name, "not a tui-agent")
        tmux("send-keys", "-t", name, "C-q")
        wait_for(name, "tui-agent exited", timeout=20)
        # What the app printed to stderr after it left the full screen; -J joins lines wrapped at 160 columns.
        said = tmux("capture-pane", "-p", "-J", "-t", name)
    finally:
        tmux_kill(name)
    [moved] = [p for p in db.parent.iterdir()
               if p.name.startswith("history.db.corrupt-") and not p.name.endswith(("-wal", "-shm"))]
    assert moved.read_bytes() == original
    assert "was not a tui-agent history file" in said and str(moved) in said


def tmux_kill(name: str) -> None:
    if session_alive(name):
        tmux("kill-session", "-t", name)
