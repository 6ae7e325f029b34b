"""`serve`'s agents and teams as models, through the real openai SDK: listed and looked up beside the offline
model, run inside tui-agent with their tools (those that ask denied unless allowed), streamed or whole, stored
in history (a conversation the client goes on with resumes its session); and the server's safety: its key read
from the variable `--api-key-env` names, no CORS unless an origin is allowed."""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import openai
import pytest

from tui_agent.agent.served_runs import ServedAgents
from tui_agent.config import Settings
from tui_agent.offline import cli as offline_cli
from tui_agent.offline.cors import Cors
from tui_agent.offline.server import OfflineServer
from tui_agent.serve_cli import add_parser

AGENTS = ["coder", "researcher"]
TEAMS = ["writer-critic"]


async def started(tmp_path: Path, allow: list[str] = (), **options: Any) -> OfflineServer:  # type: ignore[assignment]
    settings = Settings(offline=True, db=tmp_path / "history.db")
    server = OfflineServer(served_models=ServedAgents(settings, AGENTS, TEAMS, allow), **options)
    await server.start()
    return server


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[OfflineServer]:
    served = await started(tmp_path)
    yield served
    await served.stop()


def ask(text: str) -> Any:
    return [{"role": "user", "content": text}]


async def fetch(url: str, method: str, headers: dict[str, str]) -> tuple[int, dict[str, str]]:
    """The status and headers (lower-case names) of a bare request, as a browser would send it."""

    def go() -> tuple[int, dict[str, str]]:
        request = urllib.request.Request(url, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                return answer.status, {k.lower(): v for k, v in answer.headers.items()}
        except urllib.error.HTTPError as error:
            return error.code, {k.lower(): v for k, v in error.headers.items()}

    return await asyncio.to_thread(go)


def stored(db: Path) -> list[tuple[str, str, int]]:
    """Each stored session: its id, agent and how many prompts it holds."""
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT s.id, coalesce(s.agent, ''), (SELECT count(*) FROM messages m WHERE m.session_id = s.id AND"
            " m.role = 'user') FROM sessions s WHERE s.parent_session_id IS NULL ORDER BY s.created_at"
        ).fetchall()
    return [(str(a), str(b), int(c)) for a, b, c in rows]


async def test_agents_and_teams_are_models_that_run_with_their_tools(server: OfflineServer, tmp_path: Path) -> None:
    client = openai.AsyncOpenAI(base_url=server.base_url, api_key="k", max_retries=0)
    listed = [model.id async for model in client.models.list()]
    assert listed == ["offline", "agent:coder", "agent:researcher", "team:writer-critic"]
    assert (await client.models.retrieve("agent:researcher")).owned_by == "tui-agent"
    with pytest.raises(openai.NotFoundError):
        await client.models.retrieve("agent:nobody")
    with pytest.raises(openai.NotFoundError) as unknown:
        await client.chat.completions.create(model="agent:nobody", messages=ask("hi"))
    assert unknown.value.code == "model_not_found" and "agent:researcher" in unknown.value.message

    # whole: the agent used its calculator; the run's session is named in a header
    raw = await client.chat.completions.with_raw_response.create(model="agent:researcher", messages=ask("what is 2+2?"))
    reply = raw.parse()
    first = raw.headers["x-tui-agent-session"]
    assert "`calculate` returned **4**" in (reply.choices[0].message.content or "")
    assert reply.choices[0].finish_reason == "stop" and reply.usage is not None and reply.usage.prompt_tokens > 0

    # the client goes on with the conversation: the same session, resumed
    answered = reply.choices[0].message.content or ""
    again = [*ask("what is 2+2?"), {"role": "assistant", "content": answered}, *ask("and 3*3?")]
    raw = await client.chat.completions.with_raw_response.create(model="agent:researcher", messages=again)
    assert raw.headers["x-tui-agent-session"] == first and "**9**" in (raw.parse().choices[0].message.content or "")

    # streamed: a tool that asks is denied (nobody to ask); the tool line comes as reasoning
    stream = await client.chat.completions.create(model="agent:coder", messages=ask("run `echo hi`"), stream=True)
    content, reasoning = "", ""
    async for chunk in stream:
        delta: Any = chunk.choices[0].delta if chunk.choices else None
        content += (delta and delta.content) or ""
        reasoning += (delta and getattr(delta, "reasoning_content", None)) or ""
    assert "I wasn't allowed to run `echo hi`" in content and "[tool] run_shell" in reasoning and "denied" in reasoning

    # a team: each member under its name, then why it stopped
    team = await client.chat.completions.create(model="team:writer-critic", messages=ask("write a post about rain"))
    said = team.choices[0].message.content or ""
    assert said.startswith("**writer**") and "**critic**" in said and "[stopped] critic said APPROVED" in said

    with pytest.raises(openai.BadRequestError):  # nothing to answer
        await client.chat.completions.create(model="agent:coder", messages=[{"role": "system", "content": "be brief"}])

    sessions = stored(tmp_path / "history.db")
    assert [(agent, prompts) for _, agent, prompts in sessions] == [
        ("researcher", 2),
        ("coder", 1),
        ("team:writer-critic", 1),
    ]
    assert sessions[0][0] == first


async def test_a_tool_serve_allows_runs_and_a_new_conversation_carries_what_came_before(tmp_path: Path) -> None:
    server = await started(tmp_path, allow=["run_shell"])
    try:
        client = openai.AsyncOpenAI(base_url=server.base_url, api_key="k", max_retries=0)
        reply = await client.chat.completions.create(model="agent:coder", messages=ask("run `echo served-hi`"))
        assert "served-hi" in (reply.choices[0].message.content or "")
        earlier = [
            {"role": "system", "content": "Answer in French."},
            *ask("hello"),
            {"role": "assistant", "content": "a reply this server never gave"},
            *ask("what now?"),
        ]
        await client.chat.completions.create(model="agent:researcher", messages=earlier)
        with sqlite3.connect(tmp_path / "history.db") as conn:
            (prompt,) = conn.execute(
                "SELECT m.content FROM messages m JOIN sessions s ON s.id = m.session_id"
                " WHERE s.agent = 'researcher' AND m.role = 'user'"
            ).fetchone()
        assert "Answer in French." in prompt and "[assistant] a reply this server never gave" in prompt
        assert prompt.endswith("what now?")
    finally:
        await server.stop()


async def test_no_cors_unless_an_origin_is_allowed(server: OfflineServer, tmp_path: Path) -> None:
    preflight = {"Origin": "https://app.example", "Access-Control-Request-Method": "POST"}
    page = {"Origin": "https://app.example"}
    assert (await fetch(f"{server.base_url}/chat/completions", "OPTIONS", preflight))[0] == 404
    assert "access-control-allow-origin" not in (await fetch(f"{server.base_url}/models", "GET", page))[1]
    allowing = await started(tmp_path, cors=Cors(frozenset({"https://app.example"})))
    try:
        status, headers = await fetch(f"{allowing.base_url}/chat/completions", "OPTIONS", preflight)
        assert status == 204 and headers["access-control-allow-origin"] == "https://app.example"
        assert "POST" in headers["access-control-allow-methods"]
        status, headers = await fetch(f"{allowing.base_url}/models", "GET", page)
        assert status == 200 and headers["access-control-allow-origin"] == "https://app.example"
        other = await fetch(f"{allowing.base_url}/models", "GET", {"Origin": "https://evil.example"})
        assert "access-control-allow-origin" not in other[1]
    finally:
        await allowing.stop()


def test_serve_reads_its_key_from_the_variable_named() -> None:
    parser = argparse.ArgumentParser()
    add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["serve", "--api-key-env", "MY_KEY", "--allow", "run_shell", "--cors-origin", "*"])
    assert (args.serve_allow, args.cors_origin) == (["run_shell"], ["*"])
    assert offline_cli.chosen_key(args, {"MY_KEY": "s3cret", "TUI_AGENT_SERVE_KEY": "other"}) == "s3cret"
    with pytest.raises(ValueError, match="MY_KEY"):
        offline_cli.chosen_key(args, {})
    assert offline_cli.run(args) == 2  # refused before listening: the variable is not set here


async def test_the_key_is_required_from_every_client(tmp_path: Path) -> None:
    server = await started(tmp_path, api_key="s3cret")
    try:
        with pytest.raises(openai.AuthenticationError):
            await openai.AsyncOpenAI(base_url=server.base_url, api_key="wrong", max_retries=0).models.list()
        keyed = openai.AsyncOpenAI(base_url=server.base_url, api_key="s3cret", max_retries=0)
        assert "agent:coder" in [model.id async for model in keyed.models.list()]
    finally:
        await server.stop()
