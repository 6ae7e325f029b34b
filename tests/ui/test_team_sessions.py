"""A team session over several runs of the app, on the real stack (the offline model over HTTP, the real agent and
SQLite): `--continue` and the sessions screen go on with the session's team (shown in the status line), a team
whose file is gone is said and the agent answers, every run's stop line comes back after that run, and a member's
continued reply (Ctrl+G) keeps the member's name."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import OptionList

from tests.ui.helpers import chat, send, wait_until
from tests.ui.sessions_stack import RealStack, stack_serving, stored
from tests.unit.history.test_team_runs import database_before_team_runs
from tui_agent import paths
from tui_agent.agent.resume import ResumeRequest
from tui_agent.ui.screens.chat import ChatScreen
from tui_agent.ui.screens.sessions import SessionsScreen
from tui_agent.ui.textual_private import notifications
from tui_agent.ui.widgets.messages import AgentLabel, AssistantMessage, SystemLine

SHIPPED_TEAM = Path(__file__).parents[2] / "teams" / "writer-critic.toml"
STOPPED = "stopped after 2 round(s): critic said APPROVED."


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[RealStack]:
    yield from stack_serving(tmp_path)  # the default behaviour: the writer and the critic play along


def labels(pilot: Pilot[None]) -> list[str]:
    return [label.agent for label in chat(pilot).chat_log.query(AgentLabel)]


def stop_lines(pilot: Pilot[None]) -> list[str]:
    screen = pilot.app.screen
    if not isinstance(screen, ChatScreen):
        return []
    return [str(line.render()) for line in screen.chat_log.query(SystemLine) if STOPPED in str(line.render())]


def told(pilot: Pilot[None]) -> list[str]:
    return [notice.message for notice in notifications(pilot.app)]


def said(pilot: Pilot[None], text: str) -> bool:
    return any(text in notice for notice in told(pilot))


def each_stop_follows_an_approval(pilot: Pilot[None]) -> bool:
    entries = chat(pilot).chat_log.entries
    at = [i for i, entry in enumerate(entries) if isinstance(entry, SystemLine) and STOPPED in str(entry.render())]
    before = [entries[i - 1] for i in at]
    return all(isinstance(entry, AssistantMessage) and entry.shown_text().strip() == "APPROVED" for entry in before)


def a_team_of_my_own(name: str) -> Path:
    """The shipped writer/critic team, as the user's own team `name` (a file they may delete)."""
    folder = paths.config_dir() / "teams"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.toml"
    path.write_text(SHIPPED_TEAM.read_text(encoding="utf-8").replace('"writer-critic"', f'"{name}"'), "utf-8")
    return path


async def test_continue_goes_on_with_the_sessions_team_and_every_runs_stop_comes_back(stack: RealStack) -> None:
    app, _ = stack.app()
    app.team = "writer-critic"  # as `--team writer-critic` starts it
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "Write a post about tea")
        await wait_until(pilot, lambda: len(stop_lines(pilot)) == 1, lambda: f"stop lines {stop_lines(pilot)}")
        assert chat(pilot).status_bar.team == "writer-critic"

    app, built = stack.app(ResumeRequest(latest=True))  # `tui-agent --continue`, no --team
    async with app.run_test(size=(120, 40)) as pilot:
        await built.ready()
        await wait_until(pilot, lambda: chat(pilot).status_bar.team == "writer-critic", "the team in the status line")
        restored = "This session runs team writer-critic: your prompts go to it"
        await wait_until(
            pilot, lambda: said(pilot, restored), lambda: f"told {[n.message for n in notifications(app)]}"
        )
        await send(pilot, "Write a post about coffee")  # the team's flow answers it
        await wait_until(pilot, lambda: len(labels(pilot)) == 8, lambda: f"eight labels, got {labels(pilot)}")
        assert labels(pilot) == ["writer", "critic"] * 4
        await wait_until(pilot, lambda: len(stop_lines(pilot)) == 2, lambda: f"stop lines {stop_lines(pilot)}")

    app, built = stack.app(ResumeRequest(latest=True))  # both runs' stops, each after its own run
    async with app.run_test(size=(120, 40)) as pilot:
        await built.ready()
        await wait_until(pilot, lambda: len(stop_lines(pilot)) == 2, lambda: f"stop lines {stop_lines(pilot)}")
        assert each_stop_follows_an_approval(pilot)

    app, _ = stack.app()  # the sessions screen opens it with its team too
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: pilot.app.screen.is_active, "chat screen")
        assert chat(pilot).status_bar.team == ""
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionsScreen), "the sessions screen")
        await wait_until(pilot, lambda: bool(app.screen.query_one(OptionList).option_count), "sessions listed")
        await pilot.press("enter")
        await wait_until(pilot, lambda: len(stop_lines(pilot)) == 2, lambda: f"stop lines {stop_lines(pilot)}")
        await wait_until(pilot, lambda: chat(pilot).status_bar.team == "writer-critic", "the team in the status line")
        assert app.team == "writer-critic"


async def test_every_team_runs_stop_line_comes_back_after_that_run(stack: RealStack) -> None:
    app, _ = stack.app()
    app.team = "writer-critic"
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "Write a post about tea")
        await send(pilot, "Write a post about coffee")
        await wait_until(pilot, lambda: len(stop_lines(pilot)) == 2, lambda: f"stop lines {stop_lines(pilot)}")

    app, built = stack.app(ResumeRequest(latest=True))
    async with app.run_test(size=(120, 40)) as pilot:
        await built.ready()
        await wait_until(pilot, lambda: len(stop_lines(pilot)) == 2, lambda: f"stop lines {stop_lines(pilot)}")
        assert each_stop_follows_an_approval(pilot)


async def test_a_resumed_session_whose_team_is_gone_says_so_and_goes_on_with_the_agent(stack: RealStack) -> None:
    team_file = a_team_of_my_own("pair")
    app, _ = stack.app()
    app.team = "pair"
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "Write a post about tea")
        await wait_until(pilot, lambda: len(stop_lines(pilot)) == 1, lambda: f"stop lines {stop_lines(pilot)}")
    team_file.unlink()

    app, built = stack.app(ResumeRequest(latest=True))
    async with app.run_test(size=(120, 40)) as pilot:
        await built.ready()
        gone = "This session ran team 'pair', which cannot run now: There is no team 'pair'"
        await wait_until(pilot, lambda: said(pilot, gone), lambda: f"told {told(pilot)}")
        assert chat(pilot).status_bar.team == "" and app.team is None
        await send(pilot, "what is 6 * 7?")  # the session's agent answers: no member label
        replies = chat(pilot).chat_log.assistant_messages
        await wait_until(pilot, lambda: "42" in replies[-1].shown_text(), "the agent's answer")
        assert labels(pilot) == ["writer", "critic", "writer", "critic"]


async def test_an_unknown_team_to_start_with_is_said_and_the_agent_answers(stack: RealStack) -> None:
    app, _ = stack.app()
    app.team = "nobody"  # as `--team nobody` starts it
    async with app.run_test(size=(120, 40)) as pilot:
        wrong = "The team was not changed: There is no team 'nobody' (teams: writer-critic"
        await wait_until(pilot, lambda: said(pilot, wrong), lambda: f"told {told(pilot)}")
        await wait_until(pilot, lambda: app.team is None and chat(pilot).status_bar.team == "", "no team")
        await send(pilot, "what is 6 * 7?")
        await wait_until(pilot, lambda: "42" in chat(pilot).chat_log.assistant_messages[-1].shown_text(), "42")
        assert labels(pilot) == []


async def test_a_members_continued_reply_keeps_its_name(stack: RealStack) -> None:
    app, _ = stack.app()
    app.team = "writer-critic"
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "Write a post about tea")
        await wait_until(pilot, lambda: len(stop_lines(pilot)) == 1, lambda: f"stop lines {stop_lines(pilot)}")
        screen = chat(pilot)
        before = screen.chat_log.assistant_messages[-1].message_id
        await pilot.press("ctrl+g")  # go on with the critic's reply
        await wait_until(
            pilot,
            lambda: screen.chat_log.assistant_messages[-1].message_id != before and screen.idle,
            "the continued reply",
        )
        assert labels(pilot) == ["writer", "critic", "writer", "critic"]  # under the critic's label still
    _, messages = await stored(stack.db)
    assert [message.agent for message in messages] == [None, "writer", "critic", "writer", "critic"]
    assert messages[-1].id != before and messages[-1].content.startswith("APPROVED")

    app, built = stack.app(ResumeRequest(latest=True))
    async with app.run_test(size=(120, 40)) as pilot:
        await built.ready()
        await wait_until(pilot, lambda: len(labels(pilot)) == 4, lambda: f"labels back, got {labels(pilot)}")
        assert labels(pilot) == ["writer", "critic", "writer", "critic"]
        await wait_until(pilot, lambda: len(stop_lines(pilot)) == 1, "the run's stop line, after the continued reply")
        entries = chat(pilot).chat_log.entries
        (line,) = [entry for entry in entries if isinstance(entry, SystemLine) and STOPPED in str(entry.render())]
        continued = entries[entries.index(line) - 1]
        assert isinstance(continued, AssistantMessage) and continued.message_id == messages[-1].id


def laid_out(reply: AssistantMessage, text: str) -> bool:
    return reply.shown_text().strip() == text


MIGRATED = "Team writer-critic stopped after 2 round(s): critic said APPROVED."  # its rounds counted from the page


async def test_a_stop_migrated_from_an_older_file_is_shown_after_the_teams_reply_on_resume(tmp_path: Path) -> None:
    for stack in stack_serving(tmp_path):
        database_before_team_runs(stack.db)
        app, built = stack.app(ResumeRequest(session_id="s1"))
        async with app.run_test(size=(120, 40)) as pilot:
            await built.ready()

            def lines() -> list[SystemLine]:
                return [entry for entry in chat(pilot).chat_log.query(SystemLine) if MIGRATED in str(entry.render())]

            await wait_until(pilot, lambda: len(lines()) == 1, "the stop line")
            entries = chat(pilot).chat_log.entries
            before = entries[entries.index(lines()[0]) - 1]
            assert isinstance(before, AssistantMessage)
            # drawn first before the log's layout gave it its width (a letter a line): wait for the laid-out text
            await wait_until(pilot, partial(laid_out, before, "APPROVED"), before.shown_text)
