"""A session runs an agent profile: its prompt, tools, temperature and budgets reach the model server; the
agent is stored with the session and runs again on resume; bad agent files are reported and skipped."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.unit.agent.conftest import MakeAgent, collect
from tui_agent import paths
from tui_agent.agent.events import TurnEndReason, TurnFinished
from tui_agent.agents.profiles import load_catalog
from tui_agent.offline.server import BackgroundServer

SHIPPED = load_catalog([paths.shipped_dir("agents")], []).agents


def last_request(server: BackgroundServer) -> dict[str, Any]:
    body = server.requests[-1].body
    assert body is not None
    return body


def offered(body: dict[str, Any]) -> set[str]:
    return {tool["function"]["name"] for tool in body.get("tools", [])}


async def ask(built: Any, prompt: str) -> None:
    events = await collect(built.agent.send(prompt))
    assert isinstance(events[-1], TurnFinished) and events[-1].reason is TurnEndReason.DONE, events[-1]


async def test_a_new_session_runs_the_default_agent_and_stores_it(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    built = await make_agent(offline_server.base_url)
    await ask(built, "hello")
    body = last_request(offline_server)
    assert body["messages"][0] == {"role": "system", "content": SHIPPED["assistant"].system_prompt}
    assert "temperature" not in body  # neither the agent nor the config sets one
    assert built.agent.agent == "assistant"
    assert built.agent.session is not None and built.agent.session.agent == "assistant"
    stored = await built.agent.store.get_session(built.agent.session.id)
    assert stored is not None and stored.agent == "assistant"


async def test_a_system_prompt_in_the_config_still_wins_over_the_default_agents(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    built = await make_agent(offline_server.base_url, system_prompt="Answer like a pirate.", temperature=0.7)
    await ask(built, "hello")
    body = last_request(offline_server)
    assert body["messages"][0] == {"role": "system", "content": "Answer like a pirate."}
    assert body["temperature"] == 0.7


async def test_an_agent_named_in_the_settings_runs_with_its_prompt_tools_and_temperature(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    built = await make_agent(offline_server.base_url, agent="coder", system_prompt="Ignored for a named agent.")
    await ask(built, "hello")
    body = last_request(offline_server)
    coder = SHIPPED["coder"]
    assert body["messages"][0]["content"] == coder.system_prompt
    assert body["temperature"] == coder.temperature
    assert offered(body) == set(coder.tools)
    assert built.agent.budget.max_tool_rounds == 10  # the coder sets no budget: the config's


async def test_switching_agent_applies_to_the_next_turn_is_stored_and_runs_again_on_resume(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    built = await make_agent(offline_server.base_url)
    await ask(built, "hello")
    await built.agent.switch_agent("researcher")
    await ask(built, "and now?")
    researcher = SHIPPED["researcher"]
    body = last_request(offline_server)
    assert body["messages"][0]["content"] == researcher.system_prompt
    assert offered(body) <= set(researcher.tools) and "run_shell" not in offered(body)
    assert built.agent.budget.max_tool_rounds == researcher.max_tool_rounds
    session_id = built.agent.current_session_id
    assert session_id is not None

    later = await make_agent(offline_server.base_url)  # a new run on the same history file
    assert later.agent.agent == "assistant"
    await later.agent.resume(session_id)
    assert later.agent.agent == "researcher"
    await ask(later, "once more")
    body = last_request(offline_server)
    assert body["messages"][0]["content"] == researcher.system_prompt and "run_shell" not in offered(body)


async def test_an_edited_system_prompt_is_sent_from_the_next_turn_and_stored(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    built = await make_agent(offline_server.base_url)
    await ask(built, "hello")
    await built.agent.set_system_prompt("Only ever answer in haiku.")
    await ask(built, "again")
    assert last_request(offline_server)["messages"][0]["content"] == "Only ever answer in haiku."
    assert built.agent.session_system_prompt == "Only ever answer in haiku."
    session_id = built.agent.current_session_id
    assert session_id is not None
    stored = await built.agent.store.get_session(session_id)
    assert stored is not None and (stored.system_prompt, stored.agent) == ("Only ever answer in haiku.", "assistant")


async def test_a_bad_agent_file_is_reported_by_its_path_and_the_others_still_run(make_agent: MakeAgent) -> None:
    folder = paths.config_dir() / "agents"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "broken.toml").write_text('name = "broken"\ntools = "read_file"\n', encoding="utf-8")
    (folder / "helper.toml").write_text('description = "Mine."\nsystem_prompt = "Help."\n', encoding="utf-8")

    built = await make_agent(agent="nobody")

    problems = [notice for notice in built.notices if notice.startswith("Agent file problem: ")]
    assert len(problems) == 1 and str(folder / "broken.toml") in problems[0]
    assert any("There is no agent 'nobody'" in notice for notice in built.notices)
    assert built.agent.agent == "assistant"  # an unknown name in the config: the default agent runs
    assert "helper" in [profile.name for profile in built.agent.list_agents()]
    assert "broken" not in [profile.name for profile in built.agent.list_agents()]


async def test_a_session_whose_agent_is_gone_goes_on_with_the_current_one_and_says_so(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    folder = paths.config_dir() / "agents"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "helper.toml").write_text('system_prompt = "Help."\n', encoding="utf-8")
    built = await make_agent(offline_server.base_url, agent="helper")
    await ask(built, "hello")
    session_id = built.agent.current_session_id
    assert session_id is not None
    (folder / "helper.toml").unlink()

    later = await make_agent(offline_server.base_url)
    notices: list[str] = []
    later.agent.watch_notices(notices.append)
    await later.agent.resume(session_id)

    assert later.agent.agent == "assistant"
    assert notices == [
        "This session ran the agent 'helper', which is gone (see `tui-agent agents`); it goes on as assistant."
    ]
    await ask(later, "still there?")
    assert last_request(offline_server)["messages"][0]["content"] == "Help."  # the session's own stored prompt


async def test_an_agent_on_another_endpoint_talks_to_it_with_its_own_model(
    make_agent: MakeAgent, offline_server: BackgroundServer
) -> None:
    other = BackgroundServer({"strict": True})
    other.start()
    try:
        folder = paths.config_dir() / "agents"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "local.toml").write_text(
            f'base_url = "{other.base_url}"\nmodel = "tiny"\nsystem_prompt = "Be brief."\n', encoding="utf-8"
        )
        built = await make_agent(offline_server.base_url)
        await built.agent.switch_agent("local")
        await ask(built, "hello")
        assert built.agent.endpoint == "127.0.0.1" and built.agent.model == "tiny"
        body = last_request(other)
        assert body["model"] == "tiny" and body["messages"][0]["content"] == "Be brief."
        await built.agent.switch_agent("assistant")
        await ask(built, "back")
        assert last_request(offline_server)["model"] == "offline"
    finally:
        other.stop()


async def test_memory_files_reach_every_agent_but_one_that_opts_out_and_are_never_stored(
    make_agent: MakeAgent, offline_server: BackgroundServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (project / "AGENTS.md").write_text("Run the tests with `make check`. " * 40)
    agents = paths.config_dir() / "agents"
    agents.mkdir(parents=True, exist_ok=True)
    (agents / "forgetful.toml").write_text('name = "forgetful"\nsystem_prompt = "Start afresh."\nmemory = false\n')
    monkeypatch.chdir(project)

    built = await make_agent(offline_server.base_url)
    await ask(built, "hello")
    system = last_request(offline_server)["messages"][0]["content"]
    assert system.startswith(SHIPPED["assistant"].system_prompt or "")
    assert f'<memory-file path="{project / "AGENTS.md"}">\nRun the tests' in system
    with_files = built.agent.meter.context_tokens  # the gauge counts them
    assert built.agent.session is not None and built.agent.session.system_prompt == SHIPPED["assistant"].system_prompt

    await built.agent.switch_agent("forgetful")
    await ask(built, "and now?")
    assert last_request(offline_server)["messages"][0]["content"] == "Start afresh."

    plain = await make_agent(offline_server.base_url, memory={"enabled": False})
    await ask(plain, "hello")
    assert "<memory-files>" not in last_request(offline_server)["messages"][0]["content"]
    assert with_files > plain.agent.meter.context_tokens + 200
