"""Provides `AgentChoice`: which agent, or team of agents, writes a session's replies.

A session runs one agent profile (`switch_agent`, restored on resume; its system prompt editable with
`set_system_prompt`), or, for one prompt, a team (`run_team`: members take turns on the commander, see
`tui_agent.agent.team`). `Agent` mixes it in, as it does `SessionActions`.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any

from tui_agent.agent.conversation import Conversation
from tui_agent.agent.events import AgentEvent, MessageStatus, TurnStarted
from tui_agent.agent.observers import Observers
from tui_agent.agent.profile_use import AgentRoster, AgentSetup
from tui_agent.agent.turn import TurnBudget, TurnServices
from tui_agent.agents.apply import UnknownAgentError
from tui_agent.agents.profiles import AgentProfile, Catalog, load_catalog
from tui_agent.commander import CommanderAsync, Job
from tui_agent.errors import UserError, user_message
from tui_agent.history.models import TEAM_PREFIX, Session
from tui_agent.history.store import HistoryStore
from tui_agent.history.team_runs import TeamStop
from tui_agent.status import Role
from tui_agent.tools.runner import ToolRunner

if TYPE_CHECKING:
    from tui_agent.agent.delegation import Delegation
    from tui_agent.llm.model_client import ModelClient


class AgentChoice:
    """Agent profiles and teams for `Agent` (which provides the attributes declared here)."""

    store: HistoryStore
    client: ModelClient
    runner: ToolRunner
    budget: TurnBudget
    system_prompt: str | None
    roster: AgentRoster | None
    """The run's agents (None: no agent files, the config's settings only)."""
    delegation: Delegation | None
    catalog: Catalog | None
    """The agent and team files (read on first use when the build did not give them)."""
    _setup: AgentSetup | None = None
    team: str = ""
    """The team the session's prompts go to ("": its agent): chosen with `use_team`, set by `run_team`, stored
    with the session (`agent = "team:<name>"`) and restored on resume."""
    _session: Session | None
    _conversation: Conversation
    _services: TurnServices
    _notices: Observers[str]
    _commander: CommanderAsync[Any]
    _job: Job | None
    _team_stops: Mapping[str, TeamStop]

    if TYPE_CHECKING:  # Agent's own

        @property
        def agent(self) -> str: ...

        def _check_idle(self) -> None: ...

        def _one_turn(self) -> AbstractAsyncContextManager[None]: ...
        async def _start_job(self, job: Job) -> None: ...

        def _next_turn_id(self) -> str: ...

        async def _turn_saved(self) -> None: ...

        async def _reload_conversation(self, session: Session) -> None: ...

        async def _ensure_session(self, prompt: str) -> Session: ...

    def list_agents(self) -> list[AgentProfile]:
        """The agents a session may run, by name (none without agent files)."""
        return self.roster.agents() if self.roster is not None else []

    async def switch_agent(self, name: str) -> None:
        """Run agent `name` from the next turn on: its prompt, tools, model and budgets; stored with the
        session (its system prompt becomes the agent's), so a resume runs it again."""
        self._check_idle()
        if self.roster is None:
            raise UnknownAgentError("There are no agents to switch to (no agent files were found).")
        setup = self.roster.setup(name)
        await self._turn_saved()
        self._use_setup(setup)
        await self._store_prompt(setup.name, setup.system_prompt)

    async def set_system_prompt(self, text: str) -> None:
        """Make `text` the system prompt of this session from the next turn on (stored; "" for none)."""
        self._check_idle()
        await self._turn_saved()
        await self._store_prompt(self.agent or None, text if text.strip() else None)

    async def _store_prompt(self, agent: str | None, prompt: str | None) -> None:
        """The session's agent and system prompt, in history and in what the model is sent next."""
        session = self._session
        if session is None:  # before the first prompt: the session is created with them
            self.system_prompt = prompt
            self._conversation = Conversation(prompt)
            return
        await self.store.set_session_agent(session.id, agent or None, prompt)
        session.agent, session.system_prompt = agent or None, prompt
        await self._reload_conversation(session)

    def _use_setup(self, setup: AgentSetup) -> None:
        """Run the turns from now on as `setup` says (a new session also starts with its system prompt)."""
        self._setup = setup
        if self.roster is not None:
            self.client = self.roster.clients.client_for(setup)
            self._services.client, self._services.model = self.client, self.client.model
        self._services.temperature = setup.temperature
        self.budget = setup.budget
        self.runner.policy = setup.profile
        if self.delegation is not None:  # its delegate tools, `ask_<name>`, with the rest
            self.delegation.equip(self.runner, setup.profile)
        self.system_prompt = setup.system_prompt
        if self._session is None:
            self._conversation = Conversation(self.system_prompt)

    def _restore_agent(self, session: Session) -> None:
        """Run the agent a resumed session ran (its system prompt is the session's own, as stored); a team's
        session keeps this run's agent for when the team is set aside (each member has its own setup)."""
        agent = session.agent or ""
        if self.roster is None or agent in ("", self.agent) or agent.startswith(TEAM_PREFIX):
            return
        try:
            self._use_setup(self.roster.setup(agent))
        except UnknownAgentError:
            self._notices.tell(
                f"This session ran the agent {agent!r}, which is gone (see `tui-agent agents`); "
                f"it goes on as {self.agent or 'configured'}."
            )

    async def use_team(self, name: str | None) -> None:
        """Send the session's prompts to team `name` from now on (None: to its agent again), stored with the
        session as an agent choice is, so a resume goes on with it. Raises `TeamError` for a team that cannot run."""
        from tui_agent.agent.team import find_team

        self._check_idle()
        if name:
            find_team(await self._catalog(), name)
        self.team = name or ""
        session = self._session
        if session is None:  # a new session is marked with its team as the team first runs
            return
        await self._turn_saved()
        if name:
            await self.store.mark_team(session.id, TEAM_PREFIX + name, session.stop_reason)
            session.agent = TEAM_PREFIX + name
        else:
            await self.store.set_session_agent(session.id, self.agent or None, session.system_prompt)
            session.agent = self.agent or None

    async def _restore_team(self, session: Session) -> None:
        """Go on with the team a resumed session ran (its prompts go to the team again); one that cannot run any
        more (its file gone or broken) is said, and the session goes on with this run's agent."""
        from tui_agent.agent.team import find_team

        agent = session.agent or ""
        self.team = ""
        if not agent.startswith(TEAM_PREFIX):
            return
        name = agent.removeprefix(TEAM_PREFIX)
        try:
            find_team(await self._catalog(), name)
        except (UserError, OSError) as error:
            self._notices.tell(
                f"This session ran team {name!r}, which cannot run now: {user_message(error)} "
                f"It goes on as {self.agent or 'configured'} (Ctrl+P, Run a team: pick another)."
            )
            return
        self.team = name

    async def _stop_follows(self, session: Session, cut_off: str) -> None:
        """A continued reply (now the active leaf) goes on with `cut_off`: when that reply ended a team run, the
        run's stop line follows it onto its branch (the cut-off one keeps its own)."""
        stop = self._team_stops.get(cut_off)
        if stop is not None:
            await self.store.record_team_stop(session.id, stop.team, stop.reason, stop.rounds)
            self._team_stops = await self.store.team_stops(session.id)

    async def list_teams(self) -> list[tuple[str, str]]:
        """The teams of the agent and team files: (name, description), by name."""
        catalog = await self._catalog()
        return sorted((team.name, team.description) for team in catalog.teams.values())

    async def _catalog(self) -> Catalog:
        """The agent and team files: the roster's when the build read them, else read now (once)."""
        if self.catalog is None:
            self.catalog = self.roster.catalog if self.roster is not None else await asyncio.to_thread(load_catalog)
        return self.catalog

    async def run_team(self, name: str, prompt: str) -> AsyncIterator[AgentEvent]:
        """Run team `name` on `prompt` in this session (see `tui_agent.agent.team`), yielding its events: every
        member turn's, a `TeamStopped` with why it stopped, then one `TurnFinished`."""
        from tui_agent.agent.team import TeamJob, TeamRun, find_team, team_events

        async with self._one_turn():
            catalog = await self._catalog()
            team = find_team(catalog, name)
            await self._turn_saved()
            session = await self._ensure_session(prompt)
            await self.store.mark_team(session.id, TEAM_PREFIX + team.name)
            session.agent, session.stop_reason, self.team = TEAM_PREFIX + team.name, None, team.name
            user = await self.store.append_message(session.id, Role.USER, prompt, MessageStatus.COMPLETE)
            turn_id = self._next_turn_id()
            events: asyncio.Queue[AgentEvent] = asyncio.Queue()
            run = TeamRun(
                team, catalog, self._services, session.id, events.put_nowait, turn_id,
                budget=self.budget, system_prompt=self.system_prompt, roster=self.roster, delegation=self.delegation,
            )  # fmt: skip
            yield TurnStarted(session.id, user.id, prompt, turn_id=turn_id)
            await self._start_job(job := TeamJob(run))
            try:
                async for event in team_events(events, turn_id):
                    yield event
            finally:
                self._job = None
                if not run.finished:
                    job.cancel()
                    await job.wait()
                session.stop_reason = run.stop_reason
                self._team_stops = await self.store.team_stops(session.id)  # this run's with the earlier ones
                await self._reload_conversation(session)  # the next prompt's model sees the team's messages
