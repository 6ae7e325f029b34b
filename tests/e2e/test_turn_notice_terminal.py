"""A long turn that ends while the terminal is not focused rings it: the raw bytes a real terminal gets carry
the configured notification (OSC 9 here), and a turn that ends while focused sends none."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from tests.e2e.pty_terminal import Terminal
from tui_agent.offline.server import BackgroundServer

SLOW_TURNS = {
    "replies": [
        {"text": "First answer, after a pause.", "first_token_delay": 1.5},
        {"text": "Second answer, after a pause.", "first_token_delay": 1.5},
    ]
}
NOTICE = b"\x1b]9;tui-agent: reply ready"


def test_a_turn_ending_out_of_focus_rings_and_one_ending_in_focus_does_not(isolated_home: Path, tmp_path: Path) -> None:
    config = isolated_home / "config" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[ui]\nnotify = "osc9"\nnotify_after = 1\n')
    env = {**os.environ, "TUI_AGENT_HOME": str(isolated_home), "TERM": "xterm-256color", "OPENAI_API_KEY": "k"}
    with BackgroundServer(SLOW_TURNS) as server:
        command = [sys.executable, "-m", "tui_agent", "--base-url", server.base_url, "--model", "m"]
        terminal = Terminal([*command, "--db", str(tmp_path / "history.db")], env, size=(120, 40))
        try:
            terminal.read_until(b"Ask anything")
            os.write(terminal.leader, b"first question\r")
            terminal.read_until(b"First answer", in_text=True)
            assert NOTICE not in terminal.output, "the person was looking: no notice"
            os.write(terminal.leader, b"second question\r")
            os.write(terminal.leader, b"\x1b[O")  # the terminal reports that its window lost the focus
            terminal.read_until(NOTICE)
            os.write(terminal.leader, b"\x11")  # Ctrl+Q
            assert terminal.wait_for_exit() == 0
        finally:
            terminal.close()
