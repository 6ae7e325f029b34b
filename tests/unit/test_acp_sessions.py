"""`tui-agent acp`'s sessions in one process, in-process (the protocol itself: tests/e2e/test_acp.py): past
`OPEN_AT_ONCE` engines the least recently used idle session is closed, and a prompt to it opens it again from
history, its conversation, mode and model kept; one closed before its first prompt is still removed at the end."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from acp import text_block

from tests.e2e.test_acp import Editor
from tui_agent.acp.server import OPEN_AT_ONCE, TuiAgentAcp
from tui_agent.config import Settings


async def test_a_session_closed_to_make_room_opens_again_when_prompted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the sessions' folder: the process stays where it is
    agent, editor = TuiAgentAcp(Settings(offline=True, db=tmp_path / "history.db")), Editor()
    agent.on_connect(editor)
    try:
        first = (await agent.new_session(cwd=str(tmp_path))).session_id
        await agent.set_session_mode(first, "auto-edit")
        await agent.set_config_option("model", first, "offline-2")
        assert (await agent.prompt(first, [text_block("remember: the word is teal")])).stop_reason == "end_turn"
        for _ in range(OPEN_AT_ONCE):
            await agent.new_session(cwd=str(tmp_path))
        assert len(agent.sessions) == OPEN_AT_ONCE and first not in agent.sessions  # closed: the oldest idle one
        assert (await agent.prompt(first, [text_block("and now?")])).stop_reason == "end_turn"
        again = agent.sessions[first].built.agent
        assert (again.permissions.mode, again.model) == ("auto-edit", "offline-2")
        said = [message.content for message in await again.load_history(None, 100)]
        assert said[0] == "remember: the word is teal" and said[2] == "and now?"
        assert len(agent.sessions) == OPEN_AT_ONCE  # and another made room for it
    finally:
        await agent.close()
    with sqlite3.connect(tmp_path / "history.db") as db:  # the four never prompted are gone, evicted or not
        assert [title for (title,) in db.execute("SELECT title FROM sessions")] == ["remember: the word is teal"]
