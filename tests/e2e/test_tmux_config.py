"""The real app in tmux with a config file: a `[keys]` override works, an unknown action name is reported and
the app still starts, and a theme picked in the palette is saved back into the file (its comment kept)."""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.test_tmux import app_session, tmux, wait_for
from tui_agent.config import resolve_settings

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

CONFIG = '# mine\n[keys]\nhelp = "f2"\nlaunch_rockets = "f6"\n'


def wait_until_gone(name: str, text: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout  # bounds a hang only
    while text in (screen := tmux("capture-pane", "-p", "-t", name)):
        if time.monotonic() > deadline:
            raise AssertionError(f"{text!r} never went away; screen was:\n{screen}")
        time.sleep(0.2)


@pytest.fixture
def session(isolated_home: Path) -> Iterator[str]:
    config = isolated_home / "config" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(CONFIG)
    yield from app_session(isolated_home)


def test_keys_override_and_theme_saved(session: str, isolated_home: Path) -> None:
    wait_for(session, "launch_rockets")  # the one notification about the unknown name
    tmux("send-keys", "-t", session, "F2")
    screen = wait_for(session, "Everywhere")  # the help's first group (a small terminal shows no more)
    assert "f2" in screen and "Help" in screen
    tmux("send-keys", "-t", session, "Escape")
    wait_until_gone(session, "Everywhere")  # Ctrl+P while the help is still up would go to the help
    tmux("send-keys", "-t", session, "C-p")
    wait_for(session, "Search for commands")
    tmux("send-keys", "-t", session, "-l", "Theme")
    wait_for(session, "saved in the config file")
    tmux("send-keys", "-t", session, "Enter")
    wait_for(session, "atom-one-dark")
    tmux("send-keys", "-t", session, "-l", "paper")
    wait_for(session, "light · tui-agent")
    tmux("send-keys", "-t", session, "Enter")
    wait_for(session, "Theme paper, saved")
    path = isolated_home / "config" / "config.toml"
    assert path.read_text() == '# mine\ntheme = "paper"\n\n[keys]\nhelp = "f2"\nlaunch_rockets = "f6"\n'
    settings, problems = resolve_settings({}, path, environ={})
    assert settings.theme == "paper" and settings.keys["help"] == "f2" and problems == []
    tmux("send-keys", "-t", session, "C-q")
