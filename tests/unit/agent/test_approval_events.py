"""Approval travels in the turn's stream: `ApprovalRequested` carries a future, and ending the turn (or the
call's node) first cancels that future, so whoever asks the person can take the question away.

Real stack: the offline model over HTTP, the real agent and commander, a real SQLite file.
"""

from __future__ import annotations

from pathlib import Path

from tests.unit.agent.conftest import MakeAgent
from tui_agent.agent.events import AgentEvent, ApprovalRequested, ToolCallUpdated, TurnEndReason, TurnFinished
from tui_agent.agent.turn_jobs import tool_node_id
from tui_agent.offline.server import BackgroundServer
from tui_agent.status import ToolStatus

PLUGINS = Path(__file__).parent / "plugins"
CAREFUL = {
    "replies": [{"tool_calls": [{"name": "careful_echo", "arguments": {"text": "hi"}}]}, {"text": "It was not run."}]
}


async def run_and_withdraw(make_agent: MakeAgent, *, node_only: bool) -> tuple[list[AgentEvent], ApprovalRequested]:
    """Run the turn; when the question comes, cancel the call's node (`node_only`) or the whole turn."""
    server = BackgroundServer(CAREFUL)
    server.start()
    events: list[AgentEvent] = []
    asked: list[ApprovalRequested] = []
    try:
        built = await make_agent(server.base_url, plugin_dirs=[PLUGINS])
        async for event in built.agent.send("echo carefully"):
            events.append(event)
            if isinstance(event, ApprovalRequested):
                asked.append(event)
                assert not event.answer.done()
                if node_only:
                    assert built.agent.cancel_node(tool_node_id(event.call))
                else:
                    built.agent.cancel()
    finally:
        server.stop()
    (request,) = asked
    return events, request


async def test_cancelling_the_turn_while_it_asks_cancels_the_question(make_agent: MakeAgent) -> None:
    events, request = await run_and_withdraw(make_agent, node_only=False)
    assert request.answer.cancelled()
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.reason is TurnEndReason.CANCELLED
    final = [e.call for e in events if isinstance(e, ToolCallUpdated)][-1]
    assert final.status is ToolStatus.INTERRUPTED


async def test_cancelling_the_asking_calls_node_cancels_the_question_and_the_turn_goes_on(
    make_agent: MakeAgent,
) -> None:
    events, request = await run_and_withdraw(make_agent, node_only=True)
    assert request.answer.cancelled()
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.reason is TurnEndReason.DONE
    final = [e.call for e in events if isinstance(e, ToolCallUpdated)][-1]
    assert final.status is ToolStatus.INTERRUPTED and final.call_id == request.call.call_id
