"""The real `tui-agent --offline` in a real terminal (tmux): ask for the weather, see the tool panel and answer."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], capture_output=True, text=True, check=True).stdout


def app_session(home: Path) -> Iterator[str]:
    """`tui-agent --offline` with `home` as TUI_AGENT_HOME in a 160x45 tmux window; killed afterwards."""
    name = f"tui-agent-test-{uuid.uuid4().hex[:8]}"
    # COLUMNS/LINES from the test process would pin the app to 80x24 inside the 160x45 window
    command = (
        f"env -u COLUMNS -u LINES TUI_AGENT_HOME={shlex.quote(str(home))} "
        f"{shlex.quote(sys.executable)} -m tui_agent --offline"
    )
    tmux("new-session", "-d", "-s", name, "-x", "160", "-y", "45", command)
    try:
        yield name
    finally:
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)


@pytest.fixture
def session(isolated_home: Path) -> Iterator[str]:
    yield from app_session(isolated_home)


def wait_for(name: str, text: str, timeout: float = 60) -> str:
    deadline = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < deadline:
        screen = tmux("capture-pane", "-p", "-t", name)
        if text in screen:
            return screen
        time.sleep(0.2)
    raise AssertionError(f"{text!r} never appeared; screen was:\n{screen}")


def test_weather_in_paris(session: str, isolated_home: Path) -> None:
    wait_for(session, "offline model")
    tmux("send-keys", "-t", session, "-l", "What's the weather in Paris?")
    tmux("send-keys", "-t", session, "Enter")
    screen = wait_for(session, "get_current_weather")
    screen = wait_for(session, "✓ done")
    assert "Paris" in screen
    tmux("send-keys", "-t", session, "C-q")
    deadline = time.monotonic() + 60  # bounds a hang: a loaded machine may take seconds to close history
    while time.monotonic() < deadline and session_alive(session):  # the session ends when the app exits
        time.sleep(0.2)
    assert not session_alive(session), "Ctrl+Q did not quit"
    assert (isolated_home / "data" / "history.db").exists()


def session_alive(name: str) -> bool:
    return subprocess.run(["tmux", "has-session", "-t", name], capture_output=True).returncode == 0
