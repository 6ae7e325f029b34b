"""Rewind in the TUI on the real engine: `u` on a prompt shows what changes on disk, then brings the files and
the conversation back (the prompt in the box to send again, what follows dimmed); switching back to the old
branch offers its files; the palette's undo takes the last one back. The offline model over HTTP, a real
SQLite file, a plugin that really writes files in a real working directory."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from textual.widgets import OptionList, Static

from tests.ui.helpers import FIXED_NOW, chat, chat_idle, send, showing, wait_until
from tests.unit.agent.test_rewind import REPLIES
from tui_agent.agent.endpoint import EndpointChoice
from tui_agent.agent.services import build_agent
from tui_agent.config import Settings
from tui_agent.offline.server import BackgroundServer
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.commands import undo_rewind
from tui_agent.ui.screens.files_restore import FilesScreen
from tui_agent.ui.widgets.messages import UserMessage

PLUGINS = Path(__file__).parents[1] / "unit" / "agent" / "file_plugins"


@pytest.fixture
async def server() -> AsyncIterator[BackgroundServer]:
    background = BackgroundServer({"replies": REPLIES})
    background.start()
    yield background
    background.stop()


def files_shown(app: TuiAgentApp) -> str:
    lines = [str(option.prompt) for option in app.screen.query_one(OptionList).options]
    return "\n".join([*lines, *(str(static.render()) for static in app.screen.query(Static))])


async def test_rewind_switch_back_and_undo_move_the_files_with_the_conversation(
    server: BackgroundServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    settings = Settings(db=tmp_path / "history.db", plugin_dirs=[PLUGINS])
    choice = EndpointChoice(server.base_url, "scripted", "test-key")
    app = TuiAgentApp(
        lambda: build_agent(settings, choice), model=choice.model, endpoint=choice.label, clock=lambda: FIXED_NOW
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "write a")
        await send(pilot, "change a, write b")
        assert (work / "a.txt").read_text() == "two\n" and (work / "b.txt").read_text() == "bee\n"
        screen = chat(pilot)

        await pilot.press(*"/rewind", "enter")  # the newest prompt: back to before it (as `u` on it)
        await wait_until(pilot, lambda: showing(app, FilesScreen), "the files to restore")
        text = files_shown(app)
        assert "a.txt  +1 −1" in text and "b.txt  delete" in text, text
        highlighted = "-bee" if text.index("b.txt") < text.index("a.txt") else "+one"
        assert highlighted in text  # the highlighted file's diff; the other's after a move
        await pilot.press("down")
        assert ({"-bee", "+one"} - {highlighted}).pop() in files_shown(app)
        assert (work / "b.txt").exists()  # nothing written before the answer
        await pilot.press("enter")
        await wait_until(pilot, lambda: not (work / "b.txt").exists(), "the files rewound")
        assert (work / "a.txt").read_text() == "one\n"
        prompt = screen.prompt_input
        await wait_until(pilot, lambda: prompt.text == "change a, write b", "the prompt back in the box")
        assert "rewound" in str(prompt.border_title)
        dimmed = [entry for entry in screen.chat_log.entries if entry.has_class("-rewound")]
        assert len(dimmed) >= 2  # the prompt and its reply, kept on their branch

        prompt.load_text("write c")
        await pilot.press("enter")  # a new version of the prompt: a new branch, writing its own file
        await wait_until(pilot, lambda: chat_idle(pilot) and (work / "c.txt").exists(), "the new branch's turn")
        assert not any(entry.has_class("-rewound") for entry in screen.chat_log.entries)

        screen.message_cursor.run("branch", UserMessage, -1)  # back to the old version of that prompt
        await wait_until(pilot, lambda: showing(app, FilesScreen), "the old branch's files offered")
        assert "c.txt  delete" in files_shown(app) and "b.txt  create" in files_shown(app)
        await pilot.press("enter")
        await wait_until(pilot, lambda: not (work / "c.txt").exists(), "the old branch's files back")
        assert (work / "a.txt").read_text() == "two\n" and (work / "b.txt").read_text() == "bee\n"

        undo_rewind(app)
        await wait_until(pilot, lambda: showing(app, FilesScreen), "the undo shown first")
        await pilot.press("enter")
        await wait_until(pilot, lambda: (work / "c.txt").exists(), "the last move taken back")
        assert not (work / "b.txt").exists() and (work / "a.txt").read_text() == "one\n"
