"""The real app in a real terminal (tmux): Esc typed right after Enter on a new session's first prompt stops the
reply, and the prompts typed next are sent one by one.

Before, the first turn of a new session ignored that Esc (the turn was still being set up): the status line
said "ready" while a slow reply streamed in and was stored complete, and prompts typed meanwhile waited
behind it. The model here is a real HTTP server (the offline model, scripted to answer slowly).
"""

from __future__ import annotations

import asyncio
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.test_tmux import session_alive, tmux, wait_for
from tests.fixtures.offline import strict_scenario
from tui_agent.history.store import HistoryStore
from tui_agent.offline.server import BackgroundServer
from tui_agent.status import MessageStatus, Role

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

SLOW = {"default_chunk_delay": 0.15}
"""The offline model's own answers ("You asked: ..."), a few seconds each: run to its end, the first would be
stored complete; stopped, it is interrupted whenever Esc reaches it (the prompts after it are answered at once:
`answer_at_once`)."""


@pytest.fixture
def session(isolated_home: Path) -> Iterator[tuple[str, BackgroundServer]]:
    """`tui-agent` on a slow model in a 160x45 tmux window, and the model."""
    server = BackgroundServer(strict_scenario(SLOW))
    server.start()
    name = f"uiloss-first-stop-{uuid.uuid4().hex[:8]}"
    command = (
        f"env -u COLUMNS -u LINES TUI_AGENT_HOME={shlex.quote(str(isolated_home))} OPENAI_API_KEY=test-key "
        f"{shlex.quote(sys.executable)} -m tui_agent --base-url {shlex.quote(server.base_url)} --model scripted"
    )
    tmux("new-session", "-d", "-s", name, "-x", "160", "-y", "45", command)
    try:
        yield name, server
    finally:
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)
        server.stop()


def quit_app(name: str) -> None:
    tmux("send-keys", "-t", name, "C-q")
    deadline = time.monotonic() + 60  # bounds a hang: a loaded machine may take seconds to close history
    while time.monotonic() < deadline and session_alive(name):
        time.sleep(0.2)
    assert not session_alive(name), "Ctrl+Q did not quit"


async def stored(db: Path) -> list[tuple[Role, str, MessageStatus]]:
    store = await HistoryStore.open(db)
    try:
        (only,) = await store.list_recent()
        return [(m.role, m.content, m.status) for m in await store.load_tail(only.id, 100)]
    finally:
        await store.close()


def answer_at_once(server: BackgroundServer) -> None:
    """The model's next answers come without pauses (the one already streaming keeps its own)."""
    served = server.server
    served.scenario = served.scenario.model_copy(update={"default_chunk_delay": 0.0})


def test_escape_typed_right_after_enter_stops_the_first_reply(
    session: tuple[str, BackgroundServer], isolated_home: Path
) -> None:
    name, server = session
    wait_for(name, "scripted")  # the status line: the app is up
    wait_for(name, "○ ready")
    tmux("send-keys", "-t", name, "-l", "tell me a long story")
    tmux("send-keys", "-t", name, "Enter", "Escape")  # one write: the terminal delivers both at once
    wait_for(name, "interrupted")  # the reply's mark: stopped, not streaming on behind "ready"
    answer_at_once(server)  # the prompts below wait for their whole answers
    for prompt in ("go 1", "go 2"):
        tmux("send-keys", "-t", name, "-l", prompt)
        tmux("send-keys", "-t", name, "Enter")
        # answered as a prompt of its own, to the end of the offline model's answer (`print("...go 1")`: the
        # stopped prompt, whose reply is empty, reaches the model joined to the next one)
        wait_for(name, f'{prompt}")')
        wait_for(name, "○ ready")
    quit_app(name)
    messages = asyncio.run(stored(isolated_home / "data" / "history.db"))
    assert [content for role, content, _ in messages if role is Role.USER] == ["tell me a long story", "go 1", "go 2"]
    replies = [status for role, _, status in messages if role is Role.ASSISTANT]
    assert replies == [MessageStatus.INTERRUPTED, MessageStatus.COMPLETE, MessageStatus.COMPLETE]
