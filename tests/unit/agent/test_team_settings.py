"""A team file's settings on the real stack (the offline model over HTTP, real SQLite, the plugin loader): the stop
condition as a case-insensitive match, a regex limited to some members and a plugin hook; a member with a private
memory; and the team pausing for the person (after each round, or when asked) and going on with their prompt."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tests.unit.agent.conftest import MakeAgent, collect
from tests.unit.agent.test_teams import catalog_with, speakers, stopped
from tui_agent.agent.events import AgentEvent, AssistantTextDelta, TurnEndReason, TurnFinished
from tui_agent.agents.profiles import TeamProfile
from tui_agent.offline.server import BackgroundServer
from tui_agent.offline.strict import role_problem

STOP_HOOK = """
from tui_agent.tools import hook


@hook("team_done")
def critic_ships(team, member, reply):
    if member == "critic" and "ship" in reply.lower():
        return f"{member} of {team} wants to ship"
    return None
"""

TEAMS = {
    "nocase": 'members = ["writer", "critic"]\nmax_rounds = 3\n[done_when]\nmatch = "approved"\n',
    "lgtm": 'members = ["writer", "critic"]\nmax_rounds = 3\n[done_when]\nregex = \'^LGTM\\b\'\nby = ["critic"]\n',
    "hooked": 'members = ["writer", "critic"]\nmax_rounds = 3\n[done_when]\nhook = "critic_ships"\n',
    "unhooked": 'members = ["writer", "critic"]\n[done_when]\nhook = "nowhere"\n',
}


def text(words: str) -> dict[str, Any]:
    return {"text": words}


@pytest.mark.parametrize(
    "offline_server",
    [
        {
            "replies": [
                text("A draft about tea."),
                text("Approved, nice work."),  # any case: stops in round 1
                text("LGTM\nis what I hope the critic says."),  # the writer's LGTM does not count (by)
                text("Not yet: say more."),
                text("A better draft."),
                text("LGTM, ship it."),
                text("A draft to ship?"),  # the hook is told every reply; only the critic's may stop
                text("Ship it."),
            ]
        }
    ],
    indirect=True,
)
async def test_a_team_stops_on_a_match_in_any_case_a_regex_of_one_member_or_a_plugin_hook(
    make_agent: MakeAgent, offline_server: BackgroundServer, tmp_path: Path
) -> None:
    plugins = tmp_path / "stop-plugins"
    plugins.mkdir()
    (plugins / "stop.py").write_text(STOP_HOOK)
    built = await make_agent(offline_server.base_url, plugin_dirs=[plugins])
    built.agent.catalog = catalog_with(tmp_path, TEAMS)

    first = stopped(await collect(built.agent.run_team("nocase", "Write about tea")))
    assert (first.reason, first.rounds) == ("critic said approved", 1)
    second = stopped(await collect(built.agent.run_team("lgtm", "Write about tea")))
    assert (second.reason, second.rounds) == ("critic's reply matched '^LGTM\\\\b' (LGTM)", 2)
    third = stopped(await collect(built.agent.run_team("hooked", "Write about tea")))
    assert (third.reason, third.rounds) == ("critic_ships: critic of hooked wants to ship", 1)
    asked = len(offline_server.requests)

    # A hook no plugin provides: said plainly before any member speaks, and the session goes on.
    events = await collect(built.agent.run_team("unhooked", "Write about tea"))
    reason = stopped(events).reason
    assert reason.startswith("team unhooked cannot run: its done_when.hook 'nowhere' is not a plugin function")
    assert isinstance(events[-1], TurnFinished) and events[-1].reason is TurnEndReason.ERROR
    assert len(offline_server.requests) == asked


def test_a_team_file_with_a_bad_regex_or_a_stranger_is_refused_with_the_reason() -> None:
    assert TeamProfile.model_validate({"name": "t", "members": ["a"], "done_when": "DONE"}).done_when.text == "DONE"
    cases: list[tuple[dict[str, Any], str]] = [
        ({"done_when": {"regex": "(unclosed"}}, "not a valid regular expression"),
        ({"done_when": {"match": "ok", "by": ["nobody"]}}, "done_when.by names 'nobody', which is not in the team"),
        ({"private_memory": ["nobody"]}, "private_memory names 'nobody'"),
        ({"human_input": "sometimes"}, "human_input"),
    ]
    for bad, said in cases:
        with pytest.raises(ValueError, match=said):
            TeamProfile.model_validate({"name": "t", "members": ["a"], **bad})


async def test_a_member_with_a_private_memory_sees_only_the_latest_draft(
    make_agent: MakeAgent, offline_server: BackgroundServer, tmp_path: Path
) -> None:
    built = await make_agent(offline_server.base_url)
    team = 'members = ["writer", "critic"]\ndone_when = "APPROVED"\nprivate_memory = ["critic"]\n'
    built.agent.catalog = catalog_with(tmp_path, {"private": team})
    events = await collect(built.agent.run_team("private", "Write a post about tea"))

    assert (stopped(events).reason, speakers(events)) == ("critic said APPROVED", ["writer", "critic"] * 2)
    bodies: list[dict[str, Any]] = [request.body for request in offline_server.requests if request.body]
    assert all(role_problem(body["messages"]) is None for body in bodies)
    critic_second = [str(message["content"]) for message in bodies[3]["messages"]]
    assert critic_second[1] == "Write a post about tea"  # the person's prompt stays
    assert critic_second[2].startswith("One revision")  # its own notes stay
    assert critic_second[3].startswith("[writer] ## Tea, again")  # the draft handed to it now
    assert not any("[writer] ## Tea\n" in content for content in critic_second)  # not the draft before
    writer_second = [str(message["content"]) for message in bodies[2]["messages"]]
    assert any("[critic] One revision" in content for content in writer_second)  # the writer's memory is shared


async def test_a_team_pauses_for_the_person_after_each_round_or_when_asked_and_goes_on_with_their_prompt(
    make_agent: MakeAgent, offline_server: BackgroundServer, tmp_path: Path
) -> None:
    built = await make_agent(offline_server.base_url)
    agent = built.agent
    teams = {
        "rounds": 'members = ["writer", "critic"]\ndone_when = "APPROVED"\nhuman_input = "each_round"\n',
        "pair": 'members = ["writer", "critic"]\ndone_when = "APPROVED"\n',
    }
    agent.catalog = catalog_with(tmp_path, teams)

    first = await collect(agent.run_team("rounds", "Write a post about tea"))
    assert speakers(first) == ["writer", "critic"]
    assert stopped(first).reason == "paused after round 1 for your message; send it and the team goes on"
    assert isinstance(first[-1], TurnFinished) and first[-1].reason is TurnEndReason.DONE
    second = await collect(agent.run_team("rounds", "Keep it short"))
    assert speakers(second) == ["writer", "critic"]
    assert (stopped(second).reason, stopped(second).rounds) == ("critic said APPROVED", 2)  # it went on
    writer = (offline_server.requests[-2].body or {})["messages"]
    assert "Keep it short" in writer[-1]["content"]  # the person's words reached the next speaker

    assert not agent.pause_team()  # no team works now
    events: list[AgentEvent] = []
    async for event in agent.run_team("pair", "Write a post about rain"):
        events.append(event)
        if isinstance(event, AssistantTextDelta) and not any(isinstance(e, AssistantTextDelta) for e in events[:-1]):
            assert agent.pause_team()  # the key: the writer finishes, then the team waits
    assert speakers(events) == ["writer"]
    assert stopped(events).reason == "paused after writer for your message; send it and the team goes on"
    after = await collect(agent.run_team("pair", "Make it about spring rain"))
    assert speakers(after) == ["critic", "writer", "critic"]  # round 1 goes on with the critic
    assert (stopped(after).reason, stopped(after).rounds) == ("critic said APPROVED", 2)

    # Choosing another team (or none) forgets where a paused team would go on: it starts afresh.
    paused = await collect(agent.run_team("rounds", "Write a post about snow"))
    assert stopped(paused).reason.startswith("paused after round 1")
    await agent.use_team(None)
    again = await collect(agent.run_team("rounds", "Write a post about snow"))
    assert (speakers(again), stopped(again).rounds) == (["writer", "critic"], 1)

    # Asked while the team's run is still starting (the person pressed F8 right after sending): it pauses after
    # its first speaker all the same.
    seen: list[AgentEvent] = []

    async def run() -> None:
        async for event in agent.run_team("pair", "Write a post about fog"):
            seen.append(event)

    task = asyncio.create_task(run())
    while not agent.pause_team():
        await asyncio.sleep(0)
    assert seen == []  # asked before the run had begun
    await task
    assert stopped(seen).reason.startswith("paused after writer")
