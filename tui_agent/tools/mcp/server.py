"""Provides `McpServer`: one configured MCP server and the task that owns its session.

The SDK's session (and its transport) must be opened and closed by the same task, so each server gets an
owner task that opens it, publishes it, waits to be told to stop and closes it. Calls use the published
session from the caller's task (the SDK multiplexes requests), so Esc and timeouts cancel a call for real.

    starting ──> ready ──(a call finds the connection closed)──> crashed ──(next call)──> starting (once)
        └──> failed (why, with the last stderr line)         stop() ──> stopped      toggled off: disabled

A crashed server is restarted by its next call, once; when it crashes again it stays failed (the MCP
screen can still restart it by hand). The server's stderr goes to its own log file (`log.py`: secrets redacted),
never the terminal.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Callable
from contextlib import AsyncExitStack
from pathlib import Path
from types import ModuleType
from typing import IO, Any

from tui_agent.config import McpServerSettings
from tui_agent.tools.mcp.elicitation import Action, Asker, Value, question_of
from tui_agent.tools.mcp.failures import (
    OUR_NOTE,
    OUR_NOTE_LOGGED,
    explain,
    is_connection_closed,
    last_line,
    stray_sentence,
)
from tui_agent.tools.mcp.log import Redact, ServerLog, append_note
from tui_agent.tools.mcp.oauth_desk import SignIn, SignInDesk
from tui_agent.tools.mcp.sampling import Answerer, SamplingDenied, SamplingReply, SamplingRequest
from tui_agent.tools.mcp.server_state import ServerState as ServerState
from tui_agent.tools.mcp.specs import callable_tools, needs_tasks, offered, safe_name
from tui_agent.tools.mcp.start_queue import StartQueue
from tui_agent.tools.results import ToolResult

STOP_GRACE = 6.0
"""Seconds to wait for a server's owner task to close it (the SDK's own shutdown is bounded by ~4.5 s)."""


WATCH_INTERVAL = 1.0
"""Seconds between checks that an idle server is still there."""


class McpCallError(ValueError):
    """A call that failed on the way (the server is down, stopped mid-call, or refused the request); the
    message says why (a ValueError, so the runner shows the message alone)."""


class McpServer:
    """A server's state, its tools and its owner task. `on_change(server)` hears of every state change."""

    def __init__(
        self,
        name: str,
        settings: McpServerSettings,
        log_dir: Path,
        on_change: Callable[[McpServer], None],
        *,
        redact: Redact,
        ask: Asker | None = None,
        sample: Answerer | None = None,
        sign_ins: SignInDesk | None = None,
        queue: StartQueue | None = None,
    ) -> None:
        """`ask(question)` puts the server's requests for input to the user (None: they are declined);
        `sample(request)` answers its sampling requests (None: refused); `sign_ins`: where its OAuth sign-in is
        kept and started (None: never); `queue`: whose turn it is to start a process (None: at once)."""
        self.name, self.settings = name, settings
        self._ask = ask
        self._sample = sample
        self._sign_ins = sign_ins
        self._sign_in: SignIn | None = None
        self._queue = queue
        self.log_path = log_dir / f"{safe_name(name)}.log"
        self._redact = redact
        """What the log does to the server's stderr before writing it (history's redaction)."""
        self._log: ServerLog | None = None
        self.state = ServerState.STARTING if settings.enabled else ServerState.DISABLED
        self.reason: str | None = None
        self.tools: list[Any] = []
        self.resources: list[Any] = []
        self.templates: list[Any] = []
        """Its resource templates (`notes://{name}`)."""
        self.prompts: list[Any] = []
        self.restarted = False
        """Whether the one automatic restart after a crash has been used."""
        self.stray_output: str | None = None
        """What the server wrote (or sent) that is not JSON-RPC, said once: a banner, bytes not UTF-8..."""
        self._on_change = on_change
        self._sdk: ModuleType | None = None
        self._session: Any = None
        self._task: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self._settled = asyncio.Event()
        self._begun = asyncio.Event()
        """Set once its start has its turn in the queue (or it ended before)."""
        self._log_start = 0

    # -- life ---------------------------------------------------------------------------------------
    def start(self, sdk: ModuleType) -> None:
        """Start the owner task (`sdk` is `tui_agent.tools.mcp.session`, imported by the caller)."""
        self._sdk = sdk
        if self._task is not None and not self._task.done():
            return
        self.reason, self.stray_output, self._stop, self._settled = None, None, asyncio.Event(), asyncio.Event()
        self._begun.clear()  # cleared, not replaced: whoever waits for the first start waits for this one
        self._set(ServerState.STARTING)
        self._task = asyncio.get_running_loop().create_task(self._own(), name=f"mcp-server:{self.name}")

    async def settled(self) -> None:
        """Wait until the server is no longer starting (ready or failed)."""
        if self.state == ServerState.STARTING:
            await self._settled.wait()

    async def begun(self) -> None:
        """Wait until its start has its turn (`StartQueue`; its `startup_timeout` runs from then), or ended."""
        await self._begun.wait()

    async def stop(self, state: ServerState = ServerState.STOPPED) -> None:
        """Close the session and end the server process (bounded); the state becomes `state`."""
        task = self._task
        self._stop.set()
        if task is not None and not task.done():
            try:
                await asyncio.wait_for(asyncio.shield(task), STOP_GRACE)
            except TimeoutError:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
        self.tools = []
        self._set(state)

    async def _own(self) -> None:
        try:
            with self._open_log() as log:
                async with AsyncExitStack() as stack:
                    if not await self._open(stack, log.stderr):
                        return  # leaving the stack closes what was opened (the process is ended)
                    await self._watch()
        except asyncio.CancelledError:
            raise
        except BaseException as error:  # the transport ended badly (groups from its task groups)
            if self.state == ServerState.STARTING:
                self._fail(error)
        finally:
            self._session = None
            self._begun.set()
            self._settled.set()

    async def _watch(self) -> None:
        """Wait to be stopped; notice meanwhile a server that exits while idle (its crash is reported at once,
        and its next call restarts it instead of failing first)."""
        while not self._stop.is_set():
            try:
                await asyncio.wait_for(self._stop.wait(), WATCH_INTERVAL)
            except TimeoutError:
                if self.connection_lost():
                    self._crashed()

    def connection_lost(self) -> bool:
        """Whether the live session's connection has ended."""
        return self._session is not None and self._sdk is not None and bool(self._sdk.is_closed(self._session))

    async def _open(self, stack: AsyncExitStack, errlog: IO[str]) -> bool:
        # Only the processes we start queue (their start is CPU); a server reached by URL starts at once.
        if self._queue is None or self.settings.command is None:
            return await self._connect(stack, errlog)
        async with self._queue.turn():
            return await self._connect(stack, errlog)

    async def _connect(self, stack: AsyncExitStack, errlog: IO[str]) -> bool:
        self._begun.set()
        sdk = self._sdk
        assert sdk is not None
        try:
            async with asyncio.timeout(self.settings.startup_timeout) as clock:
                if self._sign_ins is not None:
                    self._sign_in = self._sign_ins.sign_in(self.name, self.settings, clock)
                session = await sdk.connect(
                    stack,
                    self.settings,
                    errlog,
                    self._tools_changed,
                    self._stray,
                    self._server_logged,
                    self._elicited,
                    self._sampled,
                    sign_in=self._sign_in,
                )
                tools = await sdk.list_tools(session)
                self.resources, self.templates, self.prompts = await sdk.catalogue(session)
        except Exception as error:  # OSError, TimeoutError, the SDK's errors, a bad URL...
            self._fail(error)
            return False
        self._session, self.tools = session, tools
        self._set(ServerState.READY)
        self._settled.set()
        return True

    def _open_log(self) -> ServerLog:
        """The server's stderr log, appended to, secrets redacted (0600: a server may log what it was given)."""
        log = self._log = ServerLog(self.log_path, self._redact)
        log.write(f"--- {time.strftime('%Y-%m-%d %H:%M:%S')} starting {self.name} ---\n")
        self._log_start = log.tell()
        return log

    def _stray(self, line: str) -> None:
        """The server wrote a line that is not JSON-RPC: the first one is said (in its log, in the reason it
        fails, as a notice when it starts anyway); the SDK skips it."""
        if self.stray_output is not None:
            return
        self.stray_output = stray_sentence(line, stdio=self.settings.command is not None)
        if self._log is not None:  # redacted like the server's own lines: stdout may carry what it was given
            self._log.write(f"{OUR_NOTE}{self.stray_output}\n")

    async def _elicited(
        self, message: str, schema: dict[str, Any] | None, url: str | None
    ) -> tuple[Action, dict[str, Value] | None]:
        """The server asks the user for input: the question put to whoever answers (declined without one)."""
        if self._ask is None:
            return "decline", None
        answer = await self._ask(question_of(self.name, message, schema, url))
        return answer.action, answer.content

    async def _sampled(self, request: SamplingRequest) -> SamplingReply:
        """The server asks the model to answer a prompt: whoever answers decides (refused without one)."""
        if self._sample is None:
            raise SamplingDenied("tui-agent does not answer sampling requests here")
        return await self._sample(dataclasses.replace(request, server=self.name))

    def _server_logged(self, line: str) -> None:
        """A log message the server sent (not its stderr): into its log, redacted like the rest."""
        if self._log is not None:
            self._log.write(f"{OUR_NOTE_LOGGED}{line}\n")

    async def _tools_changed(self) -> None:
        """`tools/list_changed` (or prompts', or resources'): list again, off the SDK's receive loop (a request
        from inside it would wait for itself)."""
        asyncio.get_running_loop().create_task(self._relist(), name=f"mcp-relist:{self.name}")

    async def _relist(self) -> None:
        if self._session is None or self._sdk is None:
            return
        try:
            self.tools = await self._sdk.list_tools(self._session)
            self.resources, self.templates, self.prompts = await self._sdk.catalogue(self._session)
        except Exception:  # the next call will find out what is wrong
            return
        self._set(ServerState.READY)

    # -- calls --------------------------------------------------------------------------------------
    async def call(self, tool: str, /, **arguments: Any) -> str | ToolResult:
        """Call the server's tool `tool`; its result as text (with its images: a `ToolResult`). Failures raise
        with a sentence."""
        session = await self._session_for_call()
        assert self._sdk is not None
        try:
            text: str | ToolResult = await self._sdk.call_tool(session, tool, arguments)
        except self._sdk.CallError as error:
            if not is_connection_closed(error):
                raise McpCallError(f"{self.name}: {error}") from error
            self._crashed()
            raise McpCallError(
                f"The MCP server {self.name} stopped during the call{self._last_words()}; {self._next_step()}"
            ) from error
        return text

    async def read_resource(self, uri: str) -> str | ToolResult:
        """The resource at `uri` (text, or text and images); failures raise with a sentence."""
        session = await self._session_for_call()
        assert self._sdk is not None
        try:
            found: str | ToolResult = await self._sdk.read_resource(session, uri)
        except self._sdk.CallError as error:
            raise McpCallError(f"{self.name} could not read {uri}: {error}") from error
        return found

    async def get_prompt(self, name: str, arguments: dict[str, str]) -> list[tuple[str, str]]:
        """The prompt's messages as (role, text); failures raise with a sentence."""
        session = await self._session_for_call()
        assert self._sdk is not None
        try:
            messages: list[tuple[str, str]] = await self._sdk.get_prompt(session, name, arguments)
        except self._sdk.CallError as error:
            raise McpCallError(f"{self.name}'s prompt {name} failed: {error}") from error
        return messages

    async def _session_for_call(self) -> Any:
        if self.state == ServerState.READY and self.connection_lost():  # died since the last check
            self._crashed()
        if self.state == ServerState.CRASHED and not self.restarted and self._sdk is not None:
            self.restarted = True
            await self.stop(ServerState.CRASHED)
            self.start(self._sdk)
        await self.settled()
        if self.state != ServerState.READY or self._session is None:
            raise McpCallError(f"The MCP server {self.name} is not available ({self.describe()}).")
        return self._session

    def _crashed(self) -> None:
        words = self._last_words()
        state = ServerState.FAILED if self.restarted else ServerState.CRASHED
        self.reason = f"crashed again after a restart{words}" if self.restarted else f"stopped unexpectedly{words}"
        self._note_failure(state)
        self._set(state)
        self._stop.set()

    def _next_step(self) -> str:
        if self.state == ServerState.CRASHED:
            return "it will be restarted on the next call"
        return "it was restarted once already and is not restarted again (restart it from the MCP screen)"

    # -- reporting ----------------------------------------------------------------------------------
    def _fail(self, error: BaseException) -> None:
        why = explain(
            error, command=self.settings.command, url=self.settings.url, startup_timeout=self.settings.startup_timeout
        )
        stray = f"; it {self.stray_output}" if self.stray_output else ""
        if self._sign_ins is not None and (signing := self._sign_ins.failure(self._sign_in)):
            self.fail(signing)
            return
        self.fail(f"{why}{self._last_words()}{stray}")

    def fail(self, reason: str) -> None:
        """Mark the server failed with `reason` (it is not running, or never could start)."""
        self.reason = reason
        self._note_failure(ServerState.FAILED)
        self._set(ServerState.FAILED)
        self._begun.set()
        self._settled.set()

    def _note_failure(self, state: ServerState) -> None:
        """Write in the log what the notice says of the failure (the notice points at the log: it must say why)."""
        line = f"{OUR_NOTE}{state.value}: {self.reason}\n"
        if self._log is None or not self._log.write(line):
            append_note(self.log_path, line, self._redact)

    def _last_words(self) -> str:
        if self._log is not None:
            self._log.settle()  # the server's stderr reaches the file through a thread
        line = last_line(self.log_path, self._log_start)
        return f" (its last stderr line: {line!r})" if line else ""

    def _set(self, state: ServerState) -> None:
        self.state = state
        self._on_change(self)

    def needs_sign_in(self) -> bool:
        """Whether its last start stopped at a request for an OAuth sign-in that could not start."""
        return self._sign_in is not None and self._sign_in.needed

    def offered(self) -> list[str]:
        """Names of the tools offered to the model (`enabled_tools` / `disabled_tools` applied; those that need
        task support left out)."""
        return offered(self.settings, [tool.name for tool in callable_tools(self.tools)])

    def needing_tasks(self) -> list[str]:
        """Names of the tools left out because they can only run as tasks (`execution.taskSupport: required`)."""
        return offered(self.settings, [tool.name for tool in self.tools if needs_tasks(tool)])

    def tasks_note(self) -> str:
        """ "N tools need task support, which tui-agent does not offer yet", or empty when none does."""
        count = len(self.needing_tasks())
        if not count:
            return ""
        return f"{count} tool{'s need' if count != 1 else ' needs'} task support, which tui-agent does not offer yet"

    def describe(self, *, notes: bool = True) -> str:
        """The state as the MCP screen and `tui-agent plugins` say it (`notes`: with the tools left out)."""
        if self.state == ServerState.READY:
            count = len(self.offered())
            note = f"; {self.tasks_note()}" if notes and self.tasks_note() else ""
            return f"ready with {count} tool{'s' if count != 1 else ''}{note}"
        if self.reason and self.state in (ServerState.FAILED, ServerState.CRASHED):
            return f"{self.state.value}: {self.reason}"
        if self.state == ServerState.STARTING and self._sign_in is not None and self._sign_in.address:
            return f"waiting for you to sign in, in the browser: {self._sign_in.address}"
        return self.state.value
