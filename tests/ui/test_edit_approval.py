"""An edit tool's approval on the real engine: the dialog shows the diff, and "always" is per file or for edits."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Button, Static

from tests.ui.helpers import FIXED_NOW, chat, chat_idle, send, showing, wait_until
from tui_agent.agent.endpoint import EndpointChoice
from tui_agent.agent.services import build_agent
from tui_agent.config import Settings
from tui_agent.offline.server import BackgroundServer
from tui_agent.status import ToolStatus
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.screens.approval import ApprovalScreen


def calls(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


@pytest.fixture
async def server() -> AsyncIterator[BackgroundServer]:
    replies = [
        calls("write_file", path="hello.py", content="print('hi')\n"),
        {"text": "created"},
        calls("edit_file", path="hello.py", edits=[{"old": "hi", "new": "hello"}]),
        {"text": "edited, unasked: this file is allowed"},
        calls("write_file", path="other.py", content="x = 1\n"),
        {"text": "asked again: another file"},
        calls("write_file", path="third.py", content="y = 2\n"),
        {"text": "unasked: every edit is allowed"},
    ]
    background = BackgroundServer({"replies": replies})
    background.start()
    yield background
    background.stop()


def dialog_text(app: TuiAgentApp) -> str:
    return "\n".join(str(static.render()) for static in app.screen.query(Static))


async def test_the_dialog_shows_the_diff_and_always_is_per_file_or_for_edits(
    server: BackgroundServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    settings = Settings(db=tmp_path / "history.db")
    choice = EndpointChoice(server.base_url, "scripted", "test-key")
    app = TuiAgentApp(
        lambda: build_agent(settings, choice), model=choice.model, endpoint=choice.label, clock=lambda: FIXED_NOW
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "create hello.py", wait=False)
        await wait_until(pilot, lambda: showing(app, ApprovalScreen), "the approval dialog")
        text = dialog_text(app)
        assert "hello.py  +1 −0" in text and "+print('hi')" in text, text
        assert {button.id for button in app.screen.query(Button)} == {"allow_once", "allow_file", "allow_edits", "deny"}
        assert not (work / "hello.py").exists()  # the preview wrote nothing
        await pilot.press("f")
        await wait_until(pilot, lambda: chat_idle(pilot), "the first turn")
        await send(pilot, "change it")  # the same file: no question
        assert (work / "hello.py").read_text() == "print('hello')\n"
        await send(pilot, "another file", wait=False)
        await wait_until(pilot, lambda: showing(app, ApprovalScreen), "asked for another file")
        await pilot.press("e")
        await wait_until(pilot, lambda: chat_idle(pilot), "the third turn")
        await send(pilot, "a third file")  # every edit allowed: no question
        panels = chat(pilot).tool_panels.panels
        assert [panel.status for panel in panels] == [ToolStatus.DONE] * 4
        assert "hello.py  +1 −1" in str(panels[1].render())
        panels[1].action_toggle_result()
        assert "+print('hello')" in str(panels[1].render())
    assert (work / "third.py").read_text() == "y = 2\n"
