"""The app does not outlive its terminal: a terminal that goes away mid-reply ends it within 2 s, with the
reply saved so far in history, marked interrupted by the app itself (not by the next start's recovery).

Two ways a terminal goes: its pseudo-terminal is closed under the app with no signal at all (the app is
not its controlling process), and a tmux pane is closed (the kernel's hang-up), many times over.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.e2e.pty_terminal import ENDS_WITHIN, Terminal
from tui_agent.offline.server import BackgroundServer

LONG_REPLY = {"replies": [{"text": "word " * 3000, "chunk_size": 5, "chunk_delay": 0.01}], "then": "repeat_last"}
TMUX_ROUNDS = 4
"""Rounds of closing the window mid-reply (the race it guards showed in 5 of 8 runs; 10 rounds cost CI ~20 s)."""


def saved_reply(db: Path) -> tuple[str, str]:
    """The last reply's status and text as the file holds them (plain sqlite3: no recovery on open)."""
    with sqlite3.connect(db) as conn:
        status, content = conn.execute(
            "SELECT status, content FROM messages WHERE role = 'assistant' ORDER BY rowid DESC LIMIT 1"
        ).fetchone()
    conn.close()
    return str(status), str(content)


def assert_reply_interrupted(db: Path) -> None:
    status, content = saved_reply(db)
    assert status == "interrupted"
    assert content.startswith("word word word") and len(content) < len("word " * 3000)


def gone(pid: int) -> bool:
    """True once `pid` has ended (a zombie waiting for its parent to reap it has ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in ("Z", "X")


def wait_gone(pid: int, within: float) -> bool:
    deadline = time.monotonic() + within
    while not gone(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def ask_then_hang_up(base_url: str, home: Path, db: Path, seen: bytes, *, in_text: bool = False) -> None:
    """The app on a pty: "hello" asked, its terminal closed once `seen` has arrived; it must end by itself."""
    env = {**os.environ, "TUI_AGENT_HOME": str(home), "TERM": "xterm-256color", "OPENAI_API_KEY": "k"}
    command = [sys.executable, "-m", "tui_agent", "--base-url", base_url, "--model", "m", "--db", str(db)]
    terminal = Terminal(command, env, size=(120, 40))
    try:
        terminal.read_until(b"Ask anything")
        os.write(terminal.leader, b"hello\r")
        terminal.read_until(seen, in_text=in_text)
        terminal.hang_up()
        assert terminal.ends_within(ENDS_WITHIN), "still running after its terminal closed"
    finally:
        terminal.close()


def test_closed_pty_mid_reply_ends_the_app(isolated_home: Path, tmp_path: Path) -> None:
    """No SIGHUP here: the app only sees writes fail and reads end; before, its writer thread died and the
    event loop blocked for ever on the writer's full queue, deaf to SIGTERM too."""
    db = tmp_path / "history.db"
    with BackgroundServer(LONG_REPLY) as server:
        ask_then_hang_up(server.base_url, isolated_home, db, b"word word word")
    assert_reply_interrupted(db)


def test_a_terminal_closed_after_a_big_reply_ends_the_app_with_the_reply_whole(
    isolated_home: Path, tmp_path: Path
) -> None:
    """The quick way out (the hang-up noticed at once, no teardown: `tui_agent.ending`) still saves every
    character of a finished reply, as complete, and the app leaves by itself (not by the watchdog)."""
    db = tmp_path / "history.db"
    reply = "A line of the long reply.\n\n" * 20_000 + "END-OF-REPLY"
    with BackgroundServer({"replies": [{"text": reply, "chunk_size": 65536}]}) as server:
        ask_then_hang_up(server.base_url, isolated_home, db, b"END-OF-REPLY", in_text=True)
    assert saved_reply(db) == ("complete", reply)
    log = isolated_home / "data" / "logs" / "output.log"
    assert not log.exists() or b"still running" not in log.read_bytes()


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], capture_output=True, text=True, check=True).stdout


def wait_for_screen(name: str, text: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while text not in (screen := tmux("capture-pane", "-p", "-t", name)):
        if time.monotonic() > deadline:
            raise AssertionError(f"{text!r} never appeared; screen was:\n{screen}")
        time.sleep(0.05)


def close_pane_mid_reply(base_url: str, home: Path, db: Path) -> None:
    """One round: start the app in a tmux window, ask, close the window while the reply streams."""
    name = f"terminal-loss-{uuid.uuid4().hex[:8]}"
    pid_file = db.with_suffix(".pid")
    app = (
        f"env -u COLUMNS -u LINES TUI_AGENT_HOME={shlex.quote(str(home))} OPENAI_API_KEY=k "
        f"{shlex.quote(sys.executable)} -m tui_agent --base-url {base_url} --model m --db {shlex.quote(str(db))}"
    )
    # as when typed at a shell: the app runs under the shell, which is the session leader
    command = f"sh -c {shlex.quote(f'echo $$ > {pid_file}; exec {app}')}; true"  # tmux runs it with `sh -c`
    tmux("new-session", "-d", "-s", name, "-x", "120", "-y", "40", command)
    try:
        wait_for_screen(name, "Ask anything")
        pid = int(pid_file.read_text())
        tmux("send-keys", "-t", name, "-l", "hello")
        tmux("send-keys", "-t", name, "Enter")
        wait_for_screen(name, "word word word")
    finally:
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)
    assert wait_gone(pid, ENDS_WITHIN), f"still running {ENDS_WITHIN} s after its tmux window closed"


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_closing_the_tmux_window_mid_reply_ends_the_app_every_time(isolated_home: Path, tmp_path: Path) -> None:
    with BackgroundServer(LONG_REPLY) as server:
        for round_ in range(TMUX_ROUNDS):
            db = tmp_path / f"history-{round_}.db"
            close_pane_mid_reply(server.base_url, isolated_home, db)
            assert_reply_interrupted(db)
    log = isolated_home / "data" / "logs" / "output.log"
    assert not log.exists() or b"still running" not in log.read_bytes()  # ended by itself, not the watchdog
