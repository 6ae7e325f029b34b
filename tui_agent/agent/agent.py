"""Provides `Agent`: a chat session driven by commander jobs, as the UI (and `-p`) sees it.

`send(prompt)` persists the prompt, puts a `ChatJob` on the commander (which runs inside the caller's
event loop) and yields the turn's events until `TurnFinished`. A tool call that needs the user's approval is
asked in the stream: an `ApprovalRequested` event whose future the caller resolves. Every event carries its
turn's id, and a turn's stream yields only its own events, ending at its own `TurnFinished`.

The agent is a façade over small parts that own their state: `ChatState` (the session and what its model is
sent), `Turns` (the commander and the one turn it runs at a time), `AgentChoice` (the agent or team writing the
replies), `RedoTurns` (edit, regenerate, retry, continue), `ContextUpkeep` (context windows, compaction) and
`SessionActions` (branches, pages and the stored sessions). It implements the UI's port,
`tui_agent.agent.port.ChatBackend` (mypy checks it where `services.BuiltAgent.backend` returns the agent as one).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Collection, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui_agent import paths
from tui_agent.agent.agent_choice import AgentChoice
from tui_agent.agent.chat_state import TITLE_LENGTH as TITLE_LENGTH
from tui_agent.agent.chat_state import ChatState
from tui_agent.agent.chat_state import title_from_prompt as title_from_prompt
from tui_agent.agent.compaction import Compaction
from tui_agent.agent.context_upkeep import ContextUpkeep
from tui_agent.agent.conversation import Conversation
from tui_agent.agent.events import AgentEvent, TurnEndReason, TurnFinished, TurnStarted
from tui_agent.agent.external_turn import SessionAgents
from tui_agent.agent.file_rewinds import FileRewinds
from tui_agent.agent.meter import Meter, SessionMeter
from tui_agent.agent.model_choice import chat_models
from tui_agent.agent.observers import Observers
from tui_agent.agent.port import NoticeObserver
from tui_agent.agent.profile_use import AgentRoster, AgentSetup
from tui_agent.agent.redo import NothingToRedoError as NothingToRedoError
from tui_agent.agent.redo import RedoTurns
from tui_agent.agent.sessions import SessionActions
from tui_agent.agent.sessions import SessionNotFoundError as SessionNotFoundError
from tui_agent.agent.slash_commands import SlashCommands
from tui_agent.agent.tree import TreeObserver, Unsubscribe
from tui_agent.agent.turn import DEFAULT_AGENT_NAME, Continuation, Turn, TurnBudget, TurnServices
from tui_agent.agent.turns import TurnInProgressError as TurnInProgressError
from tui_agent.agent.turns import Turns, turn_events
from tui_agent.agents.memory import find_memory
from tui_agent.agents.profiles import AgentProfile, Catalog
from tui_agent.commander import CommanderAsync
from tui_agent.commands.catalogue import SlashCommand
from tui_agent.commands.command_files import Expansion
from tui_agent.history.attachments import Attachment, AttachmentRef
from tui_agent.history.export import ExportFormat
from tui_agent.history.models import Message, SearchHit, Session, Siblings
from tui_agent.history.session_search import SessionMatch
from tui_agent.history.store import HistoryStore
from tui_agent.history.team_runs import TeamStop
from tui_agent.prices import TokenCounts
from tui_agent.tools.command_hooks import HookAnswer
from tui_agent.tools.modes import Permissions
from tui_agent.tools.registry import ToolRegistry
from tui_agent.tools.runner import ToolRunner
from tui_agent.tracing.telemetry import Telemetry

if TYPE_CHECKING:  # the openai client is imported only when a client is built; delegation imports this module
    from tui_agent.agent.delegation import Delegation
    from tui_agent.agent.rewind import FilesPlan, RestoreOutcome, Rewind  # loaded with the first rewind
    from tui_agent.llm.model_client import ModelClient

__all__ = ["Agent", "turn_events"]


class Agent:
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
        self.registry, self.store = registry, store
        self.runner = runner or ToolRunner(registry)
        services = TurnServices(
            client,
            self.runner,
            store,
            client.model,
            missing_key_message=missing_key_message,
            meter=meter or SessionMeter(),
        )
        self._state = ChatState(store, services, system_prompt, budget or TurnBudget())
        self._turns = Turns()
        self._notices: Observers[str] = Observers()
        self._unsaved: Observers[str | None] = Observers()
        store.on_notice = self._notices.tell
        store.on_state = lambda: self._unsaved.tell(store.unsaved)
        self._choice = AgentChoice(
            self._state,
            self._turns,
            self.runner,
            self._notices,
            endpoint_label=endpoint_label,
            roster=roster,
            delegation=delegation,
        )
        if setup is not None:
            self._choice.start_with(setup)
        self._redo = RedoTurns(self._state, self._turns, self._run)
        self._context = ContextUpkeep(self._state, self._turns)
        self._sessions = SessionActions(self._state, self._turns, self._choice.restore)
        self._external = SessionAgents()
        """The session's external agent, when its agent profile names one (`acp`)."""
        self.files = FileRewinds(self._state, self._turns)
        """The files the conversation tree carries: rewind, a branch's files, undo (the port's `FilesPort`)."""
        registry.hooks.on_notice = self._notices.tell  # a failing hook is said, and skipped
        self.commands = SlashCommands()
        """The run's own `/` commands (command files, MCP prompts): set by the build (`services.build_agent`)."""
        self._notices.add(lambda notice: registry.hooks.notify(notice, self.current_session_id or ""))

    # -- the parts' state, read by the front ends and tests -------------------------------------------
    @property
    def client(self) -> ModelClient:
        """The client the next request goes through (the agent's own when its profile names an endpoint)."""
        return self._state.services.client

    @property
    def budget(self) -> TurnBudget:
        return self._state.budget

    @property
    def system_prompt(self) -> str | None:
        """The system prompt a new session starts with."""
        return self._state.system_prompt

    @property
    def roster(self) -> AgentRoster | None:
        return self._choice.roster

    @property
    def delegation(self) -> Delegation | None:
        return self._choice.delegation

    @property
    def catalog(self) -> Catalog | None:
        """The agent and team files (read on first use when the build did not give them)."""
        return self._choice.catalog

    @catalog.setter
    def catalog(self, catalog: Catalog | None) -> None:
        self._choice.catalog = catalog

    @property
    def session(self) -> Session | None:
        return self._state.session

    @property
    def conversation(self) -> Conversation:
        """What the model is sent next turn (read it; only turns change it)."""
        return self._state.conversation

    @property
    def commander(self) -> CommanderAsync[Any]:
        """The commander running this agent's turns (the task-tree view observes it)."""
        return self._turns.commander

    @property
    def busy(self) -> bool:
        """A turn is running, or starting (its stream not ended yet)."""
        return self._turns.busy

    def tell(self, notice: str) -> None:
        """Say `notice` to whoever watches the notices (a tool source's: an MCP server failed...)."""
        self._notices.tell(notice)

    # -- usage: what the status bar shows -------------------------------------------------------------
    @property
    def model(self) -> str:
        return self._state.model

    @property
    def endpoint(self) -> str:
        """The endpoint's label: the run's, or the agent's own when its profile names one."""
        return self._choice.endpoint

    @property
    def session_title(self) -> str:
        session = self._state.session
        return session.title if session and session.title else "New session"

    @property
    def session_usage(self) -> tuple[int, int]:
        """Tokens (in, out) this session has used, turns of earlier runs included."""
        totals = self._state.services.totals
        return totals.prompt_tokens, totals.completion_tokens

    def count_aside(self, usage: TokenCounts) -> None:
        """Count a request made beside the conversation (an MCP server's sampling) in the session's tokens and
        cost; the context stays the conversation's."""
        services = self._state.services
        services.totals.prompt_tokens += usage.prompt_tokens
        services.totals.completion_tokens += usage.completion_tokens
        services.meter.add_aside(self.model, usage)

    @property
    def permissions(self) -> Permissions:
        """The permission mode the tools run in (the runner's, shared with sub-agents)."""
        return self.runner.permissions

    @property
    def meter(self) -> Meter:
        """Cost and context of the session now, for the model the next request asks."""
        return self._state.services.meter.snapshot(self.model)

    async def list_models(self) -> list[str]:
        """Chat model ids the endpoint offers (an `LLMError` with a sentence when it cannot say)."""
        return chat_models(await self.client.list_models())

    def switch_model(self, name: str) -> None:
        """Ask `name` from the next request on; the conversation (the context) is kept as it is."""
        self._state.switch_model(name)

    def learn_context_windows(self) -> asyncio.Future[None]:
        return self._context.learn_context_windows()

    async def windows_learnt(self) -> None:
        await self._context.windows_learnt()

    async def compact(self, *, auto: bool = False) -> Compaction:
        return await self._context.compact(auto=auto)

    # -- the conversation -----------------------------------------------------------------------------
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
        self._turns.cancel()

    @property
    def telemetry(self) -> Telemetry:
        """What the turns tell a tracer: each model and tool call as it ends (`tui_agent.tracing`)."""
        return self._state.services.telemetry

    def subscribe_tree(self, observer: TreeObserver) -> Unsubscribe:
        """Follow the turns' task tree (commander node events; a tool call is a node); returns how to stop."""
        return self._turns.subscribe_tree(observer)

    def cancel_node(self, node_id: int | str) -> bool:
        """Cancel one running node of the tree and its subtree; the turn carries on with what is left."""
        return self._turns.cancel_node(node_id)

    async def send(self, prompt: str, attachments: Sequence[Attachment] = ()) -> AsyncIterator[AgentEvent]:
        """Run one turn for `prompt` (with files and images), yielding its events; closing the iterator early
        cancels the turn. Sent while another turn runs (a library's second `send`), it waits for that turn's
        stream to end, then runs."""
        state, turns = self._state, self._turns
        async with turns.slot:
            await turns.saved()
            hooks, runs = self.registry.hooks, self.agent or DEFAULT_AGENT_NAME
            said = await hooks.prompt_submitted(prompt, runs, self.current_session_id or "")
            if said.blocked_by is not None:  # refused: nothing stored, the person told why
                yield _refused(said, turns.next_id())
                return
            title = prompt or (attachments[0].name if attachments else "")
            before = self.current_session_id
            session = await state.ensure_session(title, self.endpoint, self.agent)
            context = said.context
            if session.id != before:  # a new session: its start hooks may add context too
                context = (*(await hooks.session_start(runs, session.id)).context, *context)
            await state.context_after_switch()
            user, reply = await self.store.begin_turn(session.id, prompt, model=self.model, attachments=attachments)
            state.conversation.add_user(prompt, attachments)
            turn_id = turns.next_id()
            yield TurnStarted(session.id, user.id, prompt, turn_id=turn_id)
            async with _closed_after(self._run(session, reply.id, turn_id, hook_context="\n".join(context))) as events:
                async for event in events:
                    yield event

    async def _run(
        self,
        session: Session,
        message_id: str,
        turn_id: str,
        continuation: Continuation | None = None,
        agent: str | None = None,
        hook_context: str = "",
    ) -> AsyncIterator[AgentEvent]:
        """Run a turn whose first response goes into `message_id`, yielding its events to `TurnFinished`
        (`agent`: the team member whose reply it goes on with, named on its messages; `hook_context`: what
        command hooks added for the model to the prompt)."""
        await self._context.windows_learnt()
        state = self._state
        events: asyncio.Queue[AgentEvent] = asyncio.Queue()
        turn = Turn(state.services, session.id, state.conversation, state.budget, events.put_nowait, turn_id)
        turn.agent, turn.runs, turn.hook_context = agent, self.agent or DEFAULT_AGENT_NAME, hook_context
        turn.attach_message(message_id, continuation)
        title = f"turn {state.conversation.prompts}"
        await self._turns.start_job(await self._external.job(turn, self._choice.profile, title))
        try:
            async for event in turn_events(events, turn_id):
                yield event
        finally:
            await self._turns.settle(turn)

    async def edit(
        self, message_id: str, text: str, attachments: Sequence[Attachment] | None = None
    ) -> AsyncIterator[AgentEvent]:
        """Send `text` in place of an earlier prompt (a new branch), unless a prompt hook refuses it."""
        said = await self.registry.hooks.prompt_submitted(
            text, self.agent or DEFAULT_AGENT_NAME, self.current_session_id or ""
        )
        if said.blocked_by is not None:
            yield _refused(said, self._turns.next_id())
            return
        async with _closed_after(self._redo.edit(message_id, text, attachments)) as events:
            async for event in events:
                yield event

    def regenerate(self, message_id: str, model: str | None = None) -> AsyncIterator[AgentEvent]:
        return self._redo.regenerate(message_id, model)

    def retry(self) -> AsyncIterator[AgentEvent]:
        return self._redo.retry()

    def continue_reply(self) -> AsyncIterator[AgentEvent]:
        return self._redo.continue_reply()

    async def load_history(self, before_position: int | None = None, limit: int = 50) -> list[Message]:
        return await self._sessions.load_history(before_position, limit)

    async def siblings(self, message_id: str) -> Siblings:
        return await self._sessions.siblings(message_id)

    async def switch_branch(self, message_id: str) -> str:
        return await self._sessions.switch_branch(message_id)

    async def prompt_attachments(self, message_id: str) -> list[Attachment]:
        return await self._sessions.prompt_attachments(message_id)

    async def stored_attachments(self, refs: Sequence[AttachmentRef]) -> list[Attachment]:
        return await self._sessions.stored_attachments(refs)

    # -- the files the tree carries ---------------------------------------------------------------------
    async def active_leaf(self) -> str | None:
        return await self.files.active_leaf()

    async def plan_rewind(self, message_id: str) -> Rewind:
        return await self.files.plan_rewind(message_id)

    async def plan_files_before(self, message_id: str) -> FilesPlan:
        return await self.files.plan_files_before(message_id)

    async def plan_branch_files(self, left: str | None) -> FilesPlan:
        return await self.files.plan_branch_files(left)

    async def plan_undo_restore(self) -> FilesPlan | None:
        return await self.files.plan_undo_restore()

    async def restore_files(self, plan: FilesPlan, overwrite: Collection[str] = ()) -> RestoreOutcome:
        return await self.files.restore_files(plan, overwrite)

    # -- agents and teams -----------------------------------------------------------------------------
    @property
    def agent(self) -> str:
        """The agent the session runs ("" when none: the config's settings as they are)."""
        return self._choice.agent

    @property
    def team(self) -> str:
        return self._choice.team

    @property
    def team_stops(self) -> Mapping[str, TeamStop]:
        return self._sessions.team_stops

    @property
    def session_system_prompt(self) -> str:
        """The system prompt the model is sent in this session ("" when there is none)."""
        session = self._state.session
        if session is not None:
            return session.system_prompt or ""
        return self._state.system_prompt or ""

    def list_agents(self) -> list[AgentProfile]:
        return self._choice.list_agents()

    def memory_files(self) -> list[str]:
        return self._choice.memory_files()

    async def reload_memory(self) -> list[str]:
        roster = self._choice.roster
        if roster is not None:
            memory = await asyncio.to_thread(find_memory, Path.cwd(), roster.settings.memory, paths.config_dir())
            self._choice.use_memory(memory)
        return self.memory_files()

    def slash_commands(self) -> list[SlashCommand]:
        return self.commands.listed()

    async def expand_command(self, name: str, arguments: str) -> Expansion:
        return await self.commands.expand(name, arguments)

    async def switch_agent(self, name: str) -> None:
        await self._choice.switch_agent(name)

    async def set_system_prompt(self, text: str) -> None:
        await self._choice.set_system_prompt(text)

    async def list_teams(self) -> list[tuple[str, str]]:
        return await self._choice.list_teams()

    async def use_team(self, name: str | None) -> None:
        await self._choice.use_team(name)

    async def run_team(self, name: str, prompt: str) -> AsyncIterator[AgentEvent]:
        """Run team `name` on `prompt`, unless a prompt hook refuses it (its context is not passed to a team)."""
        said = await self.registry.hooks.prompt_submitted(prompt, f"team:{name}", self.current_session_id or "")
        if said.blocked_by is not None:
            yield _refused(said, self._turns.next_id())
            return
        async with _closed_after(self._choice.run_team(name, prompt)) as events:  # closed with this one, not by the gc
            async for event in events:
                yield event

    def pause_team(self) -> bool:
        return self._choice.pause_team()

    # -- stored sessions ------------------------------------------------------------------------------
    @property
    def current_session_id(self) -> str | None:
        return self._sessions.current_session_id

    async def resume(self, session_id: str) -> Session:
        """Continue a stored session: the model gets its whole history, tool calls and results included."""
        return await self._sessions.resume(session_id)

    async def list_sessions(self, limit: int = 200) -> list[Session]:
        return await self._sessions.list_sessions(limit)

    async def search_sessions(self, query: str, limit: int = 50) -> list[SearchHit]:
        return await self._sessions.search_sessions(query, limit)

    async def find_sessions(self, query: str, limit: int = 100, offset: int = 0) -> list[SessionMatch]:
        return await self._sessions.find_sessions(query, limit, offset)

    async def session_messages(self, session_id: str, limit: int = 500) -> list[Message]:
        return await self._sessions.session_messages(session_id, limit)

    async def rename_session(self, session_id: str, title: str) -> None:
        await self._sessions.rename_session(session_id, title)

    async def fork_session(self, session_id: str, message_id: str) -> Session:
        return await self._sessions.fork_session(session_id, message_id)

    async def delete_session(self, session_id: str) -> None:
        await self._sessions.delete_session(session_id)

    async def open_session(self, session_id: str, at: str | None = None) -> Session:
        return await self._sessions.open_session(session_id, at)

    async def new_session(self) -> None:
        await self._sessions.new_session()
        self._choice.start_afresh()

    async def export_session(self, export_format: ExportFormat = "markdown") -> tuple[str, str] | None:
        return await self._sessions.export_session(export_format)

    async def close(self) -> None:
        """Cancel any running turn, stop the commander and flush history."""
        self._turns.cancel()
        self._context.stop()
        await self._turns.close()
        await self._external.close()
        await self.store.flush()


def _refused(said: HookAnswer, turn_id: str) -> TurnFinished:
    """The end of a turn that never began: a prompt hook refused the prompt (nothing stored or sent)."""
    return TurnFinished(
        TurnEndReason.ERROR, f"A hook ({said.blocked_by}) refused the prompt: {said.reason}", turn_id=turn_id
    )


@asynccontextmanager
async def _closed_after(events: AsyncIterator[AgentEvent]) -> AsyncIterator[AsyncIterator[AgentEvent]]:
    """`events`, closed when the block ends: a stream passed on is closed with the one passing it on, never left
    to the garbage collector (what a turn does at its end would run after history is closed)."""
    try:
        yield events
    finally:
        close = getattr(events, "aclose", None)  # a generator's (every turn's)
        if close is not None:
            await close()
