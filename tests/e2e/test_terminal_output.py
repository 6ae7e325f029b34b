"""Only the UI writes to the terminal: what tools, plugins and child processes write to fds 1 and 2 goes to
the output log (and the UI says where); with `-p` it goes to stderr, never into the reply on stdout.

The app runs in a real pseudo-terminal whose raw bytes the test reads; the plugin in `noisy_plugins/` writes
markers with `os.write` at import and from its tool, and through a child process (`echo`).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.e2e.pty_terminal import Terminal
from tui_agent.offline.server import BackgroundServer

NOISY_PLUGINS = Path(__file__).parent / "noisy_plugins"
MARKERS = [b"IMPORT-NOISE-1", b"IMPORT-NOISE-2", b"GARBAGE-FD-1", b"GARBAGE-FD-2", b"CHILD-ECHO"]
NOISY_TURN = {"replies": [{"tool_calls": [{"name": "make_noise", "arguments": {}}]}, {"text": "All quiet now."}]}


def app_command(base_url: str, db: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "tui_agent",
        "--base-url",
        base_url,
        "--model",
        "m",
        "--db",
        str(db),
        "--plugins",
        str(NOISY_PLUGINS),
    ]


def test_writes_to_fds_1_and_2_go_to_the_log_not_the_screen(isolated_home: Path, tmp_path: Path) -> None:
    env = {**os.environ, "TUI_AGENT_HOME": str(isolated_home), "TERM": "xterm-256color", "OPENAI_API_KEY": "k"}
    with BackgroundServer(NOISY_TURN) as server:
        terminal = Terminal(app_command(server.base_url, tmp_path / "history.db"), env, size=(160, 45))
        try:
            terminal.read_until(b"Ask anything")
            os.write(terminal.leader, b"make some noise\r")
            terminal.read_until(b"All quiet now.", in_text=True)
            terminal.read_until(b"A tool or plugin wrote to the terminal", in_text=True)
            os.write(terminal.leader, b"\x11")  # Ctrl+Q
            assert terminal.wait_for_exit() == 0
        finally:
            terminal.close()
    assert [marker for marker in MARKERS if marker in terminal.output] == []
    log = isolated_home / "data" / "logs" / "output.log"
    assert all(marker in log.read_bytes() for marker in MARKERS)
    assert log.stat().st_mode & 0o777 == 0o600


def test_print_mode_keeps_tool_and_plugin_output_out_of_the_reply(isolated_home: Path, tmp_path: Path) -> None:
    env = {**os.environ, "TUI_AGENT_HOME": str(isolated_home), "OPENAI_API_KEY": "k"}
    with BackgroundServer(NOISY_TURN) as server:
        done = subprocess.run(
            [*app_command(server.base_url, tmp_path / "history.db"), "-p", "make some noise"],
            capture_output=True,
            env=env,
            timeout=120,
        )
    assert done.returncode == 0, done.stderr
    assert done.stdout == b"All quiet now.\n"
    assert all(marker in done.stderr for marker in MARKERS)
