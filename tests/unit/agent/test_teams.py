"""Teams on the real stack: the offline model over HTTP (strict, so every member's history is checked as
llama.cpp's templates would), a real SQLite file, the shipped writer/critic team and agent files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.unit.agent.conftest import MakeAgent, collect
from tui_agent.agent.events import AgentEvent, AssistantMessageStarted, TeamStopped, TurnEndReason, TurnFinished
from tui_agent.commander.events import NodeCreated
from tui_agent.offline.server import BackgroundServer
from tui_agent.offline.strict import role_problem
from tui_agent.status import Role

TEAM_FILES = Path(__file__).parent / "teams"


def stopped(events: list[AgentEvent]) -> TeamStopped:
    found = [event for event in events if isinstance(event, TeamStopped)]
    assert len(found) == 1, events
    return found[0]


def speakers(events: list[AgentEvent]) -> list[str | None]:
    return [event.agent for event in events if isinstance(event, AssistantMessageStarted)]


async def test_the_shipped_writer_critic_team_ends_approved_in_two_rounds(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    built = await make_agent(offline_server.base_url)
    agent = built.agent
    tree: list[NodeCreated] = []
    agent.subscribe_tree(lambda event: tree.append(event) if isinstance(event, NodeCreated) else None)
    events = await collect(agent.run_team("writer-critic", "Write a post about tea"))

    assert isinstance(events[-1], TurnFinished) and events[-1].reason is TurnEndReason.DONE
    assert sum(isinstance(event, TurnFinished) for event in events) == 1  # members' ends stay inside the team
    assert speakers(events) == ["writer", "critic", "writer", "critic"]
    stop = stopped(events)
    assert (stop.reason, stop.rounds) == ("critic said APPROVED", 2)
    labels = [event.name for event in tree]
    assert labels[:2] == ["team writer-critic", "round 1"] and "round 2" in labels and "round 3" not in labels
    assert labels.count("writer") == 2 and labels.count("critic") == 2

    session = await agent.store.get_session(agent.current_session_id or "")
    assert session is not None and (session.agent, session.stop_reason) == ("team:writer-critic", stop.reason)
    stored = await agent.store.load_tail(session.id, 10)
    assert [(m.role, m.agent) for m in stored] == [(Role.USER, None)] + [
        (Role.ASSISTANT, who) for who in ["writer", "critic", "writer", "critic"]
    ]
    assert stored[-1].content == "APPROVED"
    # Every request was valid for a strict template (the server answers 400 otherwise), and each member
    # received the others' words as labelled user input, the critic with its team prefix before them.
    bodies: list[dict[str, Any]] = [request.body for request in offline_server.requests if request.body]
    assert len(bodies) == 4 and all(role_problem(body["messages"]) is None for body in bodies)
    critic_first = bodies[1]["messages"]
    assert critic_first[0]["role"] == "system" and "editor" in critic_first[0]["content"]
    assert critic_first[-1]["role"] == "user"
    assert critic_first[-1]["content"].startswith("Review this draft.")
    assert "[writer] ## Tea" in critic_first[-1]["content"]
    writer_second = [m["role"] for m in bodies[2]["messages"]]
    assert writer_second == ["system", "user", "assistant", "user"]
    assert bodies[2]["messages"][-1]["content"].startswith("[critic] One revision")
