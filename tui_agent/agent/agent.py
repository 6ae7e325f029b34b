"""Provides `Agent`: a chat session driven by commander jobs, as the UI (and `-p`) sees it.

`send(prompt)` persists the prompt, puts a `ChatJob` on the commander (which runs inside the caller's
event loop) and yields the turn's events until `TurnFinished`. `cancel()` cancels the turn's subtree;
`set_approver()` plugs in the UI's approval modal. The agent implements `tui_agent.ui.backend.ChatBackend`.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any

from tui_agent.agent.conversation import Conversation
from tui_agent.agent.events import AgentEvent, ToolCallUpdated, ToolStatus, TurnFinished, TurnStarted
from tui_agent.agent.sessions import SessionActions
from tui_agent.agent.tree import TreeFeed, TreeObserver, Unsubscribe
from tui_agent.agent.turn import SessionTotals, Turn, TurnBudget, TurnServices
from tui_agent.agent.turn_jobs import ChatJob
from tui_agent.commander import CommanderAsync
from tui_agent.history.models import Session
from tui_agent.history.store import HistoryStore
from tui_agent.tools.calls import ApprovalRequest, Decision
from tui_agent.tools.registry import ToolRegistry
from tui_agent.tools.runner import ToolRunner

if TYPE_CHECKING:  # the openai client is imported only when a client is built
    from tui_agent.llm.client import ChatClient
    from tui_agent.tools.mcp.servers import McpServers

Approver = Callable[[ToolCallUpdated], Awaitable[Any]]
TITLE_LENGTH = 60


def title_from_prompt(prompt: str) -> str:
    """A session title from the first prompt: its first non-empty line, shortened on a word boundary."""
    line = next((part.strip() for part in prompt.splitlines() if part.strip()), "New session")
    if len(line) <= TITLE_LENGTH:
        return line
    return line[:TITLE_LENGTH].rsplit(" ", 1)[0].rstrip(" ,.;:") + "…"


class TurnInProgressError(RuntimeError):
    """`send` was called while a turn is still running."""


class SessionNotFoundError(LookupError):
    """No stored session has the given id (or id prefix)."""


class Agent(SessionActions):
    """One chat session: its conversation, history, tools and the commander running its turns."""

    def __init__(
        self, *, client: ChatClient, registry: ToolRegistry, store: HistoryStore, endpoint_label: str,
        runner: ToolRunner | None = None, budget: TurnBudget | None = None, system_prompt: str | None = None,
        missing_key_message: str | None = None,
    ) -> None:
        self.client, self.registry, self.store = client, registry, store
        self.runner = runner or ToolRunner(registry)
        self.budget = budget or TurnBudget()
        self.system_prompt = system_prompt
        self._endpoint_label = endpoint_label
        self._services = TurnServices(client, self.runner, store, client.model,
                                      missing_key_message=missing_key_message)
        self._commander: CommanderAsync[Any] = CommanderAsync()
        self._tree = TreeFeed(self._commander)
        self._commander_task: asyncio.Task[Any] | None = None
        self._conversation = Conversation(system_prompt)
        self._session: Session | None = None
        self._job: ChatJob | None = None
        self._approver: Approver | None = None
        self.mcp: McpServers | None = None
        """The run's MCP servers (a tool source; their notices and the MCP screen go through it)."""

    # -- what the status bar shows ------------------------------------------------------------------
    @property
    def model(self) -> str:
        return self.client.model

    @property
    def endpoint(self) -> str:
        return self._endpoint_label

    @property
    def session_title(self) -> str:
        return self._session.title if self._session and self._session.title else "New session"

    @property
    def session_usage(self) -> tuple[int, int]:
        """Tokens (in, out) this session has used, turns of earlier runs included."""
        totals = self._services.totals
        return totals.prompt_tokens, totals.completion_tokens

    @property
    def session(self) -> Session | None:
        return self._session

    @property
    def commander(self) -> CommanderAsync[Any]:
        """The commander running this agent's turns (the task-tree view observes it)."""
        return self._commander

    @property
    def conversation(self) -> Conversation:
        """What the model is sent next turn (read it; only turns change it)."""
        return self._conversation

    @property
    def busy(self) -> bool:
        return self._job is not None

    # -- intents ------------------------------------------------------------------------------------
    async def resume(self, session_id: str) -> Session:
        """Continue a stored session: the model gets its whole history, tool calls and results included."""
        if self._job is not None:
            raise TurnInProgressError("A reply is still running: press Esc to stop it first.")
        session = await self.store.get_session(session_id)
        if session is None:
            raise SessionNotFoundError(f"There is no session {session_id!r} (see `tui-agent sessions list`).")
        stored = await self.store.load_tail(session.id, await self.store.count_messages(session.id))
        self._session = session
        self._conversation = Conversation.from_history(stored, session.system_prompt)
        self._services.totals = SessionTotals.of(stored)
        return session

    def set_approver(self, approver: Approver | None) -> None:
        """Plug in the UI's approval question; None means non-interactive (`ask` tools are denied)."""
        self._approver = approver
        self.runner.approval = self._approve if approver is not None else None

    def cancel(self) -> None:
        """Cancel the running turn: streaming stops, running tools are cancelled, the reply is kept."""
        if self._job is not None:
            self._job.cancel()

    def subscribe_tree(self, observer: TreeObserver) -> Unsubscribe:
        """Follow the turns' task tree (node events and tool-call updates); returns how to stop."""
        return self._tree.subscribe(observer)

    def cancel_node(self, node_id: int | str) -> bool:
        """Cancel one running node of the tree and its subtree; the turn carries on with what is left."""
        return self._tree.cancel(node_id)

    async def list_models(self) -> list[str]:
        """Model ids the endpoint offers (an `LLMError` with a sentence when it cannot say)."""
        return await self.client.list_models()

    def switch_model(self, name: str) -> None:
        """Ask `name` from the next request on; the conversation (the context) is kept as it is."""
        self.client.model = name
        self._services.model = name  # the model recorded with each new reply

    async def send(self, prompt: str) -> AsyncIterator[AgentEvent]:
        """Run one turn for `prompt`, yielding its events; closing the iterator early cancels the turn."""
        if self._job is not None:
            raise TurnInProgressError("A reply is still running: press Esc to stop it first.")
        session = await self._ensure_session(prompt)
        user, reply = await self.store.begin_turn(session.id, prompt, model=self.model)
        self._conversation.add_user(prompt)
        events: asyncio.Queue[AgentEvent] = asyncio.Queue()
        turn = Turn(self._services, session.id, self._conversation, self.budget, self._tree.tee(events.put_nowait))
        yield TurnStarted(session.id, user.id, prompt)
        turn.attach_message(reply.id)
        self._job = ChatJob(turn)
        await self._start_commander()
        await self._commander.put_job(self._job, parent=self._commander)
        try:
            while not isinstance(event := await events.get(), TurnFinished):
                yield event
            yield event
        finally:
            await self._settle(turn)

    async def _settle(self, turn: Turn) -> None:
        job, self._job = self._job, None
        if job is not None and not turn.finished:
            job.cancel()
            await job.wait()

    async def _ensure_session(self, prompt: str) -> Session:
        if self._session is None:
            self._session = await self.store.create_session(
                title=title_from_prompt(prompt), model=self.model, endpoint=self.endpoint,
                system_prompt=self.system_prompt)
        return self._session

    async def _start_commander(self) -> None:
        if self._commander_task is None or self._commander_task.done():
            self._commander_task = asyncio.create_task(self._commander.run_async(), name="agent-commander")
            await asyncio.sleep(0)  # let it start before the first job arrives

    async def _approve(self, request: ApprovalRequest) -> Decision:
        assert self._approver is not None
        message_id = self._job.turn.message_id if self._job is not None else ""
        arguments = json.dumps(dict(request.arguments), ensure_ascii=False, indent=2)
        update = ToolCallUpdated(request.call_id, message_id, request.tool_name, arguments,
                                 ToolStatus.AWAITING_APPROVAL, command=request.command)
        return Decision(str(await self._approver(update)))

    async def close(self) -> None:
        """Cancel any running turn, stop the commander and flush history."""
        self.cancel()
        if self._commander_task is not None:
            self._commander.exit()
            await asyncio.gather(self._commander_task, return_exceptions=True)
        await self.store.flush()
