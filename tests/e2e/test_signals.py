"""SIGTERM and SIGHUP end the real app cleanly: exit status 0, the terminal restored, the reply in flight saved.

The app runs in a pseudo-terminal against the offline model serving a long, slow reply; the signal arrives
mid-stream.
"""

from __future__ import annotations

import asyncio
import os
import pty
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tui_agent.history.store import HistoryStore
from tui_agent.offline.server import BackgroundServer
from tui_agent.status import MessageStatus, Role

LEAVE_ALTERNATE_SCREEN = b"\x1b[?1049l"
LONG_REPLY = {"replies": [{"text": "word " * 3000, "chunk_size": 5, "chunk_delay": 0.01}]}


class Terminal:
    """A child process on a pseudo-terminal, with everything it wrote so far."""

    def __init__(self, command: list[str], env: dict[str, str]) -> None:
        self.leader, follower = pty.openpty()
        self.process = subprocess.Popen(command, stdin=follower, stdout=follower, stderr=follower, env=env,
                                        start_new_session=True)
        os.close(follower)
        self.output = b""

    def read_until(self, marker: bytes, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while marker not in self.output:
            if time.monotonic() > deadline:
                raise AssertionError(f"{marker!r} never appeared; last output: {self.output[-400:]!r}")
            self._read(0.05)

    def wait_for_exit(self, timeout: float = 30) -> int:
        deadline = time.monotonic() + timeout
        while self.process.poll() is None and time.monotonic() < deadline:
            self._read(0.05)
        self._read(0.2)  # the last writes (restoring the terminal) may still be in the pipe
        return self.process.wait(timeout=1)

    def _read(self, wait: float) -> None:
        ready, _, _ = select.select([self.leader], [], [], wait)
        if ready:
            try:
                self.output += os.read(self.leader, 65536)
            except OSError:  # the child closed the terminal
                pass

    def close(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        os.close(self.leader)


async def stored_reply(db: Path) -> tuple[MessageStatus, str]:
    store = await HistoryStore.open(db)
    try:
        (session,) = await store.list_recent()
        reply = [m for m in await store.load_tail(session.id, 10) if m.role is Role.ASSISTANT][-1]
        return reply.status, reply.content
    finally:
        await store.close()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_signal_mid_reply_exits_cleanly_and_keeps_the_reply(
    signum: signal.Signals, isolated_home: Path, tmp_path: Path
) -> None:
    db = tmp_path / "history.db"
    env = {**os.environ, "TUI_AGENT_HOME": str(isolated_home), "TERM": "xterm-256color", "OPENAI_API_KEY": "k"}
    with BackgroundServer(LONG_REPLY) as server:
        terminal = Terminal([sys.executable, "-m", "tui_agent", "--base-url", server.base_url, "--model", "m",
                             "--db", str(db)], env)
        try:
            terminal.read_until(b"Ask anything")
            os.write(terminal.leader, b"hello\r")
            terminal.read_until(b"word word word")
            terminal.process.send_signal(signum)
            assert terminal.wait_for_exit() == 0
            restored_at = terminal.output.rfind(LEAVE_ALTERNATE_SCREEN)
            assert restored_at != -1 and b"Traceback" not in terminal.output[restored_at:]
        finally:
            terminal.close()
    status, content = asyncio.run(stored_reply(db))
    assert status is MessageStatus.INTERRUPTED
    assert content.startswith("word word word") and len(content) < len("word " * 3000)
