"""SIGTERM and SIGHUP end the real app cleanly and promptly: exit status 0, the terminal restored, the reply
in flight saved.

The app runs in a pseudo-terminal against the offline model serving a long, slow reply; the signal arrives
mid-stream, and the process must be gone within 2 s.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

import pytest

from tests.e2e.pty_terminal import ENDS_WITHIN, Terminal
from tui_agent.history.store import HistoryStore
from tui_agent.offline.server import BackgroundServer
from tui_agent.status import MessageStatus, Role

LEAVE_ALTERNATE_SCREEN = b"\x1b[?1049l"
LONG_REPLY = {"replies": [{"text": "word " * 3000, "chunk_size": 5, "chunk_delay": 0.01}]}


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
        terminal = Terminal(
            [sys.executable, "-m", "tui_agent", "--base-url", server.base_url, "--model", "m", "--db", str(db)], env
        )
        try:
            terminal.read_until(b"Ask anything")
            os.write(terminal.leader, b"hello\r")
            terminal.read_until(b"word word word")
            terminal.process.send_signal(signum)
            assert terminal.ends_within(ENDS_WITHIN)
            assert terminal.wait_for_exit() == 0
            restored_at = terminal.output.rfind(LEAVE_ALTERNATE_SCREEN)
            assert restored_at != -1 and b"Traceback" not in terminal.output[restored_at:]
        finally:
            terminal.close()
    status, content = asyncio.run(stored_reply(db))
    assert status is MessageStatus.INTERRUPTED
    assert content.startswith("word word word") and len(content) < len("word " * 3000)
