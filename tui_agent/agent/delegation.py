"""Provides `Delegation`: which agents an agent may ask, offered to its model as `ask_<name>` tools.

An agent whose profile lists `delegates` gets one tool per delegate, with a `task` string (and `to_user`).
Calling it runs that agent (`tui_agent.agent.subagent`) with its own tools — which are chosen here the same
way, one level down. Delegation is bounded: an agent `max_depth` levels below the session's offers no delegate
tools, and no agent is offered one for an agent already on its chain (it cannot call back up).
"""

from __future__ import annotations

from dataclasses import dataclass

from tui_agent.agent.agent_tools import AgentTools
from tui_agent.agent.subagent import run_subagent
from tui_agent.agents.profiles import DEFAULT_AGENT, AgentProfile, Catalog
from tui_agent.history.sub_sessions import DELEGATE_PREFIX
from tui_agent.tools.registry import ToolRegistry
from tui_agent.tools.spec import ToolOptions, ToolSpec, build_spec

DEFAULT_MAX_DEPTH = 2
"""How many levels of sub-agents a session may have below it."""
SUBAGENT_TIMEOUT = 3600.0
"""Seconds an `ask_<name>` call may run (the sub-agent has budgets of its own; this only stops a wedged one)."""
TASK_HELP = "The whole task for the agent, with everything it needs to know: it sees nothing else of this conversation."


@dataclass(frozen=True)
class Delegation:
    """The agents that may be asked (the catalog) and how deep asking may go."""

    catalog: Catalog
    max_depth: int = DEFAULT_MAX_DEPTH

    def tools_for(self, base: ToolRegistry, profile: AgentProfile, chain: tuple[str, ...] = ()) -> AgentTools:
        """The tools of agent `profile`, asked down `chain` (the agents above it, the session's first): the
        run's tools its profile allows, and a delegate tool for each agent it may ask from there."""
        chain = (*chain, profile.name)
        asks = [] if len(chain) > self.max_depth else self._asks(base, profile, chain)
        return AgentTools(base, profile, asks)

    def _asks(self, base: ToolRegistry, profile: AgentProfile, chain: tuple[str, ...]) -> list[ToolSpec]:
        targets = [self.catalog.agent(name) for name in dict.fromkeys(profile.delegates) if name not in chain]
        return [self._ask_spec(base, target, chain) for target in targets if target is not None]

    def _ask_spec(self, base: ToolRegistry, target: AgentProfile, chain: tuple[str, ...]) -> ToolSpec:
        async def ask(task: str) -> str:
            return await run_subagent(target, self.tools_for(base, target, chain), task)

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


def session_profile(catalog: Catalog, name: str | None = None) -> AgentProfile | None:
    """The profile a session runs (`name`, else the default agent); None when the catalog has no such agent.

    A stand-in until sessions pick their agent (`--agent`): delegation needs to know whose delegates to offer.
    """
    return catalog.agent(name or DEFAULT_AGENT)
