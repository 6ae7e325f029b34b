"""The real `tui-agent` in tmux over a history file in trouble. Not ours (the WAL of another database beside it):
it is moved aside untouched, the app says so on screen, and again on stderr once it has quit. Locked by another
program throughout: the status bar says so, and what could not be saved is said on stderr at exit."""

from __future__ import annotations

import asyncio
import os
import shlex
import shutil
import sqlite3
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
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
    with app_in_tmux(isolated_home) as name:
        wait_for_words(name, "was not a tui-agent history file")
        said = quit_and_read(name)
    [moved] = [
        p
        for p in db.parent.iterdir()
        if p.name.startswith("history.db.corrupt-") and not p.name.endswith(("-wal", "-shm"))
    ]
    assert moved.read_bytes() == original
    assert "was not a tui-agent history file" in said and str(moved) in said


def test_a_lock_held_throughout_shows_in_the_status_bar_and_what_was_lost_is_said(isolated_home: Path) -> None:
    db = isolated_home / "data" / "history.db"
    asyncio.run(_our_history(db))
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        with app_in_tmux(isolated_home) as name:
            wait_for(name, "⚠ not saved: database locked (1 pending)")  # the start-up checks wait too
            tmux("send-keys", "-t", name, "-l", "What's the weather in Paris?")
            tmux("send-keys", "-t", name, "Enter")
            screen = wait_for(name, "✓ done")
            assert "⚠ not saved: database locked (" in screen and "(1 pending)" not in screen  # the chat's too
            said = quit_and_read(name)
    finally:
        other.close()
    assert "could not be saved" in said and "another program kept the database locked" in said


def wait_for_words(name: str, words: str, timeout: float = 60) -> None:
    """Wait until `words` stand in the conversation column, however a notice wrapped them (a long temp path
    moves the line breaks)."""
    deadline = time.monotonic() + timeout
    text = ""
    while time.monotonic() < deadline:
        lines = tmux("capture-pane", "-p", "-t", name).splitlines()
        text = " ".join(" ".join(line.split("▏")[0].replace("▌", " ") for line in lines).split())
        if words in text:
            return
        time.sleep(0.2)
    raise AssertionError(f"{words!r} never appeared; the conversation column read:\n{text}")


@contextmanager
def app_in_tmux(home: Path) -> Iterator[str]:
    """`tui-agent --offline` over `home` in a 160x45 tmux window that stays after it exits; killed afterwards."""
    name = f"store-history-file-{uuid.uuid4().hex[:8]}"
    # The tmux server may be older than this test: its environment is not ours, so pass what matters.
    command = (
        f"env -u COLUMNS -u LINES PYTHONPATH={shlex.quote(os.environ.get('PYTHONPATH', ''))} "
        f"TUI_AGENT_HOME={shlex.quote(str(home))} {shlex.quote(sys.executable)} -m tui_agent "
        "--offline; echo tui-agent exited; sleep 60"
    )
    tmux("new-session", "-d", "-s", name, "-x", "160", "-y", "45", command)
    try:
        yield name
    finally:
        if session_alive(name):
            tmux("kill-session", "-t", name)


def quit_and_read(name: str) -> str:
    """Ctrl+Q, then what the app printed on stderr after it left the full screen (-J joins wrapped lines)."""
    tmux("send-keys", "-t", name, "C-q")
    wait_for(name, "tui-agent exited")
    return tmux("capture-pane", "-p", "-J", "-t", name)
