"""Provides `ExternalAgent`: one external agent's process and its ACP session, on the official SDK.

`start` runs the profile's command in the working folder (with the user's environment, as a shell would),
initialises the protocol (we offer no file system or terminal of ours: the agent works with its own tools and
asks before it acts) and opens a session there. `prompt` sends one prompt and reports every update the agent
sends for it to an `AgentHost` in the order it came, answers its permission requests with the host's approval,
and returns the agent's stop reason; cancelled (Esc, a cancelled node), it sends ACP's `session/cancel` and
takes back any question still open. A process that cannot start, dies or breaks the protocol is an
`ExternalAgentError` saying so, with the last lines it wrote on stderr. `close` ends the process.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
from collections import deque
from collections.abc import Awaitable, Sequence
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any, TypeVar, cast

from acp import PROTOCOL_VERSION, Client, RequestError, spawn_agent_process, text_block
from acp.core import ClientSideConnection
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    DeniedOutcome,
    Implementation,
    PromptResponse,
    RequestPermissionResponse,
)

from tui_agent import __version__
from tui_agent.acp_client.host import AgentHost, ExternalAgentError
from tui_agent.acp_client.values import block_text, call_value, option_for
from tui_agent.status import ToolStatus
from tui_agent.tool_call import Decision, ToolCall

START_TIMEOUT = 60.0
"""Seconds an agent may take to start and open its session (some install or log in first)."""
CANCEL_WAIT = 5.0
"""Seconds a cancelled prompt waits for the agent to say it stopped before the process is left to `close`."""
STDERR_LINES = 8
"""How many of the agent's last stderr lines a failure quotes."""
T = TypeVar("T")


class ExternalAgent:
    """An external ACP agent for one run: its process, its session, and the prompt in progress."""

    def __init__(self, name: str, command: Sequence[str], folder: Path, message_id: str = "") -> None:
        self.name, self.command, self.folder = name, list(command), folder
        self.message_id = message_id
        """The reply the current prompt's tool calls belong to (the host's message)."""
        self.prompts = 0
        """Prompts sent in this session: the first one carries what came before (`external_turn.prompt_for`)."""
        self._stack = AsyncExitStack()
        self._conn: ClientSideConnection | None = None
        self._process: asyncio.subprocess.Process | None = None
        self._session = ""
        self._stderr: deque[str] = deque(maxlen=STDERR_LINES)
        self._host: AgentHost | None = None
        self._calls: dict[str, ToolCall] = {}
        self._prompt: asyncio.Future[PromptResponse] | None = None
        """The prompt request in progress."""
        self._cancelling: asyncio.Future[None] | None = None
        self._closing: asyncio.Future[None] | None = None
        self._asking: set[asyncio.Future[Decision]] = set()
        self._always: set[str] = set()
        """Tools answered "always" that the agent offered no "always" option for: not asked again this run."""

    async def start(self) -> None:
        """Start the program and open an ACP session in the working folder (once)."""
        if self._conn is not None:
            return
        program, *args = self.command
        client = cast("Client", _Client(self))  # the two requests it answers; the SDK refuses the others
        try:
            spawned = spawn_agent_process(
                client, program, *args, env=dict(os.environ), cwd=self.folder, transport_kwargs={"limit": 2**24}
            )
            conn, process = await self._stack.enter_async_context(spawned)
        except OSError as error:
            raise ExternalAgentError(
                f"The {self.name} agent could not be started: {shlex.join(self.command)}: {error.strerror or error}"
            ) from error
        self._process = process
        if process.stderr is not None:
            self._stack.push_async_callback(_stopped, asyncio.create_task(self._keep_stderr(process.stderr)))
        us = Implementation(name="tui-agent", title="tui-agent", version=__version__)
        await self._until_exit(conn.initialize(PROTOCOL_VERSION, ClientCapabilities(), us), START_TIMEOUT)
        session = await self._until_exit(conn.new_session(cwd=str(self.folder), mcp_servers=[]), START_TIMEOUT)
        self._conn, self._session = conn, session.session_id

    async def prompt(self, text: str, host: AgentHost) -> str:
        """Send `text`; every update goes to `host` until the agent answers. Returns its stop reason."""
        await self.start()
        assert self._conn is not None
        self._host, self._calls, self._cancelling = host, {}, None
        self.prompts += 1
        self._prompt = asyncio.ensure_future(self._conn.prompt(session_id=self._session, prompt=[text_block(text)]))
        try:
            response = await self._until_exit(asyncio.shield(self._prompt))
        except asyncio.CancelledError:
            await self._cancel()
            raise
        finally:
            self._host = None
        if response.usage is not None:
            host.usage(response.usage.input_tokens, response.usage.output_tokens)
        return str(response.stop_reason)

    async def close(self) -> None:
        """End the session's process (stdin closed, then terminated, then killed: the SDK's shutdown); a prompt
        still running is cancelled first, so the agent hears of it. Shielded: a caller cancelled meanwhile (Esc
        again) leaves no process behind."""
        if self._closing is None:
            self._closing = asyncio.ensure_future(self._close())
        await asyncio.shield(self._closing)

    async def _close(self) -> None:
        await self._cancel()
        self._conn = None
        await self._stack.aclose()

    # -- what the agent sends ---------------------------------------------------------------------------
    def update(self, update: Any) -> None:
        """One `session/update` of the prompt in progress, to the host (none is in progress: dropped)."""
        host = self._host
        if host is None:
            return
        kind = getattr(update, "session_update", "")
        if kind == "agent_message_chunk":
            host.text(block_text(update.content))
        elif kind == "agent_thought_chunk":
            host.thought(block_text(update.content))
        elif kind in ("tool_call", "tool_call_update"):
            host.call(self._follow(update))

    async def permission(self, tool_call: Any, options: Sequence[Any]) -> RequestPermissionResponse:
        """The agent asks to run a call: the host's approval, as the agent's option of the same kind."""
        host = self._host
        call = self._follow(tool_call)
        if host is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        decision = Decision.ALLOW_ONCE if call.name in self._always else await self._ask(host, call)
        if decision is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        chosen = option_for(decision, options)
        if decision is Decision.ALLOW_ALWAYS and not any(option.kind == "allow_always" for option in options):
            self._always.add(call.name)
        if decision is Decision.DENY:
            host.call(self._set(call.replace(status=ToolStatus.DENIED, error="denied", result="denied")))
        if chosen is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(outcome=AllowedOutcome(option_id=chosen, outcome="selected"))

    async def _ask(self, host: AgentHost, call: ToolCall) -> Decision | None:
        """The host's answer to `call`; None when the prompt was cancelled first."""
        host.call(self._set(call.replace(status=ToolStatus.AWAITING_APPROVAL)))
        question = asyncio.ensure_future(host.ask(call))
        self._asking.add(question)
        try:
            return await question
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise
            return None  # taken back by a cancelled prompt
        finally:
            self._asking.discard(question)

    def _follow(self, update: Any) -> ToolCall:
        earlier = self._calls.get(update.tool_call_id)
        return self._set(call_value(update, earlier, self.message_id, self.folder))

    def _set(self, call: ToolCall) -> ToolCall:
        self._calls[call.call_id] = call
        return call

    # -- the process -------------------------------------------------------------------------------------
    async def _cancel(self) -> None:
        """Tell the agent to stop the prompt in progress, once, whoever asks first (the prompt's own task, or
        `close`); shielded, so a second cancellation of the asker cannot cut it short."""
        if self._cancelling is None:
            self._cancelling = asyncio.ensure_future(self._send_cancel())
        await asyncio.shield(self._cancelling)

    async def _send_cancel(self) -> None:
        """ACP `session/cancel` for the prompt in progress, the questions still open taken back, and a moment
        for the agent to answer that it stopped (the protocol's end of a cancelled prompt)."""
        prompt = self._prompt
        for question in list(self._asking):
            question.cancel()
        if prompt is None or prompt.done():
            return
        if self._conn is not None and self._process is not None and self._process.returncode is None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._conn.cancel(session_id=self._session), CANCEL_WAIT)
                await asyncio.wait({prompt}, timeout=CANCEL_WAIT)
        prompt.cancel()

    async def _until_exit(self, awaitable: Awaitable[T], limit: float | None = None) -> T:
        """`awaitable`'s result, unless the process ends (or `limit` seconds pass) first: then why, as an error."""
        assert self._process is not None
        work = asyncio.ensure_future(awaitable)
        exited = asyncio.ensure_future(self._process.wait())
        try:
            await asyncio.wait({work, exited}, timeout=limit, return_when=asyncio.FIRST_COMPLETED)
        finally:
            exited.cancel()
            if not work.done():
                work.cancel()
        if work.done() and not work.cancelled():
            try:
                return work.result()
            except RequestError as error:
                raise ExternalAgentError(f"The {self.name} agent refused: {error}") from error
            except (ConnectionError, OSError, RuntimeError) as error:
                raise ExternalAgentError(f"The {self.name} agent failed: {error}{self._said()}") from error
        if self._process.returncode is not None:
            code = self._process.returncode
            raise ExternalAgentError(f"The {self.name} agent exited (code {code}){self._said()}")
        raise ExternalAgentError(f"The {self.name} agent did not answer within {limit or 0:.0f} s{self._said()}")

    async def _keep_stderr(self, stderr: asyncio.StreamReader) -> None:
        """Keep the last lines the agent writes on stderr (read, so a chatty agent never blocks on the pipe)."""
        while line := await stderr.readline():
            if text := line.decode(errors="replace").rstrip():
                self._stderr.append(text)

    def _said(self) -> str:
        return (": " + " / ".join(self._stderr)) if self._stderr else "."


class _Client:
    """The client side the SDK calls: session updates and permission requests, passed to the agent's run."""

    def __init__(self, agent: ExternalAgent) -> None:
        self._agent = agent

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self._agent.update(update)

    async def request_permission(
        self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any
    ) -> RequestPermissionResponse:
        return await self._agent.permission(tool_call, options)


async def _stopped(task: asyncio.Task[None]) -> None:
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
