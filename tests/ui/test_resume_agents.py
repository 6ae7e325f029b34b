"""Resuming sessions that ran sub-agents or a team, on the real stack (the offline model over HTTP, the real agent
and SQLite): `--continue` shows what the session showed live, its sub-agents' tokens and why its team stopped."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.pilot import Pilot

from tests.fixtures.offline import strict_scenario
from tests.ui.helpers import chat, send, wait_until
from tests.ui.sessions_stack import RealStack
from tui_agent.agent.resume import ResumeRequest
from tui_agent.offline.server import BackgroundServer


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[RealStack]:
    server = BackgroundServer(strict_scenario())  # the default behaviour: delegation and the team play along
    server.start()
    try:
        yield RealStack(tmp_path / "history.db", server)
    finally:
        server.stop()


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
