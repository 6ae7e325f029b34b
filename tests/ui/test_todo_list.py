"""The todo list: the offline model's `todo` call shows it above the tool panels, history keeps it with the call,
and resuming the session shows it again (real engine, offline model over HTTP, a real SQLite file)."""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot

from tests.ui.helpers import FIXED_NOW, SIZE, chat, chat_ready, send, wait_until
from tests.ui.sessions_stack import build_and_resume
from tui_agent.agent.endpoint import EndpointChoice
from tui_agent.agent.resume import ResumeRequest
from tui_agent.boot import early_page
from tui_agent.config import Settings
from tui_agent.ui.app import TuiAgentApp


def app_on(db: Path, resume: ResumeRequest | None = None) -> TuiAgentApp:
    settings, choice = Settings(db=db), EndpointChoice(None, "offline")
    return TuiAgentApp(
        lambda: build_and_resume(settings, choice, resume),
        model=choice.model,
        endpoint=choice.label,
        early_page=early_page(db, resume) if resume is not None else None,
        clock=lambda: FIXED_NOW,
        cursor_blink=False,
    )


def shown(pilot: Pilot[None]) -> list[str]:
    """The todo list's lines as drawn, none while it is hidden."""
    todo = chat(pilot).tool_panels.todo_list
    return str(todo.render()).splitlines() if todo.display else []


async def test_a_todo_call_shows_the_list_above_the_panels_and_resuming_shows_it_again(tmp_path: Path) -> None:
    db = tmp_path / "history.db"
    app = app_on(db)
    async with app.run_test(size=SIZE) as pilot:
        await chat_ready(pilot)
        await send(pilot, "make a todo list for the release: write the notes, tag the release and publish it")
        await wait_until(pilot, lambda: len(shown(pilot)) == 3, lambda: f"the list, got {shown(pilot)}")
        assert shown(pilot) == ["◐ Write the notes", "☐ Tag the release", "☐ Publish it"]
        panels = chat(pilot).tool_panels
        assert panels.children[0] is panels.todo_list  # above the tool panels

    resumed = app_on(db, ResumeRequest(latest=True))
    async with resumed.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: len(shown(pilot)) == 3, lambda: f"the list restored, got {shown(pilot)}")
        assert "Publish it" in shown(pilot)[2]
