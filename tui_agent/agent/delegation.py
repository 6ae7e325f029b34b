"""Provides `Delegation`: which agents an agent may ask, offered to its model as `ask_<name>` tools.

An agent whose profile lists `delegates` gets one tool per delegate, with a `task` string (and `to_user`).
Calling it runs that agent (`tui_agent.agent.subagent`) as its profile sets it up over the run's settings
(`AgentRoster.setup`: system prompt, endpoint and model, budgets, temperature, tools), with delegate tools
chosen here the same way, one level down. Delegation is bounded: an agent `max_depth` levels below the
session's offers no delegate tools, and no agent is offered one for an agent already on its chain (it cannot
call back up).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tui_agent.agent.agent_tools import DelegatingPolicy, WithDelegates
from tui_agent.agent.profile_use import AgentRoster, AgentSetup
from tui_agent.agent.subagent import SubAgent, run_subagent
from tui_agent.agents.profiles import AgentProfile
from tui_agent.history.sub_sessions import DELEGATE_PREFIX
from tui_agent.tools.registry import ToolRegistry
from tui_agent.tools.runner import ToolRunner
from tui_agent.tools.spec import ToolOptions, ToolSpec, build_spec

DEFAULT_MAX_DEPTH = 2
"""How many levels of sub-agents a session may have below it."""
SUBAGENT_TIMEOUT = 3600.0
"""Seconds an `ask_<name>` call may run (the sub-agent has budgets of its own; this only stops a wedged one)."""
TASK_HELP = "The whole task for the agent, with everything it needs to know: it sees nothing else of this conversation."


@dataclass(frozen=True)
class Delegation:
    """The run's agents (the roster), the run's tools, and how deep asking may go."""

    roster: AgentRoster
    tools: ToolRegistry
    """The run's tools (every source); an agent's delegate tools are added over them."""
    max_depth: int = DEFAULT_MAX_DEPTH

    def equip(
        self,
        runner: ToolRunner,
        profile: AgentProfile | None,
        chain: tuple[str, ...] = (),
        own: Sequence[ToolSpec] = (),
    ) -> None:
        """Give `runner` agent `profile`'s tools, asked down `chain` (the agents above it, the session's first):
        the run's tools its profile allows, and a delegate tool for each agent it may ask from there; `own`:
        tools of this run of it alone, offered whatever its profile says (a team's control tools)."""
        runner.registry, runner.policy = self.tools, profile
        if profile is None:
            return
        chain = (*chain, profile.name)
        asks = [*([] if len(chain) > self.max_depth else self._asks(profile, chain)), *own]
        if asks:
            runner.registry = WithDelegates(self.tools, asks)
            runner.policy = DelegatingPolicy(profile, frozenset(spec.name for spec in asks))

    def _asks(self, profile: AgentProfile, chain: tuple[str, ...]) -> list[ToolSpec]:
        targets = [self.roster.catalog.agent(name) for name in dict.fromkeys(profile.delegates) if name not in chain]
        return [self._ask_spec(target, chain) for target in targets if target is not None]

    def _ask_spec(self, target: AgentProfile, chain: tuple[str, ...]) -> ToolSpec:
        async def ask(task: str) -> str:
            return await run_subagent(self._sub_agent(self.roster.setup(target.name), chain), task)

        ask.__doc__ = f"Ask the {target.name}.\n\nArgs:\n    task: {TASK_HELP}\n"
        description = f"Ask the {target.name} agent to do a task and answer: {target.description}".rstrip(": ")
        options = ToolOptions(
            name=f"{DELEGATE_PREFIX}{target.name}",
            description=description,
            approval="never",
            timeout=SUBAGENT_TIMEOUT,
            to_user=True,
        )
        return build_spec(ask, options, source="agents", plugin="agents")

    def _sub_agent(self, setup: AgentSetup, chain: tuple[str, ...]) -> SubAgent:
        profile = setup.profile
        assert profile is not None  # asked by name: a profile
        own_endpoint = profile.acp is None and (
            profile.model or profile.base_url or profile.api_key_env or profile.max_tokens
        )
        return SubAgent(
            profile.name,
            setup.system_prompt,
            setup.budget,
            setup.temperature,
            self.roster.clients.client_for(setup) if own_endpoint else None,
            lambda runner: self.equip(runner, profile, chain),
            setup.memory,
            profile if profile.acp is not None else None,
        )
