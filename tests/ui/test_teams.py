"""A team in the app, on the real stack (offline model over HTTP, real agent and SQLite): each member's reply is
labelled with its name and colour, the stop reason is said, and the labels come back on resume."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.pilot import Pilot

from tests.ui.helpers import chat, send, wait_until
from tests.ui.sessions_stack import RealStack, stack_serving
from tui_agent import paths
from tui_agent.agent.resume import ResumeRequest
from tui_agent.ui.team_pause import ASKED, NO_TEAM
from tui_agent.ui.textual_private import notifications
from tui_agent.ui.widgets.messages import AgentLabel, SystemLine, agent_colour


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[RealStack]:
    yield from stack_serving(tmp_path)  # the default behaviour: the writer and the critic play along


def labels(pilot: Pilot[None]) -> list[str]:
    return [label.agent for label in chat(pilot).chat_log.query(AgentLabel)]


async def test_member_labels_show_and_come_back_on_resume(stack: RealStack) -> None:
    app, _ = stack.app()
    app.team = "writer-critic"  # as `--team writer-critic` starts it
    async with app.run_test(size=(120, 40)) as pilot:
        assert any("Your prompts go to team writer-critic" in n.message for n in notifications(app))
        await send(pilot, "Write a post about tea")
        await wait_until(pilot, lambda: len(labels(pilot)) == 4, lambda: f"four labels, got {labels(pilot)}")
        assert labels(pilot) == ["writer", "critic", "writer", "critic"]
        lines = [str(line.render()) for line in chat(pilot).query(SystemLine)]
        assert any("writer-critic stopped after 2 round(s): critic said APPROVED" in line for line in lines), lines
        writer, critic = chat(pilot).chat_log.query(AgentLabel)[:2]
        assert writer.has_class(f"-{agent_colour('writer')}") and critic.has_class(f"-{agent_colour('critic')}")
        assert agent_colour("writer") != agent_colour("critic")
        replies = chat(pilot).chat_log.assistant_messages
        assert replies[-1].shown_text().strip() == "APPROVED"

    app, built = stack.app(ResumeRequest(latest=True))
    async with app.run_test(size=(120, 40)) as pilot:
        await built.ready()
        await wait_until(pilot, lambda: len(labels(pilot)) == 4, lambda: f"labels back, got {labels(pilot)}")
        assert labels(pilot) == ["writer", "critic", "writer", "critic"]


@pytest.fixture
def slow_stack(tmp_path: Path) -> Iterator[RealStack]:
    # The writer's first draft keeps it speaking a moment (the person presses F8 meanwhile); then the default
    # behaviour: the critic asks for one revision, and approves it.
    yield from stack_serving(tmp_path, {"replies": [{"text": "A first draft about tea.", "first_token_delay": 1.5}]})


async def test_f8_pauses_the_team_after_the_member_speaking_and_the_next_prompt_goes_on(slow_stack: RealStack) -> None:
    app, _ = slow_stack.app()
    app.team = "writer-critic"
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("f8")  # no team works yet: said, nothing else
        await wait_until(pilot, lambda: any(NO_TEAM == n.message for n in notifications(app)), "the no-team notice")
        await send(pilot, "Write a post about tea", wait=False)
        await wait_until(
            pilot, lambda: labels(pilot) == ["writer"], lambda: f"the writer speaking, got {labels(pilot)}"
        )
        await pilot.press("f8")
        await wait_until(pilot, lambda: any(ASKED == n.message for n in notifications(app)), "the pause asked")

        def lines() -> list[str]:
            return [str(line.render()) for line in chat(pilot).query(SystemLine)]

        paused = "writer-critic stopped after 1 round(s): paused after writer for your message"
        await wait_until(pilot, lambda: any(paused in line for line in lines()), lambda: f"paused, got {lines()}")
        assert labels(pilot) == ["writer"]  # the critic waits for the person
        await send(pilot, "Make it about green tea")
        done = "critic said APPROVED"
        await wait_until(pilot, lambda: any(done in line for line in lines()), lambda: f"approved, got {lines()}")
        assert labels(pilot) == ["writer", "critic", "writer", "critic"]  # it went on with the critic


def todo(*items: tuple[str, str]) -> dict[str, object]:
    return {"tool_calls": [{"name": "todo", "arguments": {"items": [{"text": t, "status": s} for t, s in items]}}]}


PLANNERS = [
    todo(("Outline", "done"), ("Draft", "in_progress")),
    {"text": "Planned."},
    todo(("Check the facts", "pending")),
    {"text": "Checked."},
]


@pytest.fixture
def planners_stack(tmp_path: Path) -> Iterator[RealStack]:
    for name in ("planner", "checker"):
        (paths.config_dir() / "agents").mkdir(exist_ok=True)
        (paths.config_dir() / "agents" / f"{name}.toml").write_text(
            f'system_prompt = "You {name}."\ntools = ["todo"]\n'
        )
    (paths.config_dir() / "teams").mkdir(exist_ok=True)
    (paths.config_dir() / "teams" / "planners.toml").write_text('members = ["planner", "checker"]\nmax_rounds = 1\n')
    yield from stack_serving(tmp_path, {"replies": PLANNERS})


async def test_each_member_keeps_its_own_todo_list_shown_under_its_name_also_on_resume(
    planners_stack: RealStack,
) -> None:
    expected = ["planner 1/2", "☑ Outline", "◐ Draft", "checker 0/1", "☐ Check the facts"]

    def shown(pilot: Pilot[None]) -> list[str]:
        todo = chat(pilot).tool_panels.todo_list
        return str(todo.render()).splitlines() if todo.display else []

    app, _ = planners_stack.app()
    app.team = "planners"
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "Plan the post")
        await wait_until(pilot, lambda: shown(pilot) == expected, lambda: f"both lists, got {shown(pilot)}")
        assert chat(pilot).tool_panels.todo_list.border_title == "Todo"

    app, built = planners_stack.app(ResumeRequest(latest=True))
    async with app.run_test(size=(120, 40)) as pilot:
        await built.ready()
        await wait_until(pilot, lambda: shown(pilot) == expected, lambda: f"both lists back, got {shown(pilot)}")
