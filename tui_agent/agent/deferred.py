"""Provides `DeferredAgent`: stands in for the `Agent` while it is being built, so the UI paints at once.

Building an agent imports the openai client (~650 ms), opens history, loads plugins and may start the
offline model. The UI gets this object immediately; `start()` builds the real agent in the
background, `send()` waits for it, and a failure to build becomes an error shown inline, never a crash.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import TYPE_CHECKING, Any, Protocol

from tui_agent.agent.deferred_sessions import DeferredSessions
from tui_agent.agent.tree import PendingTreeObservers

if TYPE_CHECKING:  # the agent (and what it imports, events too) loads after the first paint, with the build
    from tui_agent.agent.agent import Agent
    from tui_agent.agent.events import AgentEvent
    from tui_agent.agent.tree import TreeObserver, Unsubscribe
    from tui_agent.tools.mcp.servers import McpServers


class BuiltAgent(Protocol):
    """What the builder returns: the agent, notices for the user, and how to shut it all down."""

    agent: Agent
    notices: list[str]

    async def close(self) -> None: ...


class DeferredAgent(DeferredSessions):
    """A `ChatBackend` that builds the real agent after start-up and forwards to it."""

    def __init__(
        self, build: Callable[[], Coroutine[Any, Any, BuiltAgent]], *, model: str, endpoint: str,
        notices: list[str] | None = None,
    ) -> None:
        self._build = build
        self._model, self._endpoint = model, endpoint
        self._early_notices = list(notices or [])
        self._task: asyncio.Task[BuiltAgent] | None = None
        self._started = asyncio.Event()
        self._built: BuiltAgent | None = None
        self._closed = False
        self._picked_model: str | None = None
        self._tree_observers = PendingTreeObservers()
        self.failure: str | None = None
        """Why the agent could not be built, if it could not."""
        self.on_notice: Callable[[str], None] | None = None
        """Told each start-up notice that arrives after the first paint, and each notice of history's
        afterwards (disk full, saved again...); the app shows a notification."""
        self._unsaved_observers: list[Callable[[str | None], None]] = []

    @property
    def agent(self) -> Agent | None:
        return self._built.agent if self._built else None

    @property
    def mcp_servers(self) -> McpServers | None:
        """The MCP servers of the run, once the agent is built (for the MCP screen)."""
        return self.agent.mcp if self.agent is not None else None

    @property
    def model(self) -> str:
        return self.agent.model if self.agent else self._model

    @property
    def endpoint(self) -> str:
        return self.agent.endpoint if self.agent else self._endpoint

    @property
    def session_title(self) -> str:
        if self.agent is not None:
            return self.agent.session_title
        return self.peeked.session.title if self.peeked is not None else "New session"

    @property
    def session_usage(self) -> tuple[int, int]:
        if self.agent is not None:
            return self.agent.session_usage
        usage = self.peeked.usage if self.peeked is not None else None
        return (usage.prompt_tokens, usage.completion_tokens) if usage is not None else (0, 0)

    @property
    def notices(self) -> list[str]:
        """Things the user should know about start-up (recovered history, plugin problems...)."""
        return self._early_notices + (self._built.notices if self._built else [])

    @property
    def alarms(self) -> list[str]:
        """History's notices worth repeating after the app has gone (a file moved aside), once built."""
        return self.agent.store.report.alarms() if self.agent is not None else []

    def start(self) -> None:
        """Begin building in the background (idempotent); the UI calls it once it has painted."""
        self._building()

    def _building(self) -> asyncio.Task[BuiltAgent]:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._build_and_announce(), name="build-agent")
            self._started.set()
        return self._task

    async def _build_and_announce(self) -> BuiltAgent:
        try:
            built = await self._build()
        except Exception as error:
            self.failure = f"tui-agent could not start its engine: {error}"
            self._announce([self.failure])
            raise
        if self._picked_model is not None:  # a model picked while the agent was being built
            built.agent.switch_model(self._picked_model)
        self._tree_observers.attach(built.agent.subscribe_tree)
        self._built = built
        self._announce(built.notices)
        if built.agent.mcp is not None:  # MCP servers start after this; their news arrives as it happens
            built.agent.mcp.watch(lambda notice: self._announce([notice]))
        self._follow_history(built.agent)
        return built

    def _follow_history(self, agent: Agent) -> None:
        """History's later notices become notifications; its unsaved state goes to the watchers."""
        agent.store.on_notice = lambda notice: self._announce([notice])
        agent.store.on_state = self._unsaved_changed
        self._unsaved_changed()

    def _unsaved_changed(self) -> None:
        unsaved = self.agent.store.unsaved if self.agent is not None else None
        for observer in list(self._unsaved_observers):
            observer(unsaved)

    def watch_unsaved(self, observer: Callable[[str | None], None]) -> Unsubscribe:
        """Tell `observer` what history is not saving, now and on each change (from when the engine exists)."""
        self._unsaved_observers.append(observer)
        if self.agent is not None:
            observer(self.agent.store.unsaved)

        def stop() -> None:
            if observer in self._unsaved_observers:
                self._unsaved_observers.remove(observer)

        return stop

    def _announce(self, notices: list[str]) -> None:
        if self.on_notice is not None:
            for notice in notices:
                self.on_notice(notice)

    async def ready(self) -> Agent | None:
        """Wait for the agent; None (with `failure` set) if it could not be built."""
        if self._built is None and self.failure is None:
            try:
                await self._building()
            except Exception:
                return None
        return self.agent

    async def built(self) -> Agent | None:
        """Like `ready`, but never the one to begin the build: waits for `start` (or a request) to."""
        await self._started.wait()
        return await self.ready()

    def send(self, prompt: str) -> AsyncIterator[AgentEvent]:
        return self._forward(lambda agent: agent.send(prompt))

    def retry(self) -> AsyncIterator[AgentEvent]:
        return self._forward(lambda agent: agent.retry())

    def continue_reply(self) -> AsyncIterator[AgentEvent]:
        return self._forward(lambda agent: agent.continue_reply())

    async def _forward(self, turn: Callable[[Agent], AsyncIterator[AgentEvent]]) -> AsyncIterator[AgentEvent]:
        """The agent's turn once it is built; a failed build ends the turn with its sentence."""
        agent = await self.ready()
        if agent is None:
            from tui_agent.agent.events import TurnEndReason, TurnFinished

            yield TurnFinished(TurnEndReason.ERROR, self.failure)
            return
        async for event in turn(agent):
            yield event

    def cancel(self) -> None:
        if self.agent is not None:
            self.agent.cancel()

    def subscribe_tree(self, observer: TreeObserver) -> Unsubscribe:
        """Follow the agent's task tree; works before the agent is built (the subscription waits for it)."""
        return self._tree_observers.subscribe(observer)

    def cancel_node(self, node_id: int | str) -> bool:
        return self.agent.cancel_node(node_id) if self.agent is not None else False

    async def list_models(self) -> list[str]:
        """The endpoint's models (waits for the agent); a failed build is raised as its sentence."""
        agent = await self.ready()
        if agent is None:
            raise RuntimeError(self.failure or "tui-agent could not start its engine.")
        return await agent.list_models()

    def switch_model(self, name: str) -> None:
        """Use `name` from the next request on (remembered until the agent is built)."""
        self._model = self._picked_model = name
        if self.agent is not None:
            self.agent.switch_model(name)

    async def close(self) -> None:
        """Shut down whatever was built, once; a build still running is cancelled and waited for.

        Waiting matters: the history store runs a non-daemon thread until it is closed, and a process
        with one left running never exits.
        """
        if self._task is not None and not self._task.done():
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        if self._built is not None and not self._closed:
            self._closed = True
            await self._built.close()
