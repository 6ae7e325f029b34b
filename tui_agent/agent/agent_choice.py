"""Provides `AgentChoice`: which agent, or team of agents, writes a session's replies.

A session runs one agent profile (the run's, or one picked with `switch_agent` for that session, restored on
resume; its system prompt editable with `set_system_prompt`), or, for one prompt, a team (`run_team`: members
take turns on the commander, see `tui_agent.agent.team`). It owns the choice (the agent's setup, the team, the
agent and team files) and the endpoint label that follows it; it changes the session's `ChatState` and runs team
turns through `Turns`.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import TYPE_CHECKING

from tui_agent.agent.chat_state import ChatState
from tui_agent.agent.conversation import Conversation
from tui_agent.agent.events import AgentEvent, MessageStatus, TurnStarted
from tui_agent.agent.observers import Observers
from tui_agent.agent.profile_use import AgentRoster, AgentSetup
from tui_agent.agent.turns import Turns
from tui_agent.agents.apply import UnknownAgentError
from tui_agent.agents.memory import Memory
from tui_agent.agents.profiles import AgentProfile, Catalog, load_catalog
from tui_agent.errors import UserError, user_message
from tui_agent.history.models import TEAM_PREFIX, Session
from tui_agent.status import Role
from tui_agent.tools.runner import ToolRunner

if TYPE_CHECKING:
    from tui_agent.agent.delegation import Delegation
    from tui_agent.agent.team import Resume, TeamRun


class AgentChoice:
    """The agent profile or team a session's prompts go to."""

    def __init__(
        self,
        state: ChatState,
        turns: Turns,
        runner: ToolRunner,
        notices: Observers[str],
        *,
        endpoint_label: str,
        roster: AgentRoster | None,
        delegation: Delegation | None,
    ) -> None:
        self._state, self._turns, self._runner, self._notices = state, turns, runner, notices
        self._endpoint_label = endpoint_label
        self.roster = roster
        """The run's agents (None: no agent files, the config's settings only)."""
        self.delegation = delegation
        """The agents the session's agent may ask (`ask_<name>` tools); None: no delegation."""
        self.catalog: Catalog | None = None
        """The agent and team files (read on first use when the build did not give them)."""
        self._setup: AgentSetup | None = None
        self._run_setup: AgentSetup | None = None
        """The run's agent (`--agent`, the config's, or the default): every new session starts with it."""
        self.team = ""
        """The team the session's prompts go to ("": its agent): chosen with `use_team`, set by `run_team`, stored
        with the session (`agent = "team:<name>"`) and restored on resume."""
        self._team_run: TeamRun | None = None
        """The team run working now (None between runs)."""
        self._paused: tuple[str, Resume] | None = None
        """A team run that paused for the person: its session, and where the team goes on with their next prompt."""
        self._pause_wanted = False
        """The person asked to speak while the team's run was starting: it pauses after its first speaker."""

    @property
    def agent(self) -> str:
        """The agent the session runs ("" when none: the config's settings as they are)."""
        return self._setup.name if self._setup is not None else ""

    @property
    def profile(self) -> AgentProfile | None:
        """The profile of the agent the session runs (None: the config's settings as they are)."""
        return self._setup.profile if self._setup is not None else None

    @property
    def endpoint(self) -> str:
        """The endpoint's label: the run's, or the agent's own when its profile names one."""
        setup = self._setup
        if setup is not None and setup.profile is not None and setup.profile.base_url and self.roster is not None:
            return setup.endpoint.label
        return self._endpoint_label

    def memory_files(self) -> list[str]:
        """A line per memory file in force (and per file refused), and whether the current agent reads them."""
        lines = (self.roster.memory if self.roster is not None else Memory()).listing()
        profile = self._setup.profile if self._setup is not None else None
        if profile is not None and not profile.memory:
            lines.append(f"the {profile.name} agent is sent none of them (memory = false in its profile)")
        return lines

    def use_memory(self, memory: Memory) -> None:
        """Tell the memory files in `memory` from the next request on (read again after `/memory` or `#`)."""
        if self.roster is None:
            return
        self.roster.memory = memory
        same = self._setup is self._run_setup  # a new session goes back to the run's setup when they differ
        self._run_setup = self._remembering(self._run_setup)
        self._setup = self._run_setup if same else self._remembering(self._setup)
        self._state.services.memory = self._setup.memory if self._setup is not None else ""

    def _remembering(self, setup: AgentSetup | None) -> AgentSetup | None:
        if setup is None or self.roster is None:
            return setup
        told = self.roster.memory.block() if setup.profile is None or setup.profile.memory else ""
        return replace(setup, memory=told)

    def list_agents(self) -> list[AgentProfile]:
        """The agents a session may run, by name (none without agent files)."""
        return self.roster.agents() if self.roster is not None else []

    async def switch_agent(self, name: str) -> None:
        """Run agent `name` from the next turn on: its prompt, tools, model and budgets; stored with the
        session (its system prompt becomes the agent's), so a resume runs it again."""
        self._turns.check_idle()
        if self.roster is None:
            raise UnknownAgentError("There are no agents to switch to (no agent files were found).")
        setup = self.roster.setup(name)
        await self._turns.saved()
        self.use_setup(setup)
        await self._store_prompt(setup.name, setup.system_prompt)

    async def set_system_prompt(self, text: str) -> None:
        """Make `text` the system prompt of this session from the next turn on (stored; "" for none)."""
        self._turns.check_idle()
        await self._turns.saved()
        await self._store_prompt(self.agent or None, text if text.strip() else None)

    async def _store_prompt(self, agent: str | None, prompt: str | None) -> None:
        """The session's agent and system prompt, in history and in what the model is sent next."""
        state = self._state
        session = state.session
        if session is None:  # before the first prompt: the session is created with them
            state.system_prompt = prompt
            state.conversation = Conversation(prompt)
            return
        await state.store.set_session_agent(session.id, agent or None, prompt)
        session.agent, session.system_prompt = agent or None, prompt
        await state.reload_conversation(session)

    def start_with(self, setup: AgentSetup) -> None:
        """Run `setup` now and in every new session of this run (the agent the run was started with)."""
        self._run_setup = setup
        self.use_setup(setup)

    def start_afresh(self) -> None:
        """A new session runs the run's agent again: one picked with `switch_agent` was for its own session
        (stored with it, and run again when it is resumed or opened)."""
        if self._run_setup is not None and self._setup is not self._run_setup:
            self.use_setup(self._run_setup)

    def use_setup(self, setup: AgentSetup) -> None:
        """Run the turns from now on as `setup` says (a new session also starts with its system prompt)."""
        state, services = self._state, self._state.services
        self._setup = setup
        if self.roster is not None:
            client = self.roster.clients.client_for(setup)
            services.client, services.model = client, client.model
        services.temperature, services.memory = setup.temperature, setup.memory
        state.budget = setup.budget
        self._runner.policy = setup.profile
        if self.delegation is not None:  # its delegate tools, `ask_<name>`, with the rest
            self.delegation.equip(self._runner, setup.profile)
        state.system_prompt = setup.system_prompt
        if state.session is None:
            state.conversation = Conversation(state.system_prompt)

    async def restore(self, session: Session) -> None:
        """Go on with the agent, or the team, a resumed session ran."""
        self._restore_agent(session)
        await self._restore_team(session)

    def _restore_agent(self, session: Session) -> None:
        """Run the agent a resumed session ran (its system prompt is the session's own, as stored); a team's
        session keeps this run's agent for when the team is set aside (each member has its own setup)."""
        agent = session.agent or ""
        if self.roster is None or agent in ("", self.agent) or agent.startswith(TEAM_PREFIX):
            return
        try:
            self.use_setup(self.roster.setup(agent))
        except UnknownAgentError:
            self._notices.tell(
                f"This session ran the agent {agent!r}, which is gone (see `tui-agent agents`); "
                f"it goes on as {self.agent or 'configured'}."
            )

    async def use_team(self, name: str | None) -> None:
        """Send the session's prompts to team `name` from now on (None: to its agent again), stored with the
        session as an agent choice is, so a resume goes on with it. Raises `TeamError` for a team that cannot run."""
        from tui_agent.agent.team import find_team

        self._turns.check_idle()
        if name:
            find_team(await self._catalog(), name)
        if name != self.team:
            self._paused = None  # another team (or none) now: a paused team starts afresh when chosen again
        self.team = name or ""
        session, store = self._state.session, self._state.store
        if session is None:  # a new session is marked with its team as the team first runs
            return
        await self._turns.saved()
        if name:
            await store.mark_team(session.id, TEAM_PREFIX + name, session.stop_reason)
            session.agent = TEAM_PREFIX + name
        else:
            await store.set_session_agent(session.id, self.agent or None, session.system_prompt)
            session.agent = self.agent or None

    def pause_team(self) -> bool:
        """Have the team working now pause after the member speaking, for the person's message (their next
        prompt to the team goes on from there); False when no team is working."""
        if self._team_run is not None and not self._team_run.finished:
            self._team_run.request_pause()
            return True
        if self.team and self._turns.busy and not self._turns.running:  # the team's run is starting: once it has
            self._pause_wanted = True
            return True
        return False

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

        state, turns, store = self._state, self._turns, self._state.store
        async with turns.slot:
            self._pause_wanted = False
            catalog = await self._catalog()
            team = find_team(catalog, name)
            await turns.saved()
            session = await state.ensure_session(prompt, self.endpoint, self.agent)
            await store.mark_team(session.id, TEAM_PREFIX + team.name)
            session.agent, session.stop_reason, self.team = TEAM_PREFIX + team.name, None, team.name
            user = await store.append_message(session.id, Role.USER, prompt, MessageStatus.COMPLETE)
            turn_id = turns.next_id()
            events: asyncio.Queue[AgentEvent] = asyncio.Queue()
            paused, self._paused = self._paused, None
            run = self._team_run = TeamRun(
                team, catalog, state.services, session.id, events.put_nowait, turn_id,
                budget=state.budget, system_prompt=state.system_prompt, roster=self.roster, delegation=self.delegation,
                resume=paused[1] if paused is not None and paused[0] == session.id else None,
            )  # fmt: skip
            if self._pause_wanted:
                run.request_pause()
            yield TurnStarted(session.id, user.id, prompt, turn_id=turn_id)
            await turns.start_job(job := TeamJob(run))
            try:
                async for event in team_events(events, turn_id):
                    yield event
            finally:
                turns.job_done()
                if not run.finished:
                    job.cancel()
                    await job.wait()
                self._team_run = None
                self._paused = (session.id, run.paused) if run.paused is not None else None
                session.stop_reason = run.stop_reason
                state.team_stops = await store.team_stops(session.id)  # this run's with the earlier ones
                await state.reload_conversation(session)  # the next prompt's model sees the team's messages
