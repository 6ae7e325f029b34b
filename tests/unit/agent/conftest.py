"""Builds real agents for tests: the offline model over HTTP, a real SQLite file, the shipped plugins."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from tui_agent.agent.endpoint import EndpointChoice
from tui_agent.agent.events import AgentEvent, ApprovalRequested
from tui_agent.agent.services import BuiltAgent, build_agent
from tui_agent.config import Settings
from tui_agent.tool_call import Decision, ToolCall

MakeAgent = Callable[..., Awaitable[BuiltAgent]]


@pytest.fixture
async def make_agent(tmp_path: Path) -> AsyncIterator[MakeAgent]:
    """`await make_agent(base_url=None, **settings)`: an agent on its own database; closed after the test."""
    built: list[BuiltAgent] = []

    async def make(base_url: str | None = None, api_key: str | None = "test-key", **values: Any) -> BuiltAgent:
        settings = Settings(db=tmp_path / "history.db", **values)
        choice = EndpointChoice(base_url, values.get("model") or "offline", api_key if base_url else None)
        agent = await build_agent(settings, choice)
        built.append(agent)
        return agent

    yield make
    for agent in built:
        await agent.close()


async def collect(
    events: AsyncIterator[AgentEvent], decide: Callable[[ToolCall], Decision] = lambda call: Decision.DENY
) -> list[AgentEvent]:
    """Every event of one turn; each approval question is answered by `decide` (deny, as a -p run does)."""
    seen: list[AgentEvent] = []
    async for event in events:
        seen.append(event)
        if isinstance(event, ApprovalRequested):
            event.answer.set_result(decide(event.call))
    return seen
