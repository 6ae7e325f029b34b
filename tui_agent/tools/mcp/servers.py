"""Provides `McpServers`: every configured MCP server of a run, started in the background, as a tool source.

`start()` returns at once: a background task imports the SDK in a thread (about a second) and starts
every enabled server, the processes a few at a time (`StartQueue`: twenty at once on two cores all
missed their start-up timeout). Each server's tools enter the `ToolRegistry` when it is ready (and
leave when it fails or is turned off), under `server__tool` when the name is taken. A turn does not wait for
servers still starting (`ToolRegistry.settled_for`): it is sent with the tools that are ready, unless its prompt
names a starting server (or a tool it had before a restart); then it waits for that one, bounded by its
`startup_timeout` counted from its turn to start (`still_starting` says which are starting; `watch_starting`
tells the status bar). What the user should know (a server failed, crashed, tools too large for the context,
tools left out because they can only run as tasks) arrives as notices for whoever `watch`es: a UI
notification, or stderr for `-p`.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import logging
import re
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from tui_agent.config import McpServerSettings
from tui_agent.payloads import Attachment
from tui_agent.tools.mcp.known_tools import KnownTools
from tui_agent.tools.mcp.log import Redact
from tui_agent.tools.mcp.oauth_desk import SignInDesk, login_hint
from tui_agent.tools.mcp.oauth_tokens import token_folder
from tui_agent.tools.mcp.sampling import Sampling
from tui_agent.tools.mcp.server_state import ServerState
from tui_agent.tools.mcp.specs import plugin_of, resource_spec, safe_name, tool_specs
from tui_agent.tools.mcp.start_queue import StartQueue
from tui_agent.tools.registry import ToolRegistry
from tui_agent.tools.schema_tool import SchemaToolSpec

if TYPE_CHECKING:
    from tui_agent.tools.mcp.elicitation import Answer, Asker, Question
    from tui_agent.tools.mcp.overview import ServerOverview
    from tui_agent.tools.mcp.resource_picks import ResourcePick
    from tui_agent.tools.mcp.server import McpServer

SDK_MODULE = "tui_agent.tools.mcp.session"
OAUTH_MODULE = "tui_agent.tools.mcp.oauth"
SETTLE_MARGIN = 5.0
"""Seconds beyond a server's `startup_timeout` a turn waits for it (the SDK import comes first)."""
Listener = Callable[[str], None]
StartingListener = Callable[[list[str]], None]
log = logging.getLogger("tui_agent.tools.mcp.servers")


class McpServers:
    """The run's MCP servers, by name."""

    def __init__(
        self,
        configured: Mapping[str, McpServerSettings],
        registry: ToolRegistry,
        log_dir: Path,
        *,
        redact: Redact,
        queue: StartQueue | None = None,
    ) -> None:
        """`redact`: what each server's stderr goes through on its way to its log (history's redaction);
        `queue`: how many server processes start at once (default: a core each, one left for the app)."""
        self.registry = registry
        self.queue = queue if queue is not None else StartQueue()
        self.sampling = Sampling(on_denied=lambda sentence: self._say("", sentence))
        """How the servers' sampling requests are approved and answered (the build sets the model, the app the
        dialog; `-p` its `--allow-sampling` servers)."""
        self.sign_ins = SignInDesk(token_folder(log_dir), self._say)
        """The servers' OAuth sign-ins: kept beside their logs; started only once `allow_sign_ins` is called."""
        if configured:
            # deferred: a server's machinery (~10 ms of classes) is for runs that configure one; `-p` with none skips it
            from tui_agent.tools.mcp.server import McpServer
        self.servers: dict[str, McpServer] = {
            name: McpServer(
                name,
                settings,
                log_dir,
                self._changed,
                redact=redact,
                ask=self._ask,
                sample=self.sampling.answer,
                sign_ins=self.sign_ins,
                queue=self.queue,
            )
            for name, settings in configured.items()
        }
        self._sdk: ModuleType | None = None
        self._loading: asyncio.Task[None] | None = None
        self._notices: list[str] = []
        self._listeners: list[Listener] = []
        self._starting_listeners: list[StartingListener] = []
        self._starting_said: list[str] | None = None
        self._said: set[tuple[str, str]] = set()
        self._budget_warned = False
        self.asker: Asker | None = None
        """Who answers a server's request for the user's input (the app's form); None: declined, and said."""
        self.known_tools = KnownTools(log_dir)
        self._sign_in_tasks: set[asyncio.Task[None]] = set()
        """The tool names each server offered when last ready (other runs included)."""
        registry.add_waiter(self.settled, for_prompt=self.settled_for)

    # -- life ---------------------------------------------------------------------------------------
    def start(self) -> None:
        """Start every enabled server in the background (returns at once)."""
        if self._loading is None and any(server.settings.enabled for server in self.servers.values()):
            self._loading = asyncio.get_running_loop().create_task(self._start_all(), name="mcp-servers")

    async def _start_all(self) -> None:
        # The SDK import is a second or two of CPU; in a thread, the app stays responsive meanwhile.
        starting = [server for server in self.servers.values() if server.state == ServerState.STARTING]
        try:
            sdk = await self._load()
        except Exception as error:  # a broken install: every server fails with the reason, nothing else does
            for server in starting:
                server.fail(
                    f"the MCP SDK cannot be loaded ({type(error).__name__}: {error}); "
                    "reinstall tui-agent (pip install mcp)"
                )
            return
        for server in starting:
            server.start(sdk)

    async def settled(self) -> None:
        """Wait for the servers still starting, each at most its `startup_timeout` (plus a margin)."""
        starting = [server for server in self.servers.values() if server.state == ServerState.STARTING]
        if not starting:
            return
        if self._loading is not None:
            await asyncio.shield(self._loading)
        with self.queue.urgent():  # nothing else to draw meanwhile: the app's core starts one too
            await asyncio.gather(*(self._settle(server) for server in starting))

    async def settled_for(self, prompt: str) -> None:
        """Wait only for the servers still starting that `prompt` names (`named_in`), and for those never seen
        ready (nothing says what they offer)."""
        named = [
            server
            for server in self.still_starting_servers()
            if named_in(prompt, server.name, self.known_tools.of(server.name))
        ]
        if not named:
            return
        if self._loading is not None:
            await asyncio.shield(self._loading)
        with self.queue.urgent():
            await asyncio.gather(*(self._settle(server) for server in named))

    def still_starting_servers(self) -> list[McpServer]:
        return [server for server in self.servers.values() if server.state == ServerState.STARTING]

    def still_starting(self) -> list[str]:
        """The names of the servers still starting (a turn sent meanwhile goes without their tools)."""
        return [server.name for server in self.still_starting_servers()]

    def watch_starting(self, listener: StartingListener) -> Callable[[], None]:
        """Tell `listener` the servers still starting now and whenever that list changes (empty: none is); returns
        how to stop (idempotent)."""
        self._starting_listeners.append(listener)
        listener(self.still_starting())

        def stop() -> None:
            if listener in self._starting_listeners:
                self._starting_listeners.remove(listener)

        return stop

    def _tell_starting(self) -> None:
        starting = self.still_starting()
        if starting == self._starting_said:
            return
        self._starting_said = starting
        for listener in list(self._starting_listeners):
            try:
                listener(starting)
            except Exception:  # a broken view never holds up a server
                log.exception("a listener to the starting servers failed")

    async def _settle(self, server: McpServer) -> None:
        await server.begun()  # its turn to start comes first (each start before it is bounded: `StartQueue`)
        try:
            await asyncio.wait_for(server.settled(), server.settings.startup_timeout + SETTLE_MARGIN)
        except TimeoutError:  # the server's own timeout should have fired; never hold a turn longer
            pass

    async def restart(self, name: str) -> None:
        """Restart one server by hand (the MCP screen); a disabled one is started for this run."""
        server = self.servers[name]
        sdk = await self._load()
        await server.stop()
        server.restarted = False
        server.start(sdk)
        await server.settled()

    async def toggle(self, name: str) -> None:
        """Turn a server off (its tools leave) or on again, for this run only."""
        server = self.servers[name]
        if server.state == ServerState.DISABLED:
            server.start(await self._load())
            await server.settled()
        else:
            await server.stop(ServerState.DISABLED)

    def allow_sign_ins(self) -> None:
        """Someone can open a sign-in's address from now on (the app): OAuth sign-ins may start, and servers
        whose entry says `auth = "oauth"` that stopped (or stop) for want of one start again."""
        self.sign_ins.interactive = True
        for server in self.servers.values():
            if server.settings.auth == "oauth" and server.state in (ServerState.STARTING, ServerState.FAILED):
                task = asyncio.get_running_loop().create_task(self._sign_in_after_start(server.name))
                self._sign_in_tasks.add(task)
                task.add_done_callback(self._sign_in_tasks.discard)

    async def _sign_in_after_start(self, name: str) -> None:
        if self._loading is not None:  # the servers' start (which makes the events `settled` waits on)
            await asyncio.shield(self._loading)
        server = self.servers[name]
        await server.settled()
        if server.state == ServerState.FAILED and server.needs_sign_in():
            await self.restart(name)

    async def sign_in(self, name: str) -> None:
        """Sign in to server `name` now, whatever its `auth` (the MCP screen): it restarts, and its sign-in
        starts when it asks for one."""
        self.sign_ins.wanted.add(name)
        await self.restart(name)

    async def sign_out(self, name: str) -> str:
        """Revoke and forget server `name`'s sign-in, and stop it; what was done, as a sentence."""
        server = self.servers[name]
        tokens = self.sign_ins.tokens(name, server.settings)
        if tokens is None:
            return f"{name} does not sign in with OAuth"
        await self._load()  # the SDK first: oauth.py uses it
        oauth = importlib.import_module(OAUTH_MODULE)
        said: str = await oauth.sign_out(tokens, server.settings)
        self.sign_ins.wanted.discard(name)
        await server.stop()
        server.fail(f"signed out; {login_hint(name)} to sign in again")
        return f"{name}: {said}"

    async def _load(self) -> ModuleType:
        if self._sdk is None:
            self._sdk = await asyncio.to_thread(importlib.import_module, SDK_MODULE)
        return self._sdk

    async def close(self) -> None:
        """Stop every server (concurrently, each bounded)."""
        for task in list(self._sign_in_tasks):
            task.cancel()
        if self._loading is not None and not self._loading.done():
            self._loading.cancel()
            await asyncio.gather(self._loading, return_exceptions=True)
        await asyncio.gather(
            *(
                server.stop()
                for server in self.servers.values()
                if server.state not in (ServerState.DISABLED, ServerState.STOPPED)
            ),
            return_exceptions=True,
        )

    async def _ask(self, question: Question) -> Answer:
        # deferred: only a running server asks; a run without servers never loads the forms' classes
        from tui_agent.tools.mcp.elicitation import Answer, unanswered

        if self.asker is None:
            self._say(question.server, unanswered(question))
            return Answer("decline")
        return await self.asker(question)

    # -- tools and notices --------------------------------------------------------------------------
    def _changed(self, server: McpServer) -> None:
        if server.state == ServerState.READY:
            self.known_tools.remember(server.name, [getattr(tool, "name", "") for tool in server.tools])
        if server.state in (ServerState.READY, ServerState.CRASHED):  # a crashed server's tools restart it
            specs = tool_specs(server.name, server.settings, server.tools, server.call)
            if server.resources or server.templates:
                read = server.read_resource
                specs.append(resource_spec(server.name, server.settings, server.resources, server.templates, read))
            clashes = self.registry.replace_source(plugin_of(server.name), specs, prefix=safe_name(server.name))
            if clashes:  # one notice per server, not one per tool
                renamed = sorted(
                    spec.name
                    for spec in self.registry.specs_of(plugin_of(server.name))
                    if isinstance(spec, SchemaToolSpec) and spec.name != safe_name(spec.original_name)
                )
                self._say(
                    server.name,
                    f"MCP server {server.name}: {len(clashes)} tool name(s) already taken; "
                    f"offered as {', '.join(renamed) or 'nothing'} (see `tui-agent plugins`).",
                )
            if server.stray_output and server.state == ServerState.READY:
                self._say(server.name, f"MCP server {server.name} {server.stray_output} (skipped).")
            if cut := self.capped(server.name):
                cap = self.registry.settings.description_cap
                self._say(
                    server.name,
                    f"MCP server {server.name}: the description of {', '.join(cut)} is longer than {cap:,} "
                    "characters; the model is sent the start of it (tools.description_cap).",
                )
            if note := server.tasks_note():
                left_out = ", ".join(server.needing_tasks())
                self._say(server.name, f"MCP server {server.name}: {note}; left out: {left_out}.")
        else:
            self.registry.remove_source(plugin_of(server.name))
        if server.state in (ServerState.FAILED, ServerState.CRASHED):
            self._say(server.name, f"MCP server {server.name} {server.describe()}. Its log: {server.log_path}")
        self._check_budget()
        self._tell_starting()

    def capped(self, name: str) -> list[str]:
        """The offered tools of server `name` whose description was cut (`[tools] description_cap`)."""
        specs = self.registry.specs_of(plugin_of(name))
        return sorted(spec.name for spec in specs if spec.name in self.registry.capped)

    def _check_budget(self) -> None:
        budget = self.registry.settings.schema_budget
        sizes: dict[str, int] = {}
        for name in self.registry.names():
            spec = self.registry.get(name)
            if spec is not None:
                sizes[spec.source] = sizes.get(spec.source, 0) + len(json.dumps(spec.openai_tool()))
        total = sum(sizes.values())
        if self._budget_warned or total <= budget:
            return
        self._budget_warned = True
        largest = ", ".join(
            f"{source} ({size:,})" for source, size in sorted(sizes.items(), key=lambda item: -item[1])[:3]
        )
        self._say(
            "",
            f"The tools offered to the model take {total:,} characters of schema (budget {budget:,}); "
            f"largest: {largest}. List the tools you need in `enabled_tools` of [mcp_servers.NAME].",
        )

    def _say(self, key: str, notice: str) -> None:
        if (key, notice) in self._said:
            return
        self._said.add((key, notice))
        self._notices.append(notice)
        for listener in list(self._listeners):
            listener(notice)

    def watch(self, listener: Listener) -> None:
        """Tell `listener` every notice so far, and each new one."""
        for notice in self._notices:
            listener(notice)
        self._listeners.append(listener)

    def summary(self) -> list[dict[str, Any]]:
        """Each server as plain data: name, state, its sentence, tool count, the tools left out because they need
        task support, log (for `plugins --json`)."""
        return [
            {
                "name": server.name,
                "state": server.state.value,
                "status": server.describe(),
                "tools": len(server.offered()),
                "needs_tasks": server.needing_tasks(),
                "reason": server.reason,
                "log": str(server.log_path),
                "transport": "stdio" if server.settings.command is not None else "http",
            }
            for server in self.servers.values()
        ]

    def resource_picks(self) -> list[ResourcePick]:
        """The resources and templates of every ready server, server by server (what the @-picker lists)."""
        # deferred: only ready servers have resources; a run without servers never loads the picker's classes
        from tui_agent.tools.mcp.resource_picks import resource_picks

        return [
            pick
            for server in self.servers.values()
            if server.state == ServerState.READY
            for pick in resource_picks(server.name, server.resources, server.templates)
        ]

    async def resource_attachments(self, server: str, uri: str, max_bytes: int) -> list[Attachment]:
        """Server `server`'s resource at `uri`, read and made attachments (`McpCallError` with a sentence when it
        cannot be read)."""
        # deferred: as `resource_picks`: a run without servers never reads a resource
        from tui_agent.tools.mcp.resource_picks import attachments_of

        return attachments_of(uri, await self.servers[server].read_resource(uri), max_bytes)

    def overview(self, name: str) -> ServerOverview:
        """Server `name` as the MCP screen details it: how it is reached, its state, its tools, its sign-in."""
        # deferred: the MCP screen's details (and the server machinery they read) are for runs with servers
        from tui_agent.tools.mcp.overview import overview

        server = self.servers[name]
        return replace(overview(server), sign_in=self.sign_ins.state(name, server.settings))


def named_in(prompt: str, server: str, tools: list[str] | None) -> bool:
    """Whether `prompt` names `server` or one of `tools` (its tools when last ready) as a word, case aside; True
    when `tools` is None (never seen ready: any prompt may need it)."""
    if tools is None:
        return True
    words = set(re.findall(r"[\w.-]+", prompt.lower()))
    return any(name.lower() in words for name in (server, *tools) if name) or any(
        word.startswith(f"{safe_name(server)}__".lower()) for word in words
    )
