"""Provides `TuiAgentAcp`: tui-agent as an ACP agent — the protocol's methods, each session an `AcpSession`.

`initialize` says what we do (load sessions, list them, images and embedded files in prompts); `session/new`
builds a chat as the app does (the same settings, tools, MCP servers, agent files, history file; the editor's own
MCP servers added, `editor_mcp.py`) and stores it;
`session/load` resumes a stored one and shows its conversation again; `session/list` lists the stored ones;
`session/resume` opens a stored one without the replay; `session/fork` copies one's active branch into a new
session; `session/set_mode` switches the permission mode; `session/prompt` runs a turn; `session/cancel` stops it.

Each session has its own engine (one turn at a time each, as in the app). Tools work in the process's working
folder: a session asking for another folder moves the process there (an editor starts one agent per project).
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, RequestError
from acp.interfaces import Client
from acp.schema import (
    AcpMcpServer,
    AgentCapabilities,
    AuthenticateResponse,
    ClientCapabilities,
    CloseSessionResponse,
    ForkSessionResponse,
    HttpMcpServer,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    McpCapabilities,
    McpServerStdio,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    ResumeSessionResponse,
    SessionCapabilities,
    SessionCloseCapabilities,
    SessionForkCapabilities,
    SessionInfo,
    SessionListCapabilities,
    SessionResumeCapabilities,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
    SseMcpServer,
)

from tui_agent import __version__
from tui_agent.acp.editor_mcp import with_editor_servers
from tui_agent.acp.prompt_blocks import Block
from tui_agent.acp.session import NEW_TITLE, AcpSession
from tui_agent.agent.endpoint import choose_endpoint
from tui_agent.agent.services import BuiltAgent, build_agent
from tui_agent.config import Settings
from tui_agent.errors import UserError
from tui_agent.history.errors import HistoryError
from tui_agent.history.store import HistoryStore
from tui_agent.tools.modes import Mode, start_mode

McpServers = list[HttpMcpServer | SseMcpServer | AcpMcpServer | McpServerStdio] | None
LISTED = 200
"""Sessions `session/list` returns (newest first)."""
OPEN_AT_ONCE = 4
"""Engines kept running: past this, the least recently used idle session is closed (its MCP servers, its offline
model stop); a later prompt to it opens it again from history, unseen by the editor."""


@dataclass
class StartOptions:
    """What the command line says about every session: `--mode` and `--dangerously-auto-without-sandbox`."""

    mode: str | None = None
    unsandboxed_auto: bool = False
    problems: list[str] = field(default_factory=list)
    """What is wrong with the config file: told to the editor in each session's first reply, with what the
    session's start said (an MCP server that failed...)."""


class TuiAgentAcp:
    """The ACP agent: one per connection, any number of sessions."""

    def __init__(self, settings: Settings, options: StartOptions | None = None) -> None:
        self.settings = settings
        self.options = options or StartOptions()
        self.sessions: dict[str, AcpSession] = {}
        self._kept: dict[str, tuple[Mode, str]] = {}
        """The mode and model of each session closed to make room, given back when it opens again."""
        self._unprompted: set[str] = set()
        """Sessions closed to make room before their first prompt: removed at the end unless one comes."""
        self._editor_servers: dict[str, McpServers] = {}
        """The MCP servers the editor sent with each session, started again when a closed one opens."""
        self._client: Client | None = None

    def on_connect(self, conn: Client) -> None:
        self._client = conn

    @property
    def client(self) -> Client:
        if self._client is None:
            raise RequestError.internal_error({"message": "no client connected"})
        return self._client

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: ClientCapabilities | None = None,
        client_info: Implementation | None = None,
        **kwargs: Any,
    ) -> InitializeResponse:
        return InitializeResponse(
            protocol_version=min(protocol_version, PROTOCOL_VERSION),
            agent_capabilities=AgentCapabilities(
                load_session=True,
                mcp_capabilities=McpCapabilities(http=True, sse=False),  # stdio always (editor_mcp.py)
                prompt_capabilities=PromptCapabilities(image=True, embedded_context=True),
                session_capabilities=SessionCapabilities(
                    list=SessionListCapabilities(),
                    fork=SessionForkCapabilities(),
                    resume=SessionResumeCapabilities(),
                    close=SessionCloseCapabilities(),
                ),
            ),
            agent_info=Implementation(name="tui-agent", title="tui-agent", version=__version__),
            auth_methods=[],
        )

    async def authenticate(self, method_id: str, **kwargs: Any) -> AuthenticateResponse | None:
        return AuthenticateResponse()  # the endpoint's key comes from the config or the environment

    async def new_session(
        self,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: McpServers = None,
        **kwargs: Any,
    ) -> NewSessionResponse:
        built = await self._build(cwd, mcp_servers)
        agent = built.agent
        try:
            stored = await agent.store.create_session(
                title=NEW_TITLE,
                model=agent.model,
                endpoint=agent.endpoint,
                system_prompt=agent.system_prompt,
                agent=agent.agent or None,
            )
            await agent.open_session(stored.id)
        except BaseException:
            await built.close()
            raise
        self._editor_servers[stored.id] = mcp_servers
        session = await self._keep(built, stored.id)
        session.untitled = True
        session.announce()
        options = await session.config_options()
        return NewSessionResponse(session_id=stored.id, modes=session.modes(), config_options=options)

    async def load_session(
        self,
        cwd: str,
        session_id: str,
        mcp_servers: McpServers = None,
        additional_directories: list[str] | None = None,
        **kwargs: Any,
    ) -> LoadSessionResponse | None:
        if (running := self.sessions.pop(session_id, None)) is not None:
            await running.close()  # loaded again: from what is stored, as a later process would
        self._editor_servers[session_id] = mcp_servers
        session = await self._open(session_id, cwd)
        await session.replay()
        session.announce()
        return LoadSessionResponse(modes=session.modes(), config_options=await session.config_options())

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **kwargs: Any
    ) -> ListSessionsResponse:
        try:
            store = await HistoryStore.open(self.settings.db)
        except HistoryError as error:
            raise RequestError.internal_error({"message": error.user_message}) from None
        try:
            stored = await store.list_recent(LISTED)
        finally:
            await store.close()
        here = cwd or os.getcwd()
        return ListSessionsResponse(
            sessions=[
                SessionInfo(session_id=s.id, cwd=here, title=s.title, updated_at=s.updated_at.isoformat())
                for s in stored
                if not s.sub_agent and s.message_count > 0
            ]
        )

    async def set_session_mode(self, session_id: str, mode_id: str, **kwargs: Any) -> SetSessionModeResponse | None:
        (await self._session(session_id)).set_mode(mode_id)
        return SetSessionModeResponse()

    async def prompt(self, session_id: str, prompt: list[Block], **kwargs: Any) -> PromptResponse:
        stop = await (await self._session(session_id)).prompt(prompt)
        return PromptResponse(stop_reason=stop)

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        if (session := self.sessions.get(session_id)) is not None:
            session.cancel()

    async def close_session(self, session_id: str, **kwargs: Any) -> CloseSessionResponse | None:
        self._editor_servers.pop(session_id, None)
        if (session := self.sessions.pop(session_id, None)) is not None:
            await session.close()
        return CloseSessionResponse()

    async def resume_session(
        self,
        session_id: str,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: McpServers = None,
        **kwargs: Any,
    ) -> ResumeSessionResponse:
        """`session/load` without the replay: the editor still shows the conversation."""
        session = self.sessions.get(session_id)
        if session is None:
            self._editor_servers[session_id] = mcp_servers
            session = await self._open(session_id, cwd)
        session.announce()
        return ResumeSessionResponse(modes=session.modes(), config_options=await session.config_options())

    async def fork_session(
        self,
        session_id: str,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: McpServers = None,
        **kwargs: Any,
    ) -> ForkSessionResponse:
        """A new stored session holding `session_id`'s active branch (as the app's fork), opened beside it."""
        if session_id in self.sessions and self.sessions[session_id].running:
            raise RequestError.invalid_params({"message": "The session is answering: fork it when its turn ends."})
        fork_id = await self._forked(session_id)
        self._editor_servers[fork_id] = mcp_servers
        session = await self._open(fork_id, cwd)
        session.announce()
        options = await session.config_options()
        return ForkSessionResponse(session_id=fork_id, modes=session.modes(), config_options=options)

    async def set_config_option(
        self, config_id: str, session_id: str, value: str | bool, **kwargs: Any
    ) -> SetSessionConfigOptionResponse | None:
        session = await self._session(session_id)
        session.set_option(config_id, value)
        return SetSessionConfigOptionResponse(config_options=await session.config_options())

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise RequestError.method_not_found(method)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        return None

    async def close(self) -> None:
        """End every session (at the connection's end)."""
        sessions, self.sessions = list(self.sessions.values()), {}
        await asyncio.gather(*(session.close() for session in sessions))  # each its own engine: side by side
        if self._unprompted:
            await self._forget(self._unprompted)

    async def _forget(self, session_ids: set[str]) -> None:
        """Remove sessions that never had a prompt (best effort: an empty session left behind harms nothing)."""
        try:
            store = await HistoryStore.open(self.settings.db)
        except HistoryError:
            return
        try:
            for session_id in session_ids:
                await store.delete_session(session_id)
        except HistoryError:
            pass
        finally:
            await store.close()

    # -- helpers ----------------------------------------------------------------------------------------
    async def _build(self, cwd: str, editor_servers: McpServers = None) -> BuiltAgent:
        enter(cwd)
        settings, left_out = with_editor_servers(self.settings, editor_servers)
        try:
            built = await build_agent(settings, choose_endpoint(settings))
        except UserError as error:
            raise RequestError.internal_error({"message": error.user_message}) from None
        permissions = built.agent.runner.permissions
        options = self.options
        if refused := start_mode(
            permissions, options.mode, self.settings.tools.mode, unsandboxed=options.unsandboxed_auto
        ):
            built.notices.append(refused)
        built.notices[:0] = [*options.problems, *left_out]
        return built

    async def _open(self, session_id: str, cwd: str) -> AcpSession:
        """Stored session `session_id` resumed in an engine of its own (none is started for an unknown id)."""
        if not await self._stored(session_id):
            raise RequestError.invalid_params(
                {"message": f"There is no session {session_id!r} (see `tui-agent sessions list`)."}
            )
        built = await self._build(cwd, self._editor_servers.get(session_id))
        try:
            await built.agent.resume(session_id)
            if (kept := self._kept.pop(session_id, None)) is not None:
                built.agent.permissions.switch(kept[0])
                if kept[1] and kept[1] != built.agent.model:
                    built.agent.switch_model(kept[1])
        except BaseException:
            await built.close()
            raise
        session = await self._keep(built, session_id)
        if session_id in self._unprompted:
            self._unprompted.discard(session_id)
            session.untitled = True
        return session

    async def _forked(self, session_id: str) -> str:
        """The id of a new stored session copying `session_id` up to its active leaf."""
        if not await self._stored(session_id):
            raise RequestError.invalid_params({"message": f"There is no session {session_id!r} to fork."})
        store = await HistoryStore.open(self.settings.db)
        try:
            found = await store.get_session(session_id)
            if found is None or found.active_leaf_id is None:
                raise RequestError.invalid_params({"message": "The session has no messages yet: nothing to fork."})
            return (await store.fork_session(session_id, found.active_leaf_id)).id
        except HistoryError as error:
            raise RequestError.internal_error({"message": error.user_message}) from None
        finally:
            await store.close()

    async def _stored(self, session_id: str) -> bool:
        """Whether history has a session of exactly this id (a prefix is for people, not protocols)."""
        try:
            store = await HistoryStore.open(self.settings.db)
        except HistoryError as error:
            raise RequestError.internal_error({"message": error.user_message}) from None
        try:
            found = await store.get_session(session_id)
        finally:
            await store.close()
        return found is not None and found.id == session_id

    async def _keep(self, built: BuiltAgent, session_id: str) -> AcpSession:
        session = AcpSession(built, self.client, session_id, Path.cwd(), self.settings.ui.attach_max_bytes)
        built.agent.learn_context_windows()  # the served window, for compaction and the editor's gauge (as the app)
        self.sessions[session_id] = session
        idle = [s for s in self.sessions.values() if s is not session and not s.running]
        for evicted in idle[: max(0, len(self.sessions) - OPEN_AT_ONCE)]:  # the least recently used first
            del self.sessions[evicted.id]
            self._kept[evicted.id] = evicted.built.agent.permissions.mode, evicted.built.agent.model
            if evicted.untitled:  # kept stored until the end: a prompt may still come
                self._unprompted.add(evicted.id)
                evicted.untitled = False
            await evicted.close()
        return session

    async def _session(self, session_id: str) -> AcpSession:
        """The open session `session_id` (now the most recently used), opened again if it was closed to make room."""
        session = self.sessions.pop(session_id, None)
        if session is None:
            return await self._open(session_id, str(Path.cwd()))
        self.sessions[session_id] = session
        return session


def enter(cwd: str) -> None:
    """Work in folder `cwd` (the tools, memory files and commands are found from the working folder)."""
    folder = Path(cwd)
    if not folder.is_absolute() or not folder.is_dir():
        raise RequestError.invalid_params({"message": f"The working folder {cwd!r} is not a folder."})
    if folder.resolve() != Path.cwd().resolve():
        os.chdir(folder)
