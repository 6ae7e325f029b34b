"""Resuming sessions that ran sub-agents or a team, on the real stack (the offline model over HTTP, the real agent
and SQLite): `--continue` shows what the session showed live (its sub-agents' tokens, why its team stopped), and the
sessions screen lists its sub-agents' sessions under it."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import OptionList

from tests.ui.helpers import chat, send, showing, wait_until
from tests.ui.sessions_stack import RealStack, stack_serving
from tui_agent.agent.resume import ResumeRequest
from tui_agent.history.models import Message
from tui_agent.history.team_runs import TeamStop
from tui_agent.status import MessageStatus, Role, ToolStatus
from tui_agent.tool_call import ToolCall
from tui_agent.ui.screens.chat import ChatScreen
from tui_agent.ui.screens.sessions import SessionsScreen
from tui_agent.ui.team_stop import stop_lines as placed_stops
from tui_agent.ui.widgets.messages import AssistantMessage, SystemLine


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[RealStack]:
    yield from stack_serving(tmp_path)  # the default behaviour: delegation and the team play along


def tokens(pilot: Pilot[None]) -> tuple[int, int]:
    bar = chat(pilot).status_bar
    return bar.tokens_in, bar.tokens_out


async def test_a_resumed_session_counts_its_sub_agents_tokens_as_it_did_live(stack: RealStack) -> None:
    app, _ = stack.app()
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "ask the researcher what the weather is in Paris")
        live = tokens(pilot)
    app, built = stack.app(ResumeRequest(latest=True))
    async with app.run_test(size=(120, 40)) as pilot:
        agent = await built.ready()
        assert agent.session_usage == live  # the engine's count
        await wait_until(pilot, lambda: tokens(pilot) == live, lambda: f"{tokens(pilot)} shown, {live} live")


STOPPED = "Team writer-critic stopped after 2 round(s): critic said APPROVED."


async def test_why_the_team_stopped_is_shown_again_on_continue_and_from_the_sessions_screen(stack: RealStack) -> None:
    app, _ = stack.app()
    app.team = "writer-critic"
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "Write a post about tea")
        await wait_until(pilot, lambda: STOPPED in stop_lines(pilot), lambda: f"stop lines {stop_lines(pilot)}")
        assert stop_line_follows_the_team(pilot)
        app.team = None
        await send(pilot, "what is 6 * 7?")  # the session's agent answers: the line stays after the team's reply

    app, built = stack.app(ResumeRequest(latest=True))  # --continue: the page read before the engine
    async with app.run_test(size=(120, 40)) as pilot:
        await built.ready()
        await wait_until(pilot, lambda: STOPPED in stop_lines(pilot), lambda: f"stop lines {stop_lines(pilot)}")
        assert stop_line_follows_the_team(pilot)

    app, _ = stack.app()  # the sessions screen: the engine's page
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: pilot.app.screen.is_active, "chat screen")
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: showing(app, SessionsScreen), "the sessions screen")
        await wait_until(pilot, lambda: bool(app.screen.query_one(OptionList).option_count), "sessions listed")
        await pilot.press("enter")
        await wait_until(pilot, lambda: STOPPED in stop_lines(pilot), lambda: f"stop lines {stop_lines(pilot)}")
        assert stop_line_follows_the_team(pilot)


def stop_lines(pilot: Pilot[None]) -> list[str]:
    screen = pilot.app.screen
    if not isinstance(screen, ChatScreen):
        return []
    return [str(line.render()).removeprefix("ℹ ") for line in screen.chat_log.query(SystemLine)]


def stop_line_follows_the_team(pilot: Pilot[None]) -> bool:
    """The stop line comes right after the critic's APPROVED, before the later prompt."""
    entries = chat(pilot).chat_log.entries
    (at,) = [
        i for i, entry in enumerate(entries) if isinstance(entry, SystemLine) and str(entry.render()).endswith(STOPPED)
    ]
    before = entries[at - 1]
    return isinstance(before, AssistantMessage) and before.shown_text().strip() == "APPROVED"


def reply(
    agent: str | None, text: str = "", calls: list[ToolCall] | None = None, role: Role = Role.ASSISTANT
) -> Message:
    now = datetime.now(UTC)
    message = Message(text or agent or "?", "s", 0, role, text, MessageStatus.COMPLETE, None, None, None, now, now)
    message.tool_calls, message.agent = calls or [], agent
    return message


def test_a_members_tool_rounds_count_as_one_turn_and_the_line_follows_the_newest_member_reply() -> None:
    checked = ToolCall("c1", "get_current_weather", "{}", {}, "m", status=ToolStatus.DONE)
    page = [
        reply(None, "Write about rain", role=Role.USER),
        reply("writer", calls=[checked]),  # looked the weather up, then wrote: one turn
        reply("writer", "## Rain"),
        reply("critic", "One revision"),
        reply("writer", "## Rain, again"),
        reply("critic", "APPROVED"),
        reply(None, "what is 6 * 7?", role=Role.USER),
        reply(None, "42"),
    ]
    approved = TeamStop("APPROVED", "pair", "critic said APPROVED")  # its rounds not stored: counted from the page
    assert placed_stops(page, {"APPROVED": approved}) == {
        5: "Team pair stopped after 2 round(s): critic said APPROVED."
    }
    out_of_rounds = TeamStop("APPROVED", "", "max_rounds (4) reached")
    assert placed_stops(page[2:], {"APPROVED": out_of_rounds}) == {3: "The team stopped: max_rounds (4) reached."}
    assert placed_stops(page[6:], {"APPROVED": approved}) == {}
    stored = TeamStop("APPROVED", "pair", "critic said APPROVED", rounds=3)  # as stored since step 10
    assert placed_stops(page[2:], {"APPROVED": stored}) == {
        3: "Team pair stopped after 3 round(s): critic said APPROVED."
    }


async def test_the_sessions_screen_nests_a_sub_agents_session_under_its_caller_but_not_a_fork(
    stack: RealStack,
) -> None:
    app, built = stack.app()
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "ask the researcher what the weather is in Paris")
        agent = await built.ready()
        caller = agent.current_session_id or ""
        first = (await agent.session_messages(caller))[0]
        fork = await agent.fork_session(caller, first.id)  # it keeps the caller's agent, and its parent
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: showing(app, SessionsScreen), "the sessions screen")
        screen = app.screen
        assert isinstance(screen, SessionsScreen)
        await wait_until(pilot, lambda: len(screen.sessions) == 3, "three sessions listed")
        options = screen.query_one(OptionList)
        rows = [str(options.get_option_at_index(i).prompt).splitlines()[0] for i in range(3)]
        assert list(screen.sessions)[:2] == [fork.id, caller], rows
        assert not rows[0].startswith("    ") and not rows[1].startswith("    ")
        assert rows[2].startswith("    ") and "↳ researcher · " in rows[2], rows
