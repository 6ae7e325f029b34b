"""External agents: a profile with `acp = [...]` answers as a sub-agent or a team member over the Agent Client
Protocol, its process a real one (the SDK's own example agent, and a scripted agent on the SDK).

Real stack: the offline model over HTTP asks (`ask the helper ...`), the real agent and commander, a real
SQLite file; the external agent's message chunks, thoughts, tool calls, permission requests and usage come back
as the turn's own events, are stored in the sub-agent's session, and Esc sends it ACP's cancel.
"""

from __future__ import annotations

import asyncio
import importlib.util
import io
import sys
from pathlib import Path

import pytest
from acp import start_tool_call, tool_diff_content, update_tool_call
from acp.schema import PermissionOption
from pydantic import ValidationError

from tests.unit.agent.conftest import MakeAgent, collect
from tests.unit.agent.test_subagents import calls_of, inner, write_agents
from tui_agent.acp_client.values import call_value, option_for
from tui_agent.agent.events import (
    AgentEvent,
    ApprovalRequested,
    AssistantMessageStarted,
    AssistantPartDelta,
    AssistantTextDelta,
    SubAgentEvent,
    TeamStopped,
    TurnEndReason,
    TurnFinished,
    UsageUpdated,
)
from tui_agent.agent.external_turn import prompt_for
from tui_agent.agent.headless import answer_unattended
from tui_agent.agent.team import TeamError, find_team
from tui_agent.agents.cli import describe, render
from tui_agent.agents.profiles import AgentProfile, Catalog, TeamProfile
from tui_agent.status import ToolStatus
from tui_agent.tool_call import Decision, ToolCall

FIXTURES = Path(__file__).parents[2] / "fixtures"
SDK_EXAMPLE = FIXTURES / "acp_example_agent.py"
SCRIPTED = FIXTURES / "acp_agent.py"


def acp_profile(*command: str | Path, extra: str = "") -> str:
    words = ", ".join(f'"{word}"' for word in (sys.executable, *map(str, command)))
    return f'description = "An external agent."\nacp = [{words}]\n{extra}'


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The working folder the external agents start in (and write to)."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.txt").write_text("one\ntwo\nthree\n")
    monkeypatch.chdir(work)
    return work


async def test_the_sdks_example_agent_answers_as_a_sub_agent_and_its_run_is_a_child_session(
    make_agent: MakeAgent, isolated_home: Path, folder: Path
) -> None:
    write_agents(isolated_home, {"assistant": 'delegates = ["echo"]', "echo": acp_profile(SDK_EXAMPLE)})
    built = await make_agent()
    agent = built.agent
    events = await collect(agent.send("ask the echo to say hello back"))

    assert isinstance(events[-1], TurnFinished) and events[-1].reason is TurnEndReason.DONE, events[-1]
    asked = calls_of(events)["ask_echo"]
    assert asked.status is ToolStatus.DONE and asked.result == "Client sent:Say hello back"
    streamed = "".join(e.text for e in inner(events, "echo") if isinstance(e, AssistantTextDelta))
    assert streamed == "Client sent:Say hello back"  # its message chunks, streamed as the sub-agent's text
    assert agent.session is not None
    ((child_id, name),) = await agent.store.sub_sessions(agent.session.id)
    stored = await agent.store.load_tail(child_id, 10)
    assert name == "echo" and [m.content for m in stored] == ["Say hello back", "Client sent:Say hello back"]
    child = await agent.store.get_session(child_id)
    assert child is not None and child.model == stored[-1].model == f"acp:{Path(sys.executable).name}"
    assert child.system_prompt is None  # its profile sets none: not the config's default for models


async def test_an_external_agents_thoughts_tool_calls_approval_and_usage_come_back_as_ours(
    make_agent: MakeAgent, isolated_home: Path, folder: Path
) -> None:
    write_agents(isolated_home, {"assistant": 'delegates = ["helper"]', "helper": acp_profile(SCRIPTED)})
    built = await make_agent(tools={"output_cap": 256})
    agent = built.agent
    asked: list[ApprovalRequested] = []
    events: list[AgentEvent] = []
    async for event in agent.send("ask the helper to read the notes"):
        events.append(event)
        if isinstance(event, ApprovalRequested):  # not the caller's to ask: deny, so the test fails, not hangs
            event.answer.set_result(Decision.DENY)
        if isinstance(event, SubAgentEvent) and isinstance(event.event, ApprovalRequested):
            asked.append(event.event)  # the approval dialog's question, as a local tool's call asks it
            event.event.answer.set_result(Decision.ALLOW_ONCE)

    assert isinstance(events[-1], TurnFinished) and events[-1].reason is TurnEndReason.DONE, events[-1]
    helper = inner(events, "helper")
    thought = "".join(e.text for e in helper if isinstance(e, AssistantPartDelta) and e.kind == "reasoning")
    assert thought == "Reading the notes first."
    calls = calls_of(helper)
    read, write = calls["Read notes.txt"], calls["Write out.txt"]
    assert read.status is ToolStatus.DONE and read.arguments == {"path": "notes.txt"}
    capped = "three lines" + "." * 245 + "\n[truncated 755 bytes]"  # as our own tools' output is
    assert read.result == capped
    assert [question.call.name for question in asked] == ["Write out.txt"]
    assert all(question.external for question in asked)  # -p's hint must not name `--allow` for it
    assert write.status is ToolStatus.DONE and (folder / "out.txt").read_text() == "hello\n"
    assert [(c.path, c.before, c.after) for c in write.file_changes] == [("out.txt", None, b"hello\n")]
    assert calls_of(events)["ask_helper"].result == "I read the notes and wrote out.txt."
    theirs = [e for e in helper if isinstance(e, UsageUpdated)]
    assert theirs and theirs[-1].completion_tokens == 10  # its reported tokens, rolled up into the caller's
    assert agent.session is not None and agent.session_usage[1] >= 10

    ((child_id, _),) = await agent.store.sub_sessions(agent.session.id)
    task, reply = await agent.store.load_tail(child_id, 10)
    assert task.content == "Read the notes" and reply.content == "I read the notes and wrote out.txt."
    assert [(c.name, c.status, c.result) for c in reply.tool_calls] == [
        ("Read notes.txt", ToolStatus.DONE, capped),
        ("Write out.txt", ToolStatus.DONE, f"edited {folder / 'out.txt'}"),
    ]


async def test_cancelling_the_turn_sends_the_external_agent_acps_cancel(
    make_agent: MakeAgent, isolated_home: Path, folder: Path
) -> None:
    write_agents(isolated_home, {"assistant": 'delegates = ["helper"]', "helper": acp_profile(SCRIPTED)})
    built = await make_agent()
    agent = built.agent
    events: list[AgentEvent] = []
    async for event in agent.send("ask the helper to wait for me"):
        events.append(event)
        if isinstance(event, SubAgentEvent) and isinstance(event.event, AssistantTextDelta):
            agent.cancel()  # Esc, once the agent is working

    assert isinstance(events[-1], TurnFinished) and events[-1].reason is TurnEndReason.CANCELLED
    assert calls_of(events)["ask_helper"].status is ToolStatus.INTERRUPTED
    ends = [e.reason for e in inner(events, "helper") if isinstance(e, TurnFinished)]
    assert ends == [TurnEndReason.CANCELLED]
    for _ in range(500):  # the agent writes down the cancel it received (bounded: fails, never hangs)
        if (folder / "cancelled.txt").exists():
            break
        await asyncio.sleep(0.01)
    assert (folder / "cancelled.txt").read_text() == "s1"


async def test_the_sessions_own_agent_can_be_external_and_keeps_its_session_from_turn_to_turn(
    make_agent: MakeAgent, isolated_home: Path, folder: Path
) -> None:
    write_agents(isolated_home, {"helper": acp_profile(SCRIPTED)})
    built = await make_agent()
    agent = built.agent
    await agent.switch_agent("helper")
    first = await collect(agent.send("hello"))
    second = await collect(agent.send("and again"))

    for events in (first, second):
        assert isinstance(events[-1], TurnFinished) and events[-1].reason is TurnEndReason.DONE, events[-1]
    said = ["".join(e.text for e in events if isinstance(e, AssistantTextDelta)) for events in (first, second)]
    assert said == ["APPROVED: hello", "APPROVED: and again"]  # the same ACP session: sent only what is new
    assert agent.session is not None
    stored = await agent.store.load_tail(agent.session.id, 10)
    assert [m.content for m in stored] == ["hello", "APPROVED: hello", "and again", "APPROVED: and again"]


async def test_an_external_agent_is_a_team_member_whose_reply_the_team_judges(
    make_agent: MakeAgent, isolated_home: Path, folder: Path
) -> None:
    write_agents(isolated_home, {"reviewer": acp_profile(SCRIPTED, extra='system_prompt = "Review the post."')})
    teams = isolated_home / "config" / "teams"
    teams.mkdir(parents=True)
    body = 'name = "review"\nmembers = ["writer", "reviewer"]\ndone_when = "APPROVED"\n'
    (teams / "review.toml").write_text(body)
    built = await make_agent()
    agent = built.agent
    events = await collect(agent.run_team("review", "Write a post about tea"))

    assert isinstance(events[-1], TurnFinished) and events[-1].reason is TurnEndReason.DONE, events[-1]
    assert [e.agent for e in events if isinstance(e, AssistantMessageStarted)] == ["writer", "reviewer"]
    (stop,) = [e for e in events if isinstance(e, TeamStopped)]
    assert (stop.reason, stop.rounds) == ("reviewer said APPROVED", 1)
    assert agent.session is not None
    stored = await agent.store.load_tail(agent.session.id, 10)
    writer, reviewer = stored[-2], stored[-1]
    assert reviewer.agent == "reviewer" and reviewer.content.startswith("APPROVED: Review the post.")
    assert writer.content.strip() and writer.content.strip() in reviewer.content  # it was handed the draft


@pytest.mark.parametrize(
    ("command", "said"),
    [
        (["/nonexistent/agent"], "The helper agent could not be started: /nonexistent/agent: No such file"),
        ([sys.executable, "-c", "import sys; print('boom', file=sys.stderr); sys.exit(3)"], ": boom"),
    ],
)
async def test_an_external_agent_that_cannot_start_fails_its_call_with_why(
    make_agent: MakeAgent, isolated_home: Path, folder: Path, command: list[str], said: str
) -> None:
    words = ", ".join(f'"{word}"' for word in command)
    write_agents(isolated_home, {"assistant": 'delegates = ["helper"]', "helper": f"acp = [{words}]"})
    built = await make_agent()
    events = await collect(built.agent.send("ask the helper to read the notes"))

    assert isinstance(events[-1], TurnFinished) and events[-1].reason is TurnEndReason.DONE
    asked = calls_of(events)["ask_helper"]
    assert asked.status is ToolStatus.FAILED and said in (asked.error or ""), asked.error


@pytest.mark.skipif(
    importlib.util.find_spec("tui_agent.acp") is None, reason="tui_agent.acp (tui-agent acp) is not built"
)
async def test_tui_agent_acp_itself_answers_as_an_external_sub_agent(
    make_agent: MakeAgent, isolated_home: Path, folder: Path
) -> None:
    other = acp_profile("-m", "tui_agent", "acp")  # this very checkout's, as its tests run it
    write_agents(isolated_home, {"assistant": 'delegates = ["other"]', "other": other})
    built = await make_agent()
    events = await collect(built.agent.send("ask the other what the weather is in Paris"))

    assert isinstance(events[-1], TurnFinished) and events[-1].reason is TurnEndReason.DONE, events[-1]
    asked = calls_of(events)["ask_other"]
    assert asked.status is ToolStatus.DONE and "The weather in Paris is" in (asked.result or ""), asked
    weather = calls_of(inner(events, "other"))["get_current_weather(Paris)"]  # its tool call, a panel of ours
    assert weather.status is ToolStatus.DONE and weather.arguments == {"location": "Paris"}
    assert built.agent.session is not None
    ((child_id, _),) = await built.agent.store.sub_sessions(built.agent.session.id)
    (stored,) = (await built.agent.store.load_tail(child_id, 10))[-1].tool_calls
    assert (stored.name, stored.status) == ("get_current_weather(Paris)", ToolStatus.DONE)  # renamed: recorded again


def test_what_an_external_agent_is_sent_first_and_then() -> None:
    view = [
        {"role": "system", "content": "a model's system prompt, never sent"},
        {"role": "user", "content": "Write a post about tea"},
        {"role": "user", "content": "[writer]: Tea is lovely."},
        {"role": "assistant", "content": "Shorter, please."},
        {"role": "user", "content": "[writer]: Tea."},
    ]
    first = prompt_for(view, fresh=True, preface="Review the post.")
    assert first == (
        "Review the post.\n\nWrite a post about tea\n\n[writer]: Tea is lovely.\n\n(You said:)\nShorter, please."
        "\n\n[writer]: Tea."
    )
    assert prompt_for(view, fresh=False, preface="Review the post.") == "[writer]: Tea."  # what came since


def test_an_answer_is_the_agents_option_of_the_closest_kind_and_a_call_is_merged_over_its_updates(
    tmp_path: Path,
) -> None:
    both = [
        PermissionOption(option_id="y", name="Yes", kind="allow_once"),
        PermissionOption(option_id="n", name="No", kind="reject_always"),
    ]
    assert [option_for(d, both) for d in (Decision.ALLOW_ALWAYS, Decision.ALLOW_ONCE, Decision.DENY)] == ["y", "y", "n"]
    assert option_for(Decision.DENY, both[:1]) is None  # nothing says no: the request is answered cancelled

    started = call_value(
        start_tool_call("c1", "Edit a.txt", kind="edit", raw_input={"path": "a.txt"}), None, "m1", tmp_path
    )
    assert (started.name, started.status, started.arguments, started.message_id) == (
        "Edit a.txt",
        ToolStatus.PENDING,
        {"path": "a.txt"},
        "m1",
    )
    inside = tool_diff_content(str(tmp_path / "a.txt"), "new\n", "old\n")
    outside = tool_diff_content("/etc/passwd", "x")
    done = call_value(update_tool_call("c1", status="completed", content=[inside, outside]), started, "m1", tmp_path)
    assert done.name == "Edit a.txt" and done.status is ToolStatus.DONE and done.started_at is not None
    assert [(c.path, c.before, c.after) for c in done.file_changes] == [("a.txt", b"old\n", b"new\n")]  # not /etc
    denied = started.replace(status=ToolStatus.DENIED)
    assert call_value(update_tool_call("c1", status="failed"), denied, "m1", tmp_path).status is ToolStatus.DENIED


def test_a_profile_names_a_program_and_a_router_must_be_a_model() -> None:
    with pytest.raises(ValidationError, match="the first item is the program"):
        AgentProfile(name="x", acp=[" "])
    with pytest.raises(ValidationError):
        AgentProfile(name="x", acp=[])
    external = AgentProfile(name="lead", acp=["gemini", "--experimental-acp"])
    member = AgentProfile(name="writer")
    team = TeamProfile(name="t", members=["writer"], flow="router", router="lead")
    catalog = Catalog(agents={"lead": external, "writer": member}, teams={"t": team})
    with pytest.raises(TeamError, match="router 'lead' is an external agent"):
        find_team(catalog, "t")
    listed = render(describe(catalog))  # `tui-agent agents` says what answers as it, and a program not found
    assert "external agent (ACP): gemini --experimental-acp" in listed and "model: the configured one" in listed
    assert "agent 'lead' starts 'gemini', which is not a program here (not on PATH)" in listed
    here = Catalog(agents={"lead": AgentProfile(name="lead", acp=[sys.executable, str(SCRIPTED)])})
    assert here.problems_of() == []


async def test_a_p_runs_hint_names_allow_only_for_our_own_tools() -> None:
    """`--allow NAME` lets one of our tools run in -p; an external agent's tool is not ours to allow."""
    for external, hint in ((False, "`--allow Write out.txt` lets it run"), (True, "its agent's own settings")):
        answer: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()
        request = ApprovalRequested(ToolCall("c1", "Write out.txt", "{}", {}, "m1"), answer, external=external)
        err = io.StringIO()
        answer_unattended(request, err)
        assert hint in err.getvalue() and answer.result() is Decision.DENY, err.getvalue()
        assert ("--allow" in err.getvalue()) is not external
