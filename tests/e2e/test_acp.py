"""`tui-agent acp` as a real process, driven by the ACP SDK's own client over stdio, against the offline model.

One agent process (and one offline model) serves the whole module; each test opens its own sessions in it. The
editor here is `Editor`: it records every `session/update` and answers permission requests as a test says.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from acp import PROTOCOL_VERSION, Client, RequestError, spawn_agent_process, text_block
from acp.core import ClientSideConnection
from acp.schema import (
    AgentMessageChunk,
    AgentPlanUpdate,
    AgentThoughtChunk,
    AllowedOutcome,
    AvailableCommandsUpdate,
    ClientCapabilities,
    CreateElicitationResponse,
    CreateTerminalResponse,
    DeclineElicitationResponse,
    DeniedOutcome,
    ElicitationMode,
    EmbeddedResourceContentBlock,
    EnvVariable,
    FileEditToolCallContent,
    Implementation,
    McpServerStdio,
    PermissionOption,
    ReadTextFileResponse,
    RequestPermissionResponse,
    SessionConfigOptionSelect,
    SessionConfigSelectOption,
    SessionInfoUpdate,
    SseMcpServer,
    TerminalOutputResponse,
    TextResourceContents,
    ToolCallProgress,
    ToolCallStart,
    ToolCallUpdate,
    UsageUpdate,
    UserMessageChunk,
    WaitForTerminalExitResponse,
)

from tests.fixtures.mcp_servers.config import SERVER
from tui_agent.acp.session import NEW_TITLE
from tui_agent.offline.server import BackgroundServer

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]
Answer = Callable[[ToolCallUpdate, list[PermissionOption]], str | None]
"""Which option the editor picks for a permission request (None: it cancels the request)."""


class Editor(Client):
    """An ACP client that keeps what the agent tells it."""

    def __init__(self) -> None:
        self.updates: dict[str, list[Any]] = {}
        self.asked: list[tuple[ToolCallUpdate, list[PermissionOption]]] = []
        self.answer: Answer = lambda _call, _options: "allow_once"
        self.changed = asyncio.Event()

    async def request_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption], **kwargs: Any
    ) -> RequestPermissionResponse:
        self.asked.append((tool_call, options))
        chosen = self.answer(tool_call, options)
        if chosen is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=chosen))

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.setdefault(session_id, []).append(update)
        self.changed.set()

    async def write_text_file(self, session_id: str, path: str, content: str, **kwargs: Any) -> None:
        raise RequestError.method_not_found("fs/write_text_file")  # not offered: the agent writes files itself

    async def read_text_file(
        self, session_id: str, path: str, line: int | None = None, limit: int | None = None, **kwargs: Any
    ) -> ReadTextFileResponse:
        raise RequestError.method_not_found("fs/read_text_file")

    async def create_terminal(
        self,
        session_id: str,
        command: str,
        args: list[str] | None = None,
        env: list[EnvVariable] | None = None,
        cwd: str | None = None,
        output_byte_limit: int | None = None,
        **kwargs: Any,
    ) -> CreateTerminalResponse:
        raise RequestError.method_not_found("terminal/create")

    async def terminal_output(self, session_id: str, terminal_id: str, **kwargs: Any) -> TerminalOutputResponse:
        raise RequestError.method_not_found("terminal/output")

    async def release_terminal(self, session_id: str, terminal_id: str, **kwargs: Any) -> None:
        raise RequestError.method_not_found("terminal/release")

    async def wait_for_terminal_exit(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> WaitForTerminalExitResponse:
        raise RequestError.method_not_found("terminal/wait_for_exit")

    async def kill_terminal(self, session_id: str, terminal_id: str, **kwargs: Any) -> None:
        raise RequestError.method_not_found("terminal/kill")

    async def create_elicitation(self, message: str, mode: ElicitationMode, **kwargs: Any) -> CreateElicitationResponse:
        return DeclineElicitationResponse(action="decline")

    async def complete_elicitation(self, elicitation_id: str, **kwargs: Any) -> None:
        return None

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise RequestError.method_not_found(method)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        return None

    def on_connect(self, conn: Any) -> None:
        return None

    def of(self, session_id: str, kind: type[Any]) -> list[Any]:
        return [update for update in self.updates.get(session_id, []) if isinstance(update, kind)]

    def said(self, session_id: str) -> str:
        return "".join(u.content.text for u in self.of(session_id, AgentMessageChunk))

    async def until(self, check: Callable[[], bool]) -> None:
        """Wait (bounded) until `check` holds, looking again after each update."""
        async with asyncio.timeout(60):
            while not check():
                self.changed.clear()
                await self.changed.wait()


class Agent:
    """The running `tui-agent acp` and its editor."""

    def __init__(self, conn: ClientSideConnection, editor: Editor, folder: Path, server: BackgroundServer) -> None:
        self.conn, self.editor, self.folder, self.server = conn, editor, folder, server

    async def new_session(self) -> str:
        return (await self.conn.new_session(cwd=str(self.folder), mcp_servers=[])).session_id

    async def prompt(self, session_id: str, text: str) -> str:
        async with asyncio.timeout(120):  # bounds a hang only (a question nobody answers): a turn here takes ~1 s
            return (await self.conn.prompt(session_id=session_id, prompt=[text_block(text)])).stop_reason


@pytest.fixture(scope="module")
def offline() -> Iterator[BackgroundServer]:
    with BackgroundServer() as server:
        yield server


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def agent(offline: BackgroundServer, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Agent]:
    home, folder = tmp_path_factory.mktemp("home"), tmp_path_factory.mktemp("project")
    commands = folder / ".tui-agent" / "commands"
    commands.mkdir(parents=True)
    (commands / "greet.md").write_text("---\ndescription: Greet someone\n---\nSay hello to $ARGUMENTS.\n")
    env = {"TUI_AGENT_HOME": str(home), "PATH": os.environ.get("PATH", "")}
    editor = Editor()
    with (home / "stderr.log").open("wb") as log:
        command = [sys.executable, "-m", "tui_agent", "--base-url", offline.base_url, "--model", "offline", "acp"]
        ending = {"stderr": log, "shutdown_timeout": 60.0}  # the SDK's 2 s to exit: short on a loaded machine
        async with spawn_agent_process(editor, *command, env=env, cwd=folder, transport_kwargs=ending) as (
            conn,
            process,
        ):
            started = await conn.initialize(
                protocol_version=PROTOCOL_VERSION,
                client_capabilities=ClientCapabilities(),
                client_info=Implementation(name="test-editor", version="1"),
            )
            assert started.agent_info is not None and started.agent_info.name == "tui-agent"
            assert started.agent_capabilities is not None and started.agent_capabilities.load_session
            yield Agent(conn, editor, folder, offline)
        assert await process.wait() == 0  # the editor closed the connection: the agent ends, history flushed
    with sqlite3.connect(home / "data" / "history.db") as db:  # a session never prompted is not left behind
        assert NEW_TITLE not in [title for (title,) in db.execute("SELECT title FROM sessions")]


async def test_a_turn_streams_reasoning_and_text_names_the_session_and_offers_commands(agent: Agent) -> None:
    editor, session = agent.editor, await agent.new_session()
    agent.server.server.script([{"reasoning": "A greeting; greet back.", "text": "Hello there."}])
    assert await agent.prompt(session, "hi") == "end_turn"
    assert "".join(u.content.text for u in editor.of(session, AgentThoughtChunk)) == "A greeting; greet back."
    assert editor.said(session) == "Hello there."
    assert [u.title for u in editor.of(session, SessionInfoUpdate)] == ["hi"]
    gauge = editor.of(session, UsageUpdate)[-1]  # the offline model says its window
    assert gauge.size == 32768 and 0 < gauge.used < gauge.size
    await editor.until(lambda: bool(editor.of(session, AvailableCommandsUpdate)))
    commands = {c.name: c for c in editor.of(session, AvailableCommandsUpdate)[-1].available_commands}
    assert commands["greet"].description == "Greet someone"
    assert await agent.prompt(session, "/greet Ada") == "end_turn"  # the command's text is what the model gets
    assert "Say hello to Ada." in str(agent.server.requests[-1].body)
    assert await agent.prompt(session, "/compact") == "end_turn"  # the app's own command: said, nothing sent
    assert "one of the tui-agent app's own commands" in editor.said(session)


async def test_an_edit_is_asked_with_its_diff_and_shown_as_one(agent: Agent) -> None:
    editor, session = agent.editor, await agent.new_session()
    editor.answer = lambda _call, _options: "allow_once"
    assert await agent.prompt(session, "create notes.txt containing 'buy milk'") == "end_turn"
    assert (agent.folder / "notes.txt").read_text() == "buy milk\n"
    asked, options = editor.asked[-1]
    assert {option.kind for option in options} >= {"allow_once", "allow_always", "reject_once"}
    assert asked.content is not None and isinstance(diff := asked.content[0], FileEditToolCallContent)
    assert (diff.path, diff.old_text, diff.new_text) == (str(agent.folder / "notes.txt"), None, "buy milk\n")
    start = editor.of(session, ToolCallStart)[-1]
    assert start.kind == "edit" and start.tool_call_id == asked.tool_call_id
    done = [u for u in editor.of(session, ToolCallProgress) if u.tool_call_id == start.tool_call_id][-1]
    assert done.status == "completed"
    assert any(isinstance(c, FileEditToolCallContent) and c.new_text == "buy milk\n" for c in done.content or [])
    editor.answer = lambda _call, _options: "deny"  # denied: nothing written, the call failed, the turn goes on
    assert await agent.prompt(session, "in notes.txt change milk to bread") == "end_turn"
    assert (agent.folder / "notes.txt").read_text() == "buy milk\n"
    denied = editor.of(session, ToolCallProgress)[-1]
    assert denied.status == "failed"


async def test_a_sub_agents_calls_and_questions_reach_the_editor_named_after_it(agent: Agent) -> None:
    editor, session = agent.editor, await agent.new_session()
    editor.answer = lambda _call, _options: "allow_once"
    assert await agent.prompt(session, 'ask the coder to run "touch made-by-coder"') == "end_turn"
    assert (agent.folder / "made-by-coder").exists()
    asked, _ = editor.asked[-1]
    assert asked.title is not None and asked.title.startswith("coder: run_shell(")
    titles = [u.title for u in editor.of(session, ToolCallStart)]
    assert titles[0].startswith("ask_coder(") and any(t.startswith("coder: run_shell(") for t in titles)
    assert asked.tool_call_id in [u.tool_call_id for u in editor.of(session, ToolCallStart)]


async def test_modes_switch_and_refuse_what_they_do_not_allow_and_the_model_is_picked(agent: Agent) -> None:
    editor, session = agent.editor, await agent.new_session()
    picked = await agent.conn.set_config_option(config_id="model", session_id=session, value="other-model")
    assert picked is not None and picked.config_options is not None
    picker = picked.config_options[0]
    assert isinstance(picker, SessionConfigOptionSelect) and picker.current_value == "other-model"
    assert {option.value for option in picker.options if isinstance(option, SessionConfigSelectOption)} >= {
        "offline",
        "other-model",
    }
    await agent.conn.set_config_option(config_id="model", session_id=session, value="offline")
    await agent.new_session()  # opened and never used: removed from history when the connection ends
    asked_before = len(editor.asked)
    await agent.conn.set_session_mode(session_id=session, mode_id="auto-edit")
    assert await agent.prompt(session, "create todo.txt containing 'tea'") == "end_turn"
    assert (agent.folder / "todo.txt").read_text() == "tea\n" and len(editor.asked) == asked_before  # unasked
    await agent.conn.set_session_mode(session_id=session, mode_id="read-only")
    assert await agent.prompt(session, "create other.txt containing 'x'") == "end_turn"
    assert not (agent.folder / "other.txt").exists() and editor.of(session, ToolCallProgress)[-1].status == "failed"
    with pytest.raises(RequestError):
        await agent.conn.set_session_mode(session_id=session, mode_id="yolo")
    await agent.conn.set_session_mode(session_id=session, mode_id="plan")  # its checklist becomes the plan
    agent.server.server.script([{"text": "The plan:\n\n- [ ] read app.py\n- [ ] fix the bug\n"}])
    assert await agent.prompt(session, "plan the fix") == "end_turn"
    plan = editor.of(session, AgentPlanUpdate)[-1]
    assert [(entry.content, entry.status) for entry in plan.entries] == [
        ("read app.py", "pending"),
        ("fix the bug", "pending"),
    ]


async def test_a_failed_turn_is_an_error_with_the_reason_and_the_session_goes_on(agent: Agent) -> None:
    session = await agent.new_session()
    agent.server.server.script([{"status": 400, "error_message": "model 'offline' has gone fishing"}])
    with pytest.raises(RequestError) as failed:
        await agent.prompt(session, "hello?")
    assert "gone fishing" in str(failed.value)
    assert await agent.prompt(session, "hello again") == "end_turn"
    with pytest.raises(RequestError):
        await agent.conn.new_session(cwd=str(agent.folder / "missing"), mcp_servers=[])
    with pytest.raises(RequestError):
        await agent.prompt("no-such-session", "hi")


async def test_cancel_ends_the_turn_cancelled(agent: Agent) -> None:
    editor, session = agent.editor, await agent.new_session()
    agent.server.server.script([{"text": "word " * 400, "chunk_size": 2, "chunk_delay": 0.02}])
    running = asyncio.create_task(agent.prompt(session, "talk"))
    await editor.until(lambda: bool(editor.of(session, AgentMessageChunk)))
    await agent.conn.cancel(session_id=session)
    assert await running == "cancelled"
    assert len(editor.said(session).split()) < 400


async def test_a_stored_session_loads_with_its_conversation(agent: Agent) -> None:
    editor, session = agent.editor, await agent.new_session()
    attached = EmbeddedResourceContentBlock(
        type="resource", resource=TextResourceContents(uri=f"file://{agent.folder}/spec.md", text="The spec says 42.")
    )
    assert await agent.prompt(session, "what is 6 * 7") == "end_turn"
    answer = await agent.conn.prompt(session_id=session, prompt=[text_block("and the spec?"), attached])
    assert answer.stop_reason == "end_turn"
    assert "The spec says 42." in str(agent.server.requests[-1].body)  # the editor's file went with the prompt
    said = editor.said(session)
    editor.updates.pop(session)
    await agent.conn.load_session(cwd=str(agent.folder), session_id=session, mcp_servers=[])
    shown = editor.updates[session]
    users = [u.content.text for u in shown if isinstance(u, UserMessageChunk)]
    assert users == ["what is 6 * 7", "and the spec?"]
    calls = [u for u in shown if isinstance(u, ToolCallStart)]
    assert [(c.title, c.status, c.raw_output) for c in calls] == [("calculate(6 * 7)", "completed", "42")]
    replies = "".join(u.content.text for u in shown if isinstance(u, AgentMessageChunk))
    assert replies.strip() and replies.strip() in said
    assert not [u for u in shown if isinstance(u, AgentPlanUpdate)]
    listed = await agent.conn.list_sessions()
    assert session in [info.session_id for info in listed.sessions]
    assert await agent.prompt(session, "and what is 2 + 2") == "end_turn"  # it goes on in the loaded session
    with pytest.raises(RequestError):
        await agent.conn.load_session(cwd=str(agent.folder), session_id="no-such-session", mcp_servers=[])


async def test_the_editors_mcp_servers_are_started_for_its_session_and_their_tools_ask_the_editor(
    agent: Agent,
) -> None:
    """Zed sends its context servers with `session/new`: a stdio one is started for that session (its tools ask
    the editor, as ours do); one tui-agent cannot connect to is named in the first reply, not silently dropped."""
    editor = agent.editor
    servers: list[Any] = [
        McpServerStdio(name="editor_tools", command=sys.executable, args=[str(SERVER)], env=[]),
        SseMcpServer(name="old_sse", url="http://127.0.0.1:9/sse", headers=[], type="sse"),
    ]
    started = await agent.conn.new_session(cwd=str(agent.folder), mcp_servers=servers)
    session = started.session_id
    editor.answer = lambda _call, _options: "allow_once"
    asked = len(editor.asked)
    assert await agent.prompt(session, "use echo with 'from the editor'") == "end_turn"
    assert len(editor.asked) == asked + 1  # the MCP tool asked, and the editor was the one asked
    done = [u for u in editor.of(session, ToolCallProgress) if u.status == "completed"]
    assert any("echo: from the editor" in str(update.content) for update in done), done
    assert "The editor's MCP server 'old_sse' is not started: it is an SSE server" in editor.said(session)
    other = await agent.new_session()  # another session without them: not offered there
    assert await agent.prompt(other, "use echo with 'elsewhere'") == "end_turn"
    assert not any("echo: elsewhere" in str(u.content) for u in editor.of(other, ToolCallProgress))


async def test_a_closed_session_resumes_without_replay_and_a_fork_carries_its_branch(agent: Agent) -> None:
    editor, session = agent.editor, await agent.new_session()
    assert await agent.prompt(session, "what is 6 * 7") == "end_turn"
    await agent.conn.close_session(session_id=session)
    editor.updates.pop(session, None)
    await agent.conn.resume_session(cwd=str(agent.folder), session_id=session, mcp_servers=[])
    assert not [u for u in editor.updates.get(session, []) if isinstance(u, UserMessageChunk)]  # not replayed
    assert await agent.prompt(session, "and what is 2 + 2") == "end_turn"
    assert "what is 6 * 7" in str(agent.server.requests[-1].body)  # the model is sent the stored conversation
    forked = await agent.conn.fork_session(cwd=str(agent.folder), session_id=session, mcp_servers=[])
    assert forked.session_id != session and forked.modes is not None
    assert await agent.prompt(forked.session_id, "and what is 3 + 3") == "end_turn"
    sent = str(agent.server.requests[-1].body)
    assert "what is 6 * 7" in sent and "and what is 2 + 2" in sent
    listed = [info.session_id for info in (await agent.conn.list_sessions()).sessions]
    assert session in listed and forked.session_id in listed
    with pytest.raises(RequestError):
        await agent.conn.fork_session(cwd=str(agent.folder), session_id="no-such-session", mcp_servers=[])
