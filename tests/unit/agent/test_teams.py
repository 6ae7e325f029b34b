"""Teams on the real stack: the offline model over HTTP (strict, so every member's history is checked as
llama.cpp's templates would), a real SQLite file, the shipped writer/critic team and agent files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.unit.agent.conftest import MakeAgent, collect
from tui_agent import paths
from tui_agent.agent.events import (
    AgentEvent,
    ApprovalRequested,
    AssistantMessageStarted,
    AssistantTextDelta,
    TeamStopped,
    ToolCallUpdated,
    TurnEndReason,
    TurnFinished,
)
from tui_agent.agents.profiles import Catalog, load_catalog
from tui_agent.commander.events import NodeCreated
from tui_agent.offline.server import BackgroundServer
from tui_agent.offline.strict import role_problem
from tui_agent.status import MessageStatus, Role, ToolStatus

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
    titles = [event.title for event in tree if event.title]  # the task tree's, in the user's words
    assert titles[:3] == ["team writer-critic", "round 1", "writer"] and "round 2" in titles

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


def catalog_with(tmp_path: Path, teams: dict[str, str], agents: dict[str, str] | None = None) -> Catalog:
    """The shipped agents (and `agents`), and only the `teams` given, as files in `tmp_path`."""
    folders = {"teams": teams, "agents": agents or {}}
    for kind, files in folders.items():
        (tmp_path / kind).mkdir()
        for name, text in files.items():
            (tmp_path / kind / f"{name}.toml").write_text(text)
    catalog = load_catalog([paths.shipped_dir("agents"), tmp_path / "agents"], [tmp_path / "teams"])
    assert not catalog.problems_of(), catalog.problems_of()
    return catalog


async def test_a_team_that_never_reaches_done_when_stops_at_max_rounds(
    make_agent: MakeAgent, offline_server: BackgroundServer, tmp_path: Path
) -> None:
    built = await make_agent(offline_server.base_url)
    built.agent.catalog = catalog_with(
        tmp_path, {"pair": 'members = ["writer", "critic"]\ndone_when = "SHIP IT"\nmax_rounds = 3'}
    )
    events = await collect(built.agent.run_team("pair", "Write about rain"))

    stop = stopped(events)
    assert (stop.reason, stop.rounds) == ("max_rounds (3) reached", 3)
    assert speakers(events) == ["writer", "critic"] * 3
    assert isinstance(events[-1], TurnFinished) and events[-1].reason is TurnEndReason.DONE
    session = await built.agent.store.get_session(built.agent.current_session_id or "")
    assert session is not None and session.stop_reason == "max_rounds (3) reached"


ROUTER = 'name = "router"\nsystem_prompt = "You route the work."\ntools = []\n'


def calls(tool: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": tool, "arguments": arguments}]}


@pytest.mark.parametrize(
    "offline_server",
    [
        {
            "replies": [
                calls("next_speaker", name="writer"),
                {"text": "Rain drums on the roof."},
                calls("next_speaker", name="critic"),
                {"text": "Good enough for me."},
                calls("done", reason="the post is ready"),
            ]
        }
    ],
    indirect=True,
)
async def test_a_router_picks_who_speaks_and_ends_the_team(
    make_agent: MakeAgent, offline_server: BackgroundServer, tmp_path: Path
) -> None:
    built = await make_agent(offline_server.base_url)
    team = 'flow = "router"\nrouter = "router"\nmembers = ["writer", "critic"]\nmax_rounds = 5'
    built.agent.catalog = catalog_with(tmp_path, {"routed": team}, {"router": ROUTER})
    events = await collect(built.agent.run_team("routed", "Write about rain"))

    stop = stopped(events)
    assert (stop.reason, stop.rounds) == ("router called done: the post is ready", 3)
    assert speakers(events) == ["router", "writer", "router", "critic", "router"]
    bodies = [request.body for request in offline_server.requests if request.body]
    assert len(bodies) == 5 and all(role_problem(body["messages"]) is None for body in bodies)
    offered = [sorted(tool["function"]["name"] for tool in body.get("tools") or []) for body in bodies]
    assert offered[0] == ["done", "next_speaker"]  # the router steers, it does not work
    assert offered[1] == ["done"]  # the writer's profile allows no tools: only the team's own
    router_last = bodies[4]["messages"]
    assert "[critic] Good enough for me." in router_last[-1]["content"]
    # The router is told who it leads and what each member does (their profiles' descriptions), as AutoGen's
    # selector is told its participants' roles.
    roster = [line for line in router_last[0]["content"].splitlines() if line.startswith("- ")]
    assert roster == [
        "- writer: Writes a short post on a topic and revises it from the critic's notes.",
        "- critic: Reviews a draft: asks for concrete changes, or says APPROVED when it is ready.",
    ]
    session = await built.agent.store.get_session(built.agent.current_session_id or "")
    assert session is not None and session.agent == "team:routed"


SLOW: dict[str, Any] = {"text": "A slow draft " * 40, "chunk_size": 4, "chunk_delay": 0.02}


@pytest.mark.parametrize("offline_server", [{"replies": [SLOW]}], indirect=True)
async def test_cancelling_a_team_stops_it_with_that_reason_and_the_next_prompt_works(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    agent = (await make_agent(offline_server.base_url)).agent
    events: list[AgentEvent] = []
    async for event in agent.run_team("writer-critic", "Write about snow"):
        events.append(event)
        if isinstance(event, AssistantTextDelta):
            agent.cancel()  # Esc
    assert isinstance(events[-1], TurnFinished) and events[-1].reason is TurnEndReason.CANCELLED
    assert stopped(events).reason == "cancelled"
    stored = await agent.store.load_tail(agent.current_session_id or "", 10)
    assert [(m.agent, m.status) for m in stored[1:]] == [("writer", MessageStatus.INTERRUPTED)]
    assert stored[1].content and SLOW["text"].startswith(stored[1].content)  # what had come is kept
    after = await collect(agent.send("And now?"))  # the team's words go to the session's agent, labelled
    assert isinstance(after[-1], TurnFinished) and after[-1].reason is TurnEndReason.DONE
    last = (offline_server.requests[-1].body or {})["messages"]
    assert role_problem(last) is None
    assert last[-1] == {"role": "user", "content": f"Write about snow\n\n[writer] {stored[1].content}\n\nAnd now?"}


async def test_an_export_names_each_member_and_why_the_team_stopped(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    agent = (await make_agent(offline_server.base_url)).agent
    await collect(agent.run_team("writer-critic", "Write a post about tea"))
    exported = await agent.export_session()
    assert exported is not None
    markdown = exported[1]
    assert "- team:writer-critic stopped: critic said APPROVED" in markdown
    assert [line for line in markdown.splitlines() if line.startswith("## Assistant")] == [
        "## Assistant: writer",
        "## Assistant: critic",
        "## Assistant: writer",
        "## Assistant: critic",
    ]
    session = json.loads((await agent.export_session("json") or ("", "{}"))[1])
    assert session["session"]["stop_reason"] == "critic said APPROVED"
    assert [message["agent"] for message in session["messages"]] == [None, "writer", "critic", "writer", "critic"]


async def test_the_offline_model_routes_a_router_team_until_the_critic_approves(
    make_agent: MakeAgent, offline_server: BackgroundServer, tmp_path: Path
) -> None:
    built = await make_agent(offline_server.base_url)
    team = 'flow = "router"\nrouter = "router"\nmembers = ["writer", "critic"]\nmax_rounds = 6'
    built.agent.catalog = catalog_with(tmp_path, {"routed": team}, {"router": ROUTER})
    events = await collect(built.agent.run_team("routed", "Write about rain"))

    # No done_when: the router reads the critic's APPROVED and ends the team itself.
    assert speakers(events) == ["router", "writer", "router", "critic"] * 2 + ["router"]
    stop = stopped(events)
    assert (stop.reason, stop.rounds) == ("router called done: the work is approved", 5)
    bodies = [request.body for request in offline_server.requests if request.body]
    assert all(role_problem(body["messages"]) is None for body in bodies)


async def test_each_member_speaks_with_its_own_profile_model_and_temperature(
    make_agent: MakeAgent, offline_server: BackgroundServer, tmp_path: Path
) -> None:
    built = await make_agent(offline_server.base_url)
    agents = {
        "poet": 'system_prompt = "You are a writer."\ntools = []\nmodel = "poet-model"\ntemperature = 1.3\n',
        "judge": 'system_prompt = "You are a critic and editor."\ntools = []\ntemperature = 0.1\n',
    }
    team = 'members = ["poet", "judge"]\ndone_when = "APPROVED"\nmax_rounds = 3'
    built.agent.catalog = catalog_with(tmp_path, {"duo": team}, agents)
    await collect(built.agent.run_team("duo", "Write about snow"))

    bodies: list[dict[str, Any]] = [request.body for request in offline_server.requests if request.body]
    assert [(body["model"], body.get("temperature")) for body in bodies[:2]] == [
        ("poet-model", 1.3),
        (built.agent.model, 0.1),
    ]


async def test_a_member_runs_its_tools_under_its_own_profiles_approval(
    make_agent: MakeAgent, offline_server: BackgroundServer, tmp_path: Path
) -> None:
    built = await make_agent(offline_server.base_url)
    forecaster = (
        'system_prompt = "You forecast."\ntools = ["get_current_weather"]\n'
        '[approval]\nget_current_weather = "ask"\n'  # the weather tool itself never asks
    )
    built.agent.catalog = catalog_with(
        tmp_path, {"forecast": 'members = ["forecaster"]\nmax_rounds = 1'}, {"forecaster": forecaster}
    )
    events = await collect(built.agent.run_team("forecast", "What's the weather in Paris?"))

    asked = [event.call.name for event in events if isinstance(event, ApprovalRequested)]
    assert asked == ["get_current_weather"]
    final = [e.call for e in events if isinstance(e, ToolCallUpdated) and e.call.status.is_final]
    assert [(call.name, call.status) for call in final] == [("get_current_weather", ToolStatus.DENIED)]
    offered = {tool["function"]["name"] for tool in (offline_server.requests[0].body or {}).get("tools") or []}
    assert offered == {"done", "get_current_weather"}


def replies(events: list[AgentEvent]) -> list[str]:
    """Each member reply's text, in order."""
    texts: dict[str, str] = {}
    for event in events:
        if isinstance(event, AssistantMessageStarted):
            texts[event.message_id] = event.text
        elif isinstance(event, AssistantTextDelta):
            texts[event.message_id] += event.text
    return list(texts.values())


async def test_the_team_works_on_each_new_prompt_in_a_session_with_earlier_turns(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    agent = (await make_agent(offline_server.base_url)).agent
    await collect(agent.send("what's the weather in Paris and Tokyo?"))  # earlier turns, joined into one input
    for topic in ("Tea", "Rain"):
        events = await collect(agent.run_team("writer-critic", f"Write a post about {topic.lower()}"))
        written = replies(events)
        assert written[0].startswith(f"## {topic}\n") and written[2].startswith(f"## {topic}, again\n"), written
        assert (stopped(events).reason, stopped(events).rounds) == ("critic said APPROVED", 2)
