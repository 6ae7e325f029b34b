"""The todo list and plan mode (real engine, offline model over HTTP, a real SQLite file): the offline model's
`todo` call shows the list above the tool panels, history keeps it with the call and resuming shows it again; in
plan mode the reply's plan is put to the user to edit, and approving it sends the work in the mode chosen."""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import TextArea

from tests.ui.helpers import SIZE, chat, chat_ready, send, wait_until
from tests.ui.sessions_stack import resumed_app
from tui_agent.agent.endpoint import EndpointChoice
from tui_agent.agent.resume import ResumeRequest
from tui_agent.config import Settings
from tui_agent.ui.app import TuiAgentApp
from tui_agent.ui.screens.plan import PlanScreen
from tui_agent.ui.widgets.messages import UserMessage


def app_on(db: Path, resume: ResumeRequest | None = None) -> TuiAgentApp:
    return resumed_app(Settings(db=db), EndpointChoice(None, "offline"), resume)


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


async def test_plan_mode_shows_the_plan_to_edit_and_approving_starts_the_work(tmp_path: Path) -> None:
    app = app_on(tmp_path / "history.db")
    async with app.run_test(size=SIZE) as pilot:
        screen = await chat_ready(pilot)
        await wait_until(pilot, lambda: screen.backend is not None, "the engine connected")
        assert screen.backend is not None
        screen.backend.permissions.switch("plan")
        await send(pilot, "ship it: write the notes, tag the release and publish")
        await wait_until(pilot, lambda: isinstance(app.screen, PlanScreen), "the plan to approve")
        steps = app.screen.query_one(TextArea)
        assert steps.text == "- [ ] Write the notes\n- [ ] Tag the release\n- [ ] Publish"
        steps.load_text("- [ ] Write the notes\n- [ ] Publish")  # the user drops a step
        await pilot.press("ctrl+s")
        backend = screen.backend
        await wait_until(pilot, lambda: backend.permissions.mode == "auto-edit", "the work's mode")

        def prompts() -> list[str]:
            return [message.prompt for message in chat(pilot).query(UserMessage)]

        await wait_until(pilot, lambda: len(prompts()) == 2, "the work sent")
        assert prompts()[1].endswith("Carry it out, step by step:\n\n- [ ] Write the notes\n- [ ] Publish")
        assert "⏵⏵ auto-edit" in str(screen.status_bar.render())
