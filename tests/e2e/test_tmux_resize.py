"""The real app in tmux survives its window shrinking to 1x1 and back while a reply streams (before, two
columns raised `ValueError: range() arg 3 must not be zero` and the app died)."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.e2e.test_terminal_loss import gone, tmux, wait_for_screen
from tests.ui.test_tiny_terminals import SIZES
from tui_agent.offline.server import BackgroundServer

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
LONG_REPLY = {"replies": [{"text": "word " * 2000, "chunk_size": 5, "chunk_delay": 0.01}]}


def test_resizing_to_tiny_sizes_mid_reply_does_not_end_the_app(isolated_home: Path, tmp_path: Path) -> None:
    name = f"terminal-resize-{uuid.uuid4().hex[:8]}"
    with BackgroundServer(LONG_REPLY) as server:
        command = (
            f"env -u COLUMNS -u LINES TUI_AGENT_HOME={shlex.quote(str(isolated_home))} OPENAI_API_KEY=k "
            f"{shlex.quote(sys.executable)} -m tui_agent --base-url {server.base_url} --model m "
            f"--db {shlex.quote(str(tmp_path / 'history.db'))}"
        )
        tmux("new-session", "-d", "-s", name, "-x", "120", "-y", "40", command)
        try:
            pid = int(tmux("list-panes", "-t", name, "-F", "#{pane_pid}").split()[0])
            wait_for_screen(name, "Ask anything")
            tmux("send-keys", "-t", name, "-l", "hello")
            tmux("send-keys", "-t", name, "Enter")
            wait_for_screen(name, "word word word")
            for columns, rows in SIZES:
                tmux("resize-window", "-t", name, "-x", str(columns), "-y", str(rows))
                time.sleep(0.1)  # a few frames at each size
                assert not gone(pid), f"the app ended at {columns}x{rows}"
            wait_for_screen(name, "Ask anything")  # back at 120x36, drawn in full
            assert not gone(pid)
        finally:
            subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)
