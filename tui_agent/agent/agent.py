"""Provides `Agent`: a chat session driven by commander jobs, as the UI (and `-p`) sees it.

`send(prompt)` persists the prompt, puts a `ChatJob` on the commander (which runs inside the caller's
event loop) and yields the turn's events until `TurnFinished`. The session is a tree and the model gets its
active branch: `edit`, `regenerate`, `retry` and `continue_reply` (`RedoTurns`) write a new version of a
prompt or a reply on a new branch, and run their turns here. `cancel()` cancels the turn's subtree. A tool
call that needs the user's approval is asked in the stream: an `ApprovalRequested` event whose future the
caller resolves. Every event carries its turn's id, and a turn's stream yields only its own events, ending at
its own `TurnFinished`. With the session actions of `SessionActions`, the redone turns of `RedoTurns`, the
context windows and compaction of `ContextUpkeep` and the agents and teams of `AgentChoice`, the agent
implements the UI's port,
`tui_agent.agent.port.ChatBackend` (mypy checks it where `services.BuiltAgent.backend` returns the agent as one).
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any

from tui_agent.agent.agent_choice import AgentChoice
from tui_agent.agent.context_upkeep import ContextUpkeep
from tui_agent.agent.conversation import Conversation
from tui_agent.agent.events import (
    AgentEvent,
    TurnFinished,
    TurnStarted,
)
from tui_agent.agent.meter import Meter, SessionMeter, estimate_tokens
from tui_agent.agent.model_choice import chat_models
from tui_agent.agent.observers import Observers
from tui_agent.agent.port import NoticeObserver
from tui_agent.agent.profile_use import AgentRoster, AgentSetup
from tui_agent.agent.redo import NothingToRedoError as NothingToRedoError
from tui_agent.agent.redo import RedoTurns
from tui_agent.agent.sessions import SessionActions
from tui_agent.agent.tree import TreeFeed, TreeObserver, Unsubscribe
from tui_agent.agent.turn import DEFAULT_AGENT_NAME, Continuation, SessionTotals, Turn, TurnBudget, TurnServices
from tui_agent.agent.turn_jobs import ChatJob
from tui_agent.agents.profiles import Catalog
from tui_agent.commander import CommanderAsync, Job
from tui_agent.errors import UserError
from tui_agent.history.attachments import Attachment
from tui_agent.history.models import Session
from tui_agent.history.store import HistoryStore
from tui_agent.tools.registry import ToolRegistry
from tui_agent.tools.runner import ToolRunner

if TYPE_CHECKING:  # the openai client is imported only when a client is built; delegation imports this module
    from tui_agent.agent.delegation import Delegation
    from tui_agent.llm.model_client import ModelClient

TITLE_LENGTH = 60


def title_from_prompt(prompt: str) -> str:
    """A session title from the first prompt: its first non-empty line, shortened on a word boundary."""
    line = next((part.strip() for part in prompt.splitlines() if part.strip()), "New session")
    if len(line) <= TITLE_LENGTH:
        return line
    return line[:TITLE_LENGTH].rsplit(" ", 1)[0].rstrip(" ,.;:") + "…"


async def turn_events(events: asyncio.Queue[AgentEvent], turn_id: str) -> AsyncIterator[AgentEvent]:
    """The events of turn `turn_id` from `events`, up to and including its own `TurnFinished`; another turn's
    events (a nested turn's) are left out, and its end does not end this stream."""
    while True:
        event = await events.get()
        if event.turn_id != turn_id:
            continue
        yield event
        if isinstance(event, TurnFinished):
            return


class TurnInProgressError(UserError, RuntimeError):
    """`send` was called while a turn is still running."""


class SessionNotFoundError(LookupError):
    """No stored session has the given id (or id prefix)."""


class Agent(AgentChoice, RedoTurns, ContextUpkeep, SessionActions):
    """One chat session: its conversation, history, tools and the commander running its turns."""

    def __init__(
        self,
        *,
        client: ModelClient,
        registry: ToolRegistry,
        store: HistoryStore,
        endpoint_label: str,
        runner: ToolRunner | None = None,
        budget: TurnBudget | None = None,
        system_prompt: str | None = None,
        missing_key_message: str | None = None,
        roster: AgentRoster | None = None,
        setup: AgentSetup | None = None,
        delegation: Delegation | None = None,
        meter: SessionMeter | None = None,
    ) -> None:
        self.client, self.registry, self.store = client, registry, store
        self.runner = runner or ToolRunner(registry)
        self.budget = budget or TurnBudget()
        self.system_prompt = system_prompt
        self._endpoint_label = endpoint_label
        self._services = TurnServices(
            client,
            self.runner,
            store,
            client.model,
            missing_key_message=missing_key_message,
            meter=meter or SessionMeter(),
        )
        self._compacting = False
        self._windows_task: asyncio.Task[None] | None = None
        self._commander: CommanderAsync[Any] = CommanderAsync()
        self._tree = TreeFeed(self._commander)
        self._commander_task: asyncio.Task[Any] | None = None
        self._conversation = Conversation(system_prompt)
        self._session: Session | None = None
        self._team_stops = {}
        self._job: Job | None = None
        """The running turn's job (a `ChatJob`, or a team's `TeamJob`)."""
        self._turn_slot = TurnSlot(self._turn_begins)
        """Held by a turn from its start until its stream ends: a turn asked for meanwhile waits (`_one_turn`)."""
        self._cancel_asked = False
        """`cancel` came while the turn was being set up (session, prompt, context windows): no job to cancel
        yet, so its job is cancelled as soon as it is on the commander (`_start_job`)."""
        self._ended: Turn | None = None
        """The last turn: its end is announced before its final writes are committed (`Turn.end`)."""
        self._turn_ids = itertools.count(1)
        self._notices: Observers[str] = Observers()
        self._unsaved: Observers[str | None] = Observers()
        store.on_notice = self._notices.tell
        store.on_state = lambda: self._unsaved.tell(store.unsaved)
        self.roster = roster
        self._setup: AgentSetup | None = None
        self.delegation = delegation
        """The agents the session's agent may ask (`ask_<name>` tools); None: no delegation."""
        if setup is not None:
            self._use_setup(setup)
        registry.hooks.on_notice = self._notices.tell  # a failing hook is said, and skipped
        self.catalog: Catalog | None = None

    def tell(self, notice: str) -> None:
        """Say `notice` to whoever watches the notices (a tool source's: an MCP server failed...)."""
        self._notices.tell(notice)

    # -- what the status bar shows ------------------------------------------------------------------
    @property
    def model(self) -> str:
        return self.client.model

    @property
    def endpoint(self) -> str:
        """The endpoint's label: the run's, or the agent's own when its profile names one."""
        setup = self._setup
        if setup is not None and setup.profile is not None and setup.profile.base_url and self.roster is not None:
            return setup.endpoint.label
        return self._endpoint_label

    @property
    def agent(self) -> str:
        """The agent the session runs ("" when none: the config's settings as they are)."""
        return self._setup.name if self._setup is not None else ""

    @property
    def session_system_prompt(self) -> str:
        """The system prompt the model is sent in this session ("" when there is none)."""
        if self._session is not None:
            return self._session.system_prompt or ""
        return self.system_prompt or ""

    @property
    def session_title(self) -> str:
        return self._session.title if self._session and self._session.title else "New session"

    @property
    def session_usage(self) -> tuple[int, int]:
        """Tokens (in, out) this session has used, turns of earlier runs included."""
        totals = self._services.totals
        return totals.prompt_tokens, totals.completion_tokens

    @property
    def meter(self) -> Meter:
        """Cost and context of the session now, for the model the next request asks."""
        return self._services.meter.snapshot(self.model)

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
        """A turn is running, or starting (its stream not ended yet)."""
        return self._job is not None or self._turn_slot.locked()

    # -- intents ------------------------------------------------------------------------------------
    async def resume(self, session_id: str) -> Session:
        """Continue a stored session: the model gets its whole history, tool calls and results included."""
        if self.busy:
            raise TurnInProgressError("A reply is still running: press Esc to stop it first.")
        await self._turn_saved()
        session = await self.store.get_session(session_id)
        if session is None:
            raise SessionNotFoundError(f"There is no session {session_id!r} (see `tui-agent sessions list`).")
        stored = await self.store.load_tail(session.id, await self.store.count_messages(session.id))
        self._session, self._team_stops = session, await self.store.team_stops(session.id)
        self._restore_agent(session)
        await self._restore_team(session)
        self._conversation = await self._conversation_of(stored, session)
        self._services.totals = SessionTotals.of(stored)
        subs = await self.store.sub_usage(session.id)  # its sub-agents' tokens count in its total, as they did live
        self._services.totals.prompt_tokens += subs.prompt_tokens
        self._services.totals.completion_tokens += subs.completion_tokens
        self._services.meter.load(stored, session.model, estimate_tokens(self._conversation.request()))
        return session

    def watch_notices(self, observer: NoticeObserver) -> Unsubscribe:
        """Tell `observer` history's notices (disk full, saved again...) and the MCP servers' news."""
        return self._notices.add(observer)

    def watch_unsaved(self, observer: Callable[[str | None], None]) -> Unsubscribe:
        """Tell `observer` what history is not saving, now and on each change."""
        stop = self._unsaved.add(observer)
        observer(self.store.unsaved)
        return stop

    def cancel(self) -> None:
        """Cancel the running turn: streaming stops, running tools are cancelled, the reply is kept. A turn still
        being set up (its first prompt creating the session, say) is cancelled as soon as its job starts."""
        if self._job is not None:
            self._job.cancel()
        else:
            self._cancel_asked = True

    def subscribe_tree(self, observer: TreeObserver) -> Unsubscribe:
        """Follow the turns' task tree (commander node events; a tool call is a node); returns how to stop."""
        return self._tree.subscribe(observer)

    def cancel_node(self, node_id: int | str) -> bool:
        """Cancel one running node of the tree and its subtree; the turn carries on with what is left."""
        return self._tree.cancel(node_id)

    async def list_models(self) -> list[str]:
        """Chat model ids the endpoint offers (an `LLMError` with a sentence when it cannot say)."""
        return chat_models(await self.client.list_models())

    def switch_model(self, name: str) -> None:
        """Ask `name` from the next request on; the conversation (the context) is kept as it is."""
        self.client.model = name
        self._conversation.images_refused = False  # the new model may read the images the old one refused
        self._services.model = name  # the model recorded with each new reply

    async def send(self, prompt: str, attachments: Sequence[Attachment] = ()) -> AsyncIterator[AgentEvent]:
        """Run one turn for `prompt` (with files and images), yielding its events; closing the iterator early
        cancels the turn. Sent while another turn runs (a library's second `send`), it waits for that turn's
        stream to end, then runs."""
        async with self._one_turn():
            await self._turn_saved()
            session = await self._ensure_session(prompt or (attachments[0].name if attachments else ""))
            await self._context_after_switch()
            user, reply = await self.store.begin_turn(session.id, prompt, model=self.model, attachments=attachments)
            self._conversation.add_user(prompt, attachments)
            turn_id = self._next_turn_id()
            yield TurnStarted(session.id, user.id, prompt, turn_id=turn_id)
            async for event in self._run(session, reply.id, turn_id):
                yield event

    async def _run(
        self,
        session: Session,
        message_id: str,
        turn_id: str,
        continuation: Continuation | None = None,
        agent: str | None = None,
    ) -> AsyncIterator[AgentEvent]:
        """Run a turn whose first response goes into `message_id`, yielding its events to `TurnFinished`
        (`agent`: the team member whose reply it goes on with, named on its messages)."""
        await self.windows_learnt()
        events: asyncio.Queue[AgentEvent] = asyncio.Queue()
        turn = Turn(self._services, session.id, self._conversation, self.budget, events.put_nowait, turn_id)
        turn.agent, turn.runs = agent, self.agent or DEFAULT_AGENT_NAME
        turn.attach_message(message_id, continuation)
        await self._start_job(ChatJob(turn))
        try:
            async for event in turn_events(events, turn_id):
                yield event
        finally:
            await self._settle(turn)

    async def _start_job(self, job: Job) -> None:
        """Put the turn's `job` on the commander, cancelled at once when `cancel` came while it was set up."""
        await self._start_commander()
        self._job = job  # nothing awaits from here until it is in the commander's tree: `cancel` finds it there
        await self._commander.put_job(job, parent=self._commander)
        if self._cancel_asked:
            job.cancel()

    def _next_turn_id(self) -> str:
        return f"turn-{next(self._turn_ids)}"

    def _check_idle(self) -> None:
        """Refuse while a turn runs or starts (compaction, switching or opening a session); a `cancel` from before
        belonged to no turn of its own."""
        if self.busy or self._compacting:
            raise TurnInProgressError("A reply is still running: press Esc to stop it first.")
        self._cancel_asked = False

    def _one_turn(self) -> AbstractAsyncContextManager[None]:
        """Hold the session for one turn, from its start until its stream ends (read to its end or closed): a
        turn asked for meanwhile waits for that, then starts, so two never write one conversation at once (the
        UI queues its own prompts). A compaction running refuses it, as before."""
        return self._turn_slot

    def _turn_begins(self) -> None:
        if self._compacting:
            raise TurnInProgressError("A reply is still running: press Esc to stop it first.")
        self._cancel_asked = False  # a `cancel` from before belonged to an earlier turn, or to none

    async def _settle(self, turn: Turn) -> None:
        job, self._job = self._job, None
        if job is not None and not turn.finished:
            job.cancel()
            await job.wait()
        self._ended = turn
        await self._turn_saved()  # history is whole when a turn's events end (the UI stops at `TurnFinished`)

    async def _turn_saved(self) -> None:
        """Wait for the last turn's final writes, so what is read or written next comes after them."""
        turn = self._ended
        if turn is not None and turn.finished:  # a turn whose end never began wrote nothing to wait for
            await turn.saved()

    async def _ensure_session(self, prompt: str) -> Session:
        if self._session is None:
            self._session = await self.store.create_session(
                title=title_from_prompt(prompt),
                model=self.model,
                endpoint=self.endpoint,
                system_prompt=self.system_prompt,
                agent=self.agent or None,
            )
        return self._session

    async def _start_commander(self) -> None:
        if self._commander_task is None or self._commander_task.done():
            self._commander_task = asyncio.create_task(self._commander.run_async(), name="agent-commander")
            await asyncio.sleep(0)  # let it start before the first job arrives

    async def close(self) -> None:
        """Cancel any running turn, stop the commander and flush history."""
        self.cancel()
        if self._windows_task is not None:
            self._windows_task.cancel()
        await self._turn_saved()  # before the commander's exit cancels what it still runs
        if self._commander_task is not None:
            self._commander.exit()
            await asyncio.gather(self._commander_task, return_exceptions=True)
        await self.store.flush()


class TurnSlot:
    """One turn at a time: held from a turn's start until its stream ends, a turn asked for meanwhile waits.
    A class, not an `asynccontextmanager`: asyncio closes every live async generator at shutdown, the one
    inside a turn's stream before the stream itself, and contextlib then raised "generator didn't stop after
    athrow()" as a signal ended the app mid-reply."""

    def __init__(self, begins: Callable[[], None]) -> None:
        self._lock = asyncio.Lock()
        self._begins = begins
        """Called once the slot is held (it may refuse the turn by raising)."""

    def locked(self) -> bool:
        return self._lock.locked()

    async def __aenter__(self) -> None:
        await self._lock.acquire()
        try:
            self._begins()
        except BaseException:
            self._lock.release()
            raise

    async def __aexit__(self, *_: object) -> None:
        self._lock.release()
