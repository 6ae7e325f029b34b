"""Provides `TeamRun` and its jobs: a team of agents taking turns in one session, on the commander.

    TeamJob ──> RoundJob "round 1" ──> play_round ─┬─> MemberJob "writer"  (a whole turn: ResponseJob, tools...)
            │                                      └─> MemberJob "critic"
            └─> RoundJob "round 2" ...              (put by the round before, unless the team stopped)

`loop`: the members speak in order, one member turn each per round. `router`: each round the router speaks
first (offered only `next_speaker(name)` and `done(reason)`, and told each member's description), then the
member it chose. The team stops when a reply meets the team's `done_when` (`team_done.done_reason`: a text, in
any case, a regex, a plugin hook), a speaker calls `done`, the router chooses no one, a member turn fails or is
cancelled, or `max_rounds` rounds have been played. It pauses for the person (`human_input = "each_round"`,
or `request_pause`: after the member speaking now), remembering where it goes on (`Resume`): the person's
next prompt to the team starts a run there. The reason, in words, is emitted (`TeamStopped`) and stored (each
run's in `team_runs`, the last in `sessions.stop_reason`), then the team's `TurnFinished` ends its stream.

Each member turn is an ordinary `Turn` with the member's system prompt, tools (its profile's, under its
approval overrides, and its delegates, plus the team's control tools) and view of the conversation
(`team_view.member_conversation`; a member with a private memory, only what was handed to it:
`team_view.handed_only`); its messages carry the member's name (`messages.agent`,
`AssistantMessageStarted.agent`). Its events go into the team's stream; its own
`TurnFinished` does not (a team's stream ends once, at the team's end).
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tui_agent.agent.agent_tools import DelegatingPolicy, WithDelegates
from tui_agent.agent.events import AgentEvent, TeamStopped, TurnFinished
from tui_agent.agent.external_turn import ExternalChatJob, external_agent, external_model
from tui_agent.agent.profile_use import turn_setup
from tui_agent.agent.team_control import Control, control_tools
from tui_agent.agent.team_done import done_reason, missing_hook
from tui_agent.agent.team_error import TeamError as TeamError
from tui_agent.agent.team_view import handed_only, member_conversation
from tui_agent.agent.turn import Turn, TurnBudget, TurnServices
from tui_agent.agent.turn_jobs import ChatJob
from tui_agent.agents.profiles import AgentProfile, Catalog, TeamProfile
from tui_agent.commander import HandlerCoroutine, Job, as_handler
from tui_agent.history.models import TEAM_PREFIX
from tui_agent.status import MessageStatus, Role, TurnEndReason
from tui_agent.tools.registry import ToolRegistry
from tui_agent.tools.runner import ToolRunner

if TYPE_CHECKING:
    import asyncio

    from tui_agent.acp_client.connection import ExternalAgent
    from tui_agent.agent.delegation import Delegation
    from tui_agent.agent.profile_use import AgentRoster, AgentSetup
    from tui_agent.tools.spec import ToolSpec

ROUTER_NOTE = (
    "You lead a team. Its members, and what each does:\n{roster}\n"
    "Call next_speaker(name) to choose who speaks next, or done(reason) when the task is finished. Do not do "
    "the members' work yourself."
)


@dataclass(frozen=True)
class Resume:
    """Where a paused team goes on with the person's next prompt: the round, and the member speaking first
    in it (an index into the team's members; a router team's router always opens a round)."""

    team: str
    round: int
    member: int = 0


def find_team(catalog: Catalog, name: str) -> TeamProfile:
    """The team called `name`, checked: its members (and router) are agents of the catalog."""
    team = catalog.teams.get(name)
    if team is None:
        known = ", ".join(sorted(catalog.teams)) or "none"
        raise TeamError(f"There is no team {name!r} (teams: {known}; add one in the teams/ folder).")
    missing = [who for who in [*team.members, *([team.router] if team.router else [])] if who not in catalog.agents]
    if missing:
        raise TeamError(f"Team {name!r} names {', '.join(map(repr, missing))}, which is not an agent.")
    if team.flow == "router" and team.router is None:
        raise TeamError(f'Team {name!r} has flow = "router" but no router agent.')
    if team.router is not None and catalog.agents[team.router].acp is not None:  # it could not call next_speaker
        raise TeamError(f"Team {name!r}'s router {team.router!r} is an external agent; a router must be a model.")
    return team


async def team_events(events: asyncio.Queue[AgentEvent], turn_id: str) -> AsyncIterator[AgentEvent]:
    """A team's events up to its own `TurnFinished`: every member turn's, except each member turn's end."""
    while True:
        event = await events.get()
        if isinstance(event, TurnFinished):
            if event.turn_id == turn_id:
                yield event
                return
            continue
        yield event


class TeamRun:
    """One run of a team on a prompt: the state its jobs share, and its side effects."""

    def __init__(
        self,
        team: TeamProfile,
        catalog: Catalog,
        services: TurnServices,
        session_id: str,
        emit: Callable[[AgentEvent], None],
        turn_id: str,
        *,
        budget: TurnBudget,
        system_prompt: str | None = None,
        roster: AgentRoster | None = None,
        delegation: Delegation | None = None,
        resume: Resume | None = None,
    ) -> None:
        self.team, self.catalog, self.services, self.session_id = team, catalog, services, session_id
        self.emit, self.id, self.budget, self.system_prompt = emit, turn_id, budget, system_prompt
        self.roster = roster
        """Builds each member's setup (its model or endpoint, temperature, budgets) over the run's settings."""
        self.delegation = delegation
        """Gives each member its profile's tools and the agents it may ask (None: its tools, no delegates)."""
        self.rounds = 0
        self.stop_reason: str | None = None
        self.failure: TurnEndReason | None = None
        self.finished = False
        self.job: TeamJob | None = None
        self.resume = resume if resume is not None and resume.team == team.name else None
        """Where this run goes on from (a paused run's next speaker); None: round 1, its first speaker."""
        self.pause_requested = False
        """The person asked to speak: the team pauses after the member speaking now."""
        self.paused: Resume | None = None
        """Where the next run goes on, when this one paused for the person."""
        self.externals: dict[str, ExternalAgent] = {}
        """The external agents among the members, started at their first turn, ended with the run."""

    def request_pause(self) -> None:
        """Pause the team after the member speaking now, so the person can speak (their next prompt goes on)."""
        self.pause_requested = True

    def problem(self) -> str | None:
        """Why this team cannot run with the plugins loaded (a stop hook no plugin provides), else None."""
        return missing_hook(self.team.done_when, self.services.runner.registry.hooks)

    def stop(self, reason: str, failure: TurnEndReason | None = None) -> None:
        """Remember the first reason to stop; the team ends once its jobs have unwound."""
        if self.stop_reason is None:
            self.stop_reason, self.failure = reason, failure

    async def member_turn(self, node: HandlerCoroutine, member: str, control: Control, *, router: bool = False) -> Turn:
        """Run one turn of `member` as a node under `node`, to its end (its writes committed)."""
        profile = self.catalog.agents[member]
        store = self.services.store
        stored = await store.load_tail(self.session_id, await store.count_messages(self.session_id))
        system = profile.system_prompt or self.system_prompt
        if router:
            system = f"{system or ''}\n\n{ROUTER_NOTE.format(roster=self._roster())}".strip()
        if member in self.team.private_memory:
            stored = handed_only(stored, member, set(self.team.speakers))
        conversation = member_conversation(stored, member, system, self.team.prefix.get(member, ""))
        tools = control_tools(control, self.team.members if router else None)
        services = await self._services_for(member, tools, router=router)
        turn = Turn(services, self.session_id, conversation, self._budget_of(member), self.emit, self._turn_id(member))
        turn.agent, turn.stop_after_tools, control.turn = member, router, turn
        reply = await store.append_message(
            self.session_id, Role.ASSISTANT, "", MessageStatus.STREAMING, model=services.model, agent=member
        )
        turn.attach_message(reply.id)
        job = await self._job_for(turn, profile)
        await node.put_job(job)
        await job.wait()
        return turn

    async def _job_for(self, turn: Turn, profile: AgentProfile) -> ChatJob:
        """A model's member turn, or an external agent's (one process and ACP session per member per run)."""
        if profile.acp is None:
            return MemberJob(turn, title=profile.name)
        if profile.name not in self.externals:
            self.externals[profile.name] = await external_agent(profile)
        return ExternalChatJob(turn, self.externals[profile.name], profile, title=profile.name)

    def _roster(self) -> str:
        """The members, one line each with their profile's description (AutoGen's selector "roles")."""
        lines = []
        for name in self.team.members:
            description = " ".join(self.catalog.agents[name].description.split())
            lines.append(f"- {name}: {description}" if description else f"- {name}")
        return "\n".join(lines)

    def _turn_id(self, member: str) -> str:
        return f"{self.id}/{self.rounds}/{member}"

    def _setup_of(self, member: str) -> AgentSetup:
        """The member's profile (from the team's catalog) over the run's settings."""
        assert self.roster is not None
        return turn_setup(self.catalog.agents[member], self.roster.settings)

    def _budget_of(self, member: str) -> TurnBudget:
        if self.roster is not None:
            return self._setup_of(member).budget
        rounds = self.catalog.agents[member].max_tool_rounds
        return TurnBudget(rounds or self.budget.max_tool_rounds, self.budget.max_tokens)

    async def _services_for(self, member: str, control: list[ToolSpec], *, router: bool) -> TurnServices:
        """The team's services with a runner for the member (a router's: control tools only)."""
        main = self.services.runner
        await main.registry.settled()  # tool sources still starting (MCP servers) join first
        runner = main.with_policy(None)
        runner.grants = main.grants  # "always this session" answers hold for the whole team
        if router:
            runner.registry = ToolRegistry(main.registry.settings)
            runner.registry.hooks = main.registry.hooks
            for spec in control:
                runner.registry.add(spec)
        else:
            self._equip(runner, self.catalog.agents[member], control)
        if (profile := self.catalog.agents[member]).acp is not None:  # an external agent: its model is its own
            return dataclasses.replace(self.services, runner=runner, model=external_model(profile))
        if self.roster is None:
            return dataclasses.replace(self.services, runner=runner)  # the session's client, totals and meter
        setup = self._setup_of(member)  # the member's own model or endpoint, and temperature
        client = self.roster.clients.client_for(setup)
        return dataclasses.replace(
            self.services, runner=runner, client=client, model=client.model, temperature=setup.temperature
        )

    def _equip(self, runner: ToolRunner, profile: AgentProfile, control: list[ToolSpec]) -> None:
        """The member's tools as its profile sets them (which tools, their approval, its delegates), with the
        team's control tools."""
        if self.delegation is not None:
            self.delegation.equip(runner, profile, own=control)
            return
        base = runner.registry.base if isinstance(runner.registry, WithDelegates) else runner.registry
        runner.registry = WithDelegates(base, control)  # not the session agent's own delegate tools
        runner.policy = DelegatingPolicy(profile, frozenset(spec.name for spec in control))

    async def judge(self, turn: Turn, control: Control, then: Resume | None = None) -> bool:
        """Whether the team stops after `turn` (and why, remembered); True when it does. `then`: where the
        team would go on, should it pause here for the person."""
        member, reason = turn.agent or "?", turn.end_reason
        if reason is TurnEndReason.CANCELLED:
            self.stop(f"{member}'s turn was cancelled", TurnEndReason.CANCELLED)
        elif reason is TurnEndReason.ERROR:
            self.stop(f"{member}'s turn failed: {turn.error}", TurnEndReason.ERROR)
        elif control.done is not None:
            self.stop(f"{member} called done: {control.done}")
        elif why := await done_reason(
            self.team.done_when, self.team.name, member, turn.reply_text, self.services.runner.registry.hooks
        ):
            self.stop(why)
        elif self.pause_requested and then is not None:
            self.pause(then, f"paused after {member} for your message")
        return self.stop_reason is not None

    def pause(self, then: Resume, why: str) -> None:
        """Stop for the person to speak; their next prompt to this team goes on at `then`."""
        if then.round > self.team.max_rounds:
            self.stop(f"max_rounds ({self.team.max_rounds}) reached")
            return
        self.paused = then
        self.stop(f"{why}; send it and the team goes on")

    async def finish(self, reason: TurnEndReason) -> None:
        """Say and store why the team stopped, then end its stream (once)."""
        if self.finished:
            return
        self.finished = True
        if reason is TurnEndReason.CANCELLED:
            self.stop("cancelled", TurnEndReason.CANCELLED)
        self.stop("the team ended unexpectedly", TurnEndReason.ERROR)  # a reason only when none was given
        why = self.stop_reason or ""
        ended = self.failure or TurnEndReason.DONE
        try:
            for external in self.externals.values():
                await external.close()
            await self.services.store.mark_team(self.session_id, TEAM_PREFIX + self.team.name, why)
            await self.services.store.record_team_stop(self.session_id, self.team.name, why, self.rounds)
        finally:
            self.emit(TeamStopped(self.team.name, why, self.rounds, turn_id=self.id))
            error = why if ended is TurnEndReason.ERROR else None
            self.emit(TurnFinished(ended, error, turn_id=self.id))


class TeamJob(Job):
    """A team run: plays round 1; each round puts the next one under this job until the team stops."""

    def __init__(self, run: TeamRun) -> None:
        super().__init__()
        self.run_ = run
        self.title = f"team {run.team.name}"
        run.job = self
        self.add_callback_functions("at_job_end", {"function": self._ended})
        self.add_callback_functions("at_terminate", {"function": self._cancelled})
        self.add_callback_functions("at_exception", {"function": self._crashed, "inject_exception": True})

    @property
    def label(self) -> str:
        return f"team {self.run_.team.name}"

    async def run(self) -> None:
        run = self.run_
        if (problem := run.problem()) is not None:
            run.stop(f"team {run.team.name} cannot run: {problem}", TurnEndReason.ERROR)
            return
        await self.put_job(RoundJob(run, run.resume.round if run.resume is not None else 1))

    async def _ended(self) -> None:
        await self.run_.finish(self.run_.failure or TurnEndReason.DONE)

    async def _cancelled(self) -> None:
        await self.run_.finish(TurnEndReason.CANCELLED)

    async def _crashed(self, exception: BaseException | None) -> None:
        self.run_.stop(f"the team failed: {exception}", TurnEndReason.ERROR)
        await self.run_.finish(TurnEndReason.ERROR)


class RoundJob(Job):
    """One round of a team: every member in order (`loop`), or the router and the member it chose."""

    def __init__(self, run: TeamRun, number: int) -> None:
        super().__init__()
        self.run_, self.number = run, number
        self.title = f"round {number}"

    @property
    def label(self) -> str:
        return f"round {self.number}"

    async def run(self) -> HandlerCoroutine:
        return play_round(self.run_, self.number).named(f"play round {self.number}")


class MemberJob(ChatJob):
    """One member's turn, shown in the task tree under the member's name."""

    @property
    def label(self) -> str:
        return self.turn.agent or super().label


@as_handler
async def play_round(node: HandlerCoroutine, run: TeamRun, number: int) -> None:
    """Play round `number`, then put the next round under the team's job unless the team stops."""
    run.rounds = number
    first = run.resume.member if run.resume is not None and run.resume.round == number else 0
    try:
        if run.team.flow == "router":
            await _router_round(node, run)
        else:
            await _loop_round(node, run, first)
    except Exception as error:  # never leave the team without a reason
        run.stop(f"round {number} failed: {error}", TurnEndReason.ERROR)
        raise
    if run.stop_reason is not None:
        return
    if number >= run.team.max_rounds:
        run.stop(f"max_rounds ({run.team.max_rounds}) reached")
        return
    if run.team.human_input == "each_round":
        run.pause(Resume(run.team.name, number + 1), f"paused after round {number} for your message")
        return
    assert run.job is not None
    await node.put_job(RoundJob(run, number + 1), parent=run.job)


async def _loop_round(node: HandlerCoroutine, run: TeamRun, first: int = 0) -> None:
    members = run.team.members
    for index in range(first, len(members)):
        control = Control()
        last = index + 1 == len(members)
        then = Resume(run.team.name, run.rounds + 1) if last else Resume(run.team.name, run.rounds, index + 1)
        if await run.judge(await run.member_turn(node, members[index], control), control, then):
            return


async def _router_round(node: HandlerCoroutine, run: TeamRun) -> None:
    router = run.team.router
    assert router is not None
    choice = Control()
    if await run.judge(await run.member_turn(node, router, choice, router=True), choice):
        return
    speaker = choice.next_speaker
    if speaker not in run.team.members:
        run.stop(f"{router} chose no one to speak next")
        return
    control = Control()
    await run.judge(await run.member_turn(node, speaker, control), control, Resume(run.team.name, run.rounds + 1))
