"""Provides `ScriptedBackend`: a `ChatBackend` that replays scripted turns, for UI tests and benchmarks.

It is its own `Engine` too (built already), so `TuiAgentApp(ScriptedBackend(...))` runs the real screens. Its
stored sessions are a `MemorySessions` it holds (`sessions`; `add_session` seeds one).

Each `send` plays the next script: `AgentEvent`s are yielded in order, a float pauses (seconds), and
`AskApproval` yields the call's update and an `ApprovalRequested` event, as the agent does, and continues
with the branch for the answer the UI gives its future. `Delegated` plays a script as a sub-agent's turn,
each of its events wrapped in a `SubAgentEvent` (nested for a delegate's delegate), as the agent passes a
delegate's events on. `cancel()`
ends the turn the way the agent does (message and open tool calls interrupted, then `TurnFinished`).
It records prompts, cancels and decisions so tests can assert on the intents the UI sent.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Collection, Coroutine, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from tui_agent.agent.compaction import Compaction, NothingToCompactError
from tui_agent.agent.events import (
    AgentEvent,
    ApprovalRequested,
    AssistantMessageFinished,
    AssistantMessageStarted,
    AssistantPartDelta,
    AssistantTextDelta,
    MessageStatus,
    ReplyReplaced,
    SubAgentEvent,
    ToolCallUpdated,
    ToolStatus,
    TurnEndReason,
    TurnFinished,
    TurnStarted,
    UsageUpdated,
)
from tui_agent.agent.meter import Meter
from tui_agent.agent.port import ChatBackend, NoticeObserver
from tui_agent.agent.slash_commands import SlashCommands
from tui_agent.agent.tree import TreeObserver, Unsubscribe
from tui_agent.history.attachments import Attachment, AttachmentRef
from tui_agent.history.export import ExportFormat
from tui_agent.history.models import Message, SearchHit, Session, Siblings
from tui_agent.history.session_search import SessionMatch
from tui_agent.history.team_runs import TeamStop
from tui_agent.testing.memory_sessions import MemorySessions
from tui_agent.testing.scripted_tree import ScriptedTree
from tui_agent.tool_call import CallKey, Decision

if TYPE_CHECKING:  # pydantic loads with the engine; a scripted app may start without it
    from tui_agent.agent.rewind import FilesPlan, RestoreOutcome, Rewind
    from tui_agent.agents.profiles import AgentProfile
    from tui_agent.commands.catalogue import SlashCommand
    from tui_agent.commands.command_files import Expansion
    from tui_agent.tools.modes import Permissions


@dataclass(frozen=True)
class AskApproval:
    """Ask the UI about `update`'s call; play `allowed` or `denied` next depending on the answer."""

    update: ToolCallUpdated
    allowed: Sequence[ScriptItem] = ()
    denied: Sequence[ScriptItem] = ()


@dataclass(frozen=True)
class Delegated:
    """Play `items` as the turn of sub-agent `agent`, run by this turn's call `call` (an `ask_<agent>` call):
    each event they yield comes wrapped in a `SubAgentEvent`, an `AskApproval` among them asks the UI that way
    and a `Delegated` among them nests one level deeper."""

    call: CallKey
    agent: str
    items: Sequence[ScriptItem]
    session_id: str = ""
    """The sub-agent's (child) session; "" names it `sub-<agent>`."""


class Gate:
    """Pause the script until `open()` is called (or the turn is cancelled): lets a test look mid-turn."""

    def __init__(self) -> None:
        self._event = asyncio.Event()
        self.reached = False

    def open(self) -> None:
        self._event.set()

    async def wait(self) -> None:
        self.reached = True
        await self._event.wait()


ScriptItem = AgentEvent | float | AskApproval | Gate | Delegated
Script = Sequence[ScriptItem]


def reply_script(
    chunks: Iterable[str],
    *,
    message_id: str = "m1",
    delay: float = 0.0,
    usage: tuple[int, int] | None = None,
    reasoning: Iterable[str] = (),
) -> list[ScriptItem]:
    """A plain streamed reply: message started, its `reasoning` pieces, then one delta per chunk (pausing `delay`
    between), finished."""
    items: list[ScriptItem] = [AssistantMessageStarted(message_id)]
    items.extend(AssistantPartDelta(message_id, "reasoning", piece) for piece in reasoning)
    for chunk in chunks:
        items.append(AssistantTextDelta(message_id, chunk))
        if delay:
            items.append(delay)
    items.append(AssistantMessageFinished(message_id, MessageStatus.COMPLETE))
    if usage is not None:
        items.append(UsageUpdated(*usage))
    return items


@dataclass
class _Turn:
    """What the current turn has open, so a cancel can close it like the agent does."""

    message_id: str | None = None
    calls: dict[tuple[str, str], ToolCallUpdated] = field(default_factory=dict)

    def track(self, event: AgentEvent) -> None:
        if isinstance(event, AssistantMessageStarted):
            self.message_id = event.message_id
        elif isinstance(event, AssistantMessageFinished):
            self.message_id = None
        elif isinstance(event, ToolCallUpdated):
            self.calls[event.key] = event

    def interrupted(self) -> list[AgentEvent]:
        events: list[AgentEvent] = [
            replace(update, call=update.call.replace(status=ToolStatus.INTERRUPTED))
            for update in self.calls.values()
            if not update.call.status.is_final
        ]
        if self.message_id is not None:
            events.append(AssistantMessageFinished(self.message_id, MessageStatus.INTERRUPTED))
        return [*events, TurnFinished(TurnEndReason.CANCELLED)]


class ScriptedBackend:
    """Replays one script per `send`; records what the UI asked for."""

    def __init__(
        self,
        scripts: Iterable[Script] = (),
        *,
        model: str = "scripted-model",
        endpoint: str = "offline model",
        session_title: str = "New session",
        notices: Iterable[str] = (),
    ) -> None:
        self.sessions = MemorySessions()
        """The stored sessions (the library, and the current session's pages and branches)."""
        self._scripts = list(scripts)
        self._model, self._endpoint, self._title = model, endpoint, session_title
        self._notices = list(notices)
        self._cancelled = asyncio.Event()
        self.tree = ScriptedTree()
        self.prompts: list[str] = []
        self.teams: list[tuple[str, str]] = [("writer-critic", "A writer and a critic")]
        """What `list_teams` offers."""
        self.teams_run: list[tuple[str, str]] = []
        self.pauses_asked = 0
        """How often the person asked the team to pause (`pause_team`)."""
        self._team = ""
        """(team, prompt) of every `run_team`."""
        self.attachments: list[list[Attachment]] = []
        """Each sent prompt's files and images."""
        self.redos: list[str] = []
        self._permissions: Permissions | None = None
        """"retry", "continue" and "regenerate ID", in the order the UI asked for them."""
        self.edits: list[tuple[str, str]] = []
        """(message id, new text) of each prompt the UI sent as edited."""
        self.decisions: list[Decision] = []
        self.cancel_count = 0
        self.cancelled_nodes: list[int | str] = []
        """The task-tree nodes the UI asked to cancel, in order."""
        self.models: list[str] = [model, "scripted-large"]
        """What `list_models` answers (a test may change it)."""
        self.closed = False
        self._unsaved_observers: list[Callable[[str | None], None]] = []
        self._notice_observers: list[NoticeObserver] = []
        self.resume_failure: str | None = None
        """What `Engine.resume_failure` says (a test may set it)."""
        self.agents: list[AgentProfile] = []
        """What `list_agents` answers (none unless a test sets some; the status bar then shows no agent)."""
        self.memory: list[str] = []
        """What `memory_files` answers (a test may set it)."""
        self.commands = SlashCommands()
        self.memory_reloads = 0
        """How many times `reload_memory` was asked (after `/memory` or `#`)."""
        """What `slash_commands` and `expand_command` answer (a test may give it command files)."""
        self._agent, self._system_prompt = "", ""
        self.meter_now = Meter()
        """What `meter` answers (a test may set it)."""
        self.compactions = 0

    # -- the stored sessions, and the current one's pages and branches (kept in `sessions`) -------------
    def add_session(
        self,
        title: str,
        messages: list[Message] | None = None,
        *,
        model: str | None = None,
        updated_at: datetime | None = None,
        agent: str | None = None,
        cost: Decimal | None = None,
    ) -> Session:
        """Store a session (see `MemorySessions.add_session`); returns it."""
        return self.sessions.add_session(title, messages, model=model, updated_at=updated_at, agent=agent, cost=cost)

    @property
    def current_session_id(self) -> str | None:
        return self.sessions.current_session_id

    @property
    def team_stops(self) -> Mapping[str, TeamStop]:
        return self.sessions.team_stops

    async def load_history(self, before_position: int | None = None, limit: int = 50) -> list[Message]:
        return await self.sessions.load_history(before_position, limit)

    async def siblings(self, message_id: str) -> Siblings:
        return await self.sessions.siblings(message_id)

    async def switch_branch(self, message_id: str) -> str:
        return await self.sessions.switch_branch(message_id)

    async def list_sessions(self, limit: int = 200) -> list[Session]:
        return await self.sessions.list_sessions(limit)

    # -- the files the tree carries: a scripted conversation changes none --------------------------------
    async def active_leaf(self) -> str | None:
        return None

    async def plan_rewind(self, message_id: str) -> Rewind:
        from tui_agent.agent.rewind import FilesPlan, Rewind  # deferred: with the tools, as the engine's

        return Rewind(FilesPlan(self.current_session_id or "", None), None)

    async def plan_files_before(self, message_id: str) -> FilesPlan:
        from tui_agent.agent.rewind import FilesPlan  # deferred: with the tools, as the engine's

        return FilesPlan(self.current_session_id or "", None)

    async def plan_branch_files(self, left: str | None) -> FilesPlan:
        return await self.plan_files_before(left or "")

    async def plan_undo_restore(self) -> FilesPlan | None:
        return None

    async def restore_files(self, plan: FilesPlan, overwrite: Collection[str] = ()) -> RestoreOutcome:
        from tui_agent.agent.rewind import RestoreOutcome  # deferred: with the tools, as the engine's

        return RestoreOutcome("")

    async def search_sessions(self, query: str, limit: int = 50) -> list[SearchHit]:
        return await self.sessions.search_sessions(query, limit)

    async def find_sessions(self, query: str, limit: int = 100, offset: int = 0) -> list[SessionMatch]:
        return await self.sessions.find_sessions(query, limit, offset)

    async def session_messages(self, session_id: str, limit: int = 500) -> list[Message]:
        return await self.sessions.session_messages(session_id, limit)

    async def rename_session(self, session_id: str, title: str) -> None:
        await self.sessions.rename_session(session_id, title)

    async def fork_session(self, session_id: str, message_id: str) -> Session:
        return await self.sessions.fork_session(session_id, message_id)

    async def delete_session(self, session_id: str) -> None:
        await self.sessions.delete_session(session_id)

    async def open_session(self, session_id: str, at: str | None = None) -> Session:
        return await self.sessions.open_session(session_id, at)

    async def new_session(self) -> None:
        await self.sessions.new_session()

    async def export_session(self, export_format: ExportFormat = "markdown") -> tuple[str, str] | None:
        return await self.sessions.export_session(export_format)

    # -- as an Engine ---------------------------------------------------------------------------------
    @property
    def backend(self) -> ChatBackend:
        """Itself (typed so, mypy checks that the double implements the port)."""
        return self

    @property
    def alarms(self) -> list[str]:
        return []

    @property
    def mcp_servers(self) -> None:
        return None

    @property
    def model(self) -> str:
        return self._model

    @property
    def endpoint(self) -> str:
        return self._endpoint

    @property
    def session_title(self) -> str:
        return self._title

    @property
    def session_usage(self) -> tuple[int, int]:
        """Scripted sessions start with no tokens used; their scripts report usage as events."""
        return (0, 0)

    @property
    def meter(self) -> Meter:
        return self.meter_now

    @property
    def permissions(self) -> Permissions:
        """Starts in ask mode, with a sandbox ready (so every mode can be cycled to)."""
        if self._permissions is None:
            from tui_agent.tools.modes import Permissions  # deferred: the tools package loads pydantic

            self._permissions = Permissions(lambda: None)
        return self._permissions

    def learn_context_windows(self) -> asyncio.Future[None]:
        """Scripted models have no windows to learn (a test sets `meter_now` instead)."""
        learned: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        learned.set_result(None)
        return learned

    async def compact(self, *, auto: bool = False) -> Compaction:
        """Scripted sessions have nothing stored to compact: counted, then refused as the agent refuses."""
        self.compactions += 1
        raise NothingToCompactError("Nothing to compact yet: the conversation is empty.")

    @property
    def notices(self) -> list[str]:
        return self._notices

    def add_script(self, script: Script) -> None:
        """Queue one more turn."""
        self._scripts.append(script)

    def cancel(self) -> None:
        self.cancel_count += 1
        self._cancelled.set()

    def subscribe_tree(self, observer: TreeObserver) -> Unsubscribe:
        return self.tree.subscribe(observer)

    def watch_unsaved(self, observer: Callable[[str | None], None]) -> Unsubscribe:
        self._unsaved_observers.append(observer)

        def stop() -> None:
            if observer in self._unsaved_observers:
                self._unsaved_observers.remove(observer)

        return stop

    def watch_notices(self, observer: NoticeObserver) -> Unsubscribe:
        self._notice_observers.append(observer)
        return lambda: self._notice_observers.remove(observer) if observer in self._notice_observers else None

    def tell_notice(self, notice: str) -> None:
        """Play a notice of the engine's (history saved again, an MCP server crashed...)."""
        for observer in list(self._notice_observers):
            observer(notice)

    def set_unsaved(self, unsaved: str | None) -> None:
        """Play a change of what history is not saving (as a store that is locked or full reports it)."""
        for observer in list(self._unsaved_observers):
            observer(unsaved)

    def cancel_node(self, node_id: int | str) -> bool:
        """Any node of the scripted turn cancels the whole turn (the script has no finer structure)."""
        if not self.tree.is_open(node_id):
            return False
        self.cancelled_nodes.append(node_id)
        self.cancel()
        return True

    async def list_models(self) -> list[str]:
        return list(self.models)

    def switch_model(self, name: str) -> None:
        self._model = name

    @property
    def agent(self) -> str:
        return self._agent

    @property
    def session_system_prompt(self) -> str:
        return self._system_prompt

    def list_agents(self) -> list[AgentProfile]:
        return list(self.agents)

    def memory_files(self) -> list[str]:
        return list(self.memory)

    async def reload_memory(self) -> list[str]:
        self.memory_reloads += 1
        return list(self.memory)

    def slash_commands(self) -> list[SlashCommand]:
        return self.commands.listed()

    async def expand_command(self, name: str, arguments: str) -> Expansion:
        return await self.commands.expand(name, arguments)

    async def switch_agent(self, name: str) -> None:
        profile = next((agent for agent in self.agents if agent.name == name), None)
        if profile is None:
            raise LookupError(f"There is no agent {name!r}.")
        self._agent, self._system_prompt = name, profile.system_prompt or ""

    async def set_system_prompt(self, text: str) -> None:
        self._system_prompt = text

    async def close(self) -> None:
        self.closed = True

    def send(self, prompt: str, attachments: Sequence[Attachment] = ()) -> AsyncIterator[AgentEvent]:
        self.prompts.append(prompt)
        self.attachments.append(list(attachments))
        script = self._scripts.pop(0) if self._scripts else reply_script([f"You said: {prompt}"])
        return self._turn(script, TurnStarted("scripted-session", f"user-{len(self.prompts)}", prompt))

    def run_team(self, name: str, prompt: str) -> AsyncIterator[AgentEvent]:
        """Play the next script as team `name`'s run on `prompt` (recorded in `teams_run`)."""
        self.teams_run.append((name, prompt))
        self.prompts.append(prompt)
        script = self._scripts.pop(0) if self._scripts else reply_script([f"Team {name}: {prompt}"])
        return self._turn(script, TurnStarted("scripted-session", f"user-{len(self.prompts)}", prompt))

    def pause_team(self) -> bool:
        """Record the person's wish to speak (`pauses_asked`); True while a scripted turn plays."""
        self.pauses_asked += 1
        return True

    async def list_teams(self) -> list[tuple[str, str]]:
        return list(self.teams)

    @property
    def team(self) -> str:
        return self._team

    async def use_team(self, name: str | None) -> None:
        if name and name not in dict(self.teams):
            raise LookupError(f"There is no team {name!r}.")
        self._team = name or ""

    def retry(self) -> AsyncIterator[AgentEvent]:
        """Play the next script as a retry of the last reply (recorded in `redos`)."""
        self.redos.append("retry")
        return self._turn(self._scripts.pop(0) if self._scripts else reply_script(["Retried."]))

    def regenerate(self, message_id: str, model: str | None = None) -> AsyncIterator[AgentEvent]:
        """Play the next script as a new reply beside `message_id` (`ReplyReplaced` first, as the agent
        starts); recorded in `redos` as "regenerate ID" (and " with MODEL")."""
        self.redos.append(f"regenerate {message_id}" + (f" with {model}" if model else ""))
        script = self._scripts.pop(0) if self._scripts else reply_script(["Regenerated."])
        return self._turn([ReplyReplaced(message_id), *script])

    def edit(
        self, message_id: str, text: str, attachments: Sequence[Attachment] | None = None
    ) -> AsyncIterator[AgentEvent]:
        """Play the next script as the answer to `text`, a new version of prompt `message_id` (recorded in
        `edits`)."""
        self.edits.append((message_id, text))
        script = self._scripts.pop(0) if self._scripts else reply_script([f"You said: {text}"])
        started = TurnStarted("scripted-session", f"edit-{len(self.edits)}", text, branches_from=message_id)
        return self._turn(script, started)

    async def prompt_attachments(self, message_id: str) -> list[Attachment]:
        """No prompt here was stored with files."""
        return []

    async def stored_attachments(self, refs: Sequence[AttachmentRef]) -> list[Attachment]:
        """The files this backend was sent that `refs` name (its "history")."""
        sent = {attachment.hash: attachment for files in self.attachments for attachment in files}
        return [Attachment.restored(ref, sent[ref.hash].data) for ref in refs if ref.hash in sent]

    def continue_reply(self) -> AsyncIterator[AgentEvent]:
        """Play the next script as the last reply's continuation (recorded in `redos`)."""
        self.redos.append("continue")
        return self._turn(self._scripts.pop(0) if self._scripts else reply_script([" continued."]))

    async def _turn(self, script: Script, started: TurnStarted | None = None) -> AsyncIterator[AgentEvent]:
        self._cancelled.clear()
        turn = _Turn()
        if started is not None:
            yield started
        self.tree.begin_turn()
        async for event in self._play(script, turn):
            turn.track(event)
            self.tree.follow(event)
            yield event
        self.tree.end_turn(cancelled=self._cancelled.is_set())
        if self._cancelled.is_set():
            for event in turn.interrupted():
                yield event
        elif not script or not isinstance(script[-1], TurnFinished):
            yield TurnFinished(TurnEndReason.DONE)

    async def _play(self, script: Script, turn: _Turn) -> AsyncIterator[AgentEvent]:
        for item in script:
            if self._cancelled.is_set():
                return
            if isinstance(item, float | int):
                await self._until_cancelled(asyncio.sleep(float(item)))
            elif isinstance(item, Gate):
                await self._until_cancelled(item.wait())
            elif isinstance(item, Delegated):
                session_id = item.session_id or f"sub-{item.agent}"
                async for event in self._play(item.items, _Turn()):
                    yield SubAgentEvent(item.call, item.agent, session_id, event)
            elif isinstance(item, AskApproval):
                turn.track(item.update)
                yield item.update
                answer: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()
                yield ApprovalRequested(item.update.call, answer)
                decision = await self._answer(answer)
                if decision is None:
                    return
                self.decisions.append(decision)
                branch = item.denied if decision is Decision.DENY else item.allowed
                async for event in self._play(branch, turn):
                    yield event
            else:
                await asyncio.sleep(0)  # like a real stream: let the loop breathe between events
                yield item

    async def _until_cancelled(self, waiting: Coroutine[Any, Any, None]) -> None:
        """Wait for `waiting`, or stop waiting as soon as the turn is cancelled."""
        task = asyncio.ensure_future(waiting)
        cancelled = asyncio.ensure_future(self._cancelled.wait())
        await asyncio.wait({task, cancelled}, return_when=asyncio.FIRST_COMPLETED)
        for pending in (task, cancelled):
            pending.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    async def _answer(self, answer: asyncio.Future[Decision]) -> Decision | None:
        """The UI's answer; None when the turn is cancelled first (the question is then cancelled, as the
        agent cancels it)."""
        cancelled = asyncio.ensure_future(self._cancelled.wait())
        waiting: set[asyncio.Future[Any]] = {answer, cancelled}
        await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
        cancelled.cancel()
        if not answer.done():
            answer.cancel()
            return None
        return answer.result()
