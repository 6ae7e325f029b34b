"""Provides `turn_setup` (`AgentSetup`) and `ClientPool`: what an agent profile makes of a session's turns.

`turn_setup(profile, settings)` resolves a profile over the run's settings (`tui_agent.agents.apply`) into
everything a turn takes from it: system prompt, endpoint and model, budgets, temperature and the tool policy
the runner applies (which tools are offered, approval overrides). `ClientPool` hands out the model client of
a setup's endpoint: the run's own client when the endpoint is the run's, else one made for it (kept, and
closed with the pool). The chat session uses both when an agent is picked or switched; a sub-agent's turn is
built from the same two.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from tui_agent.agent.endpoint import EndpointChoice, choose_endpoint
from tui_agent.agent.turn import TurnBudget
from tui_agent.agents.apply import pick_agent, settings_for
from tui_agent.agents.memory import Memory
from tui_agent.agents.profiles import AgentProfile, Catalog
from tui_agent.config import Settings

if TYPE_CHECKING:  # the openai client is imported only when a client is built
    from tui_agent.llm.model_client import ModelClient

ClientFactory = Callable[[EndpointChoice, "int | None"], "ModelClient"]
"""Makes a client for an endpoint, its model and `max_tokens` (`services` gives one with the run's timeouts)."""


@dataclass(frozen=True)
class AgentSetup:
    """A profile applied over the run's settings: what a session's turns use while it runs that agent."""

    profile: AgentProfile | None
    """None: no profile (no agent files): the config's settings as they are."""
    settings: Settings
    """The run's settings with the profile's values on top (`agents.apply.settings_for`)."""
    memory: str = ""
    """The memory files' block its requests add to the system prompt ("" for none: `memory = false`)."""

    @property
    def name(self) -> str:
        """The agent's name ("" without a profile), as stored with the session and shown in the status bar."""
        return self.profile.name if self.profile is not None else ""

    @property
    def system_prompt(self) -> str | None:
        return self.settings.system_prompt

    @property
    def budget(self) -> TurnBudget:
        return TurnBudget(self.settings.max_tool_rounds, self.settings.max_tokens)

    @property
    def temperature(self) -> float | None:
        return self.settings.temperature

    @property
    def endpoint(self) -> EndpointChoice:
        """Where this agent's requests go when its profile names an endpoint or a key (else: the run's)."""
        return choose_endpoint(self.settings)


def turn_setup(
    profile: AgentProfile | None, settings: Settings, *, keep_prompt: bool = False, memory: str = ""
) -> AgentSetup:
    """What `profile` makes of turns run with `settings` (`keep_prompt`: the config file's system prompt, when
    it sets one, wins over the profile's; for the default agent nobody asked for by name; `memory`: the memory
    files' block, left out when the profile opts out)."""
    told = memory if profile is None or profile.memory else ""
    return AgentSetup(profile, settings_for(profile, settings, keep_prompt=keep_prompt), told)


class ClientPool:
    """The model clients of a run's agents: the run's own, and one per other endpoint, model and reply limit a
    profile asks for (made once, shared by the agents asking the same, closed with the pool)."""

    def __init__(self, main: ModelClient, main_choice: EndpointChoice, factory: ClientFactory | None = None) -> None:
        self.main, self.main_choice = main, main_choice
        self.default_model = main.model
        """The run's model (flags, config, or what the server said): an agent that names none uses it."""
        self._factory = factory
        self._others: dict[tuple[str | None, str, str, int | None], ModelClient] = {}

    def client_for(self, setup: AgentSetup) -> ModelClient:
        """The client for `setup`: its endpoint, its model (the profile's, else the run's) and reply limit."""
        profile = setup.profile
        same = profile is None or (profile.base_url is None and profile.api_key_env is None)
        choice = self.main_choice if same else setup.endpoint
        named = setup.profile.model if setup.profile is not None else None
        model = named or (self.default_model if same else choice.model)
        if choice.offline:  # the offline model answers whatever a profile names: its replies are stored as its own
            model = self.default_model
        max_tokens = setup.settings.max_tokens
        if self._factory is None or (same and model == self.default_model and max_tokens == self.main.max_tokens):
            self.main.model = model  # the run's client: back to the run's model, or (no factory: tests) the agent's
            return self.main
        key = (choice.base_url, choice.api_key_env, model, max_tokens)
        if key not in self._others:
            self._others[key] = self._factory(replace(choice, model=model), max_tokens)
        return self._others[key]

    async def aclose(self) -> None:
        """Close the clients made for the agents (the run's own is closed by whoever made it)."""
        others, self._others = list(self._others.values()), {}
        for client in others:
            await client.aclose()


class AgentRoster:
    """The run's agents (a `Catalog`) and how a session's agent becomes its setup; a session asks it by name."""

    def __init__(self, catalog: Catalog, settings: Settings, clients: ClientPool, memory: Memory | None = None) -> None:
        self.catalog, self.settings, self.clients = catalog, settings, clients
        self.memory = memory or Memory()
        """The memory files in force for this run (read once, when the engine is built)."""

    def setup(self, name: str | None) -> AgentSetup:
        """The setup of agent `name` (`UnknownAgentError` listing the agents when there is none); None: the
        default agent, whose prompt gives way to a `system_prompt` the config file sets (see docs/configuring.md)."""
        profile = pick_agent(self.catalog, name)
        return turn_setup(profile, self.settings, keep_prompt=name is None, memory=self.memory.block())

    def agents(self) -> list[AgentProfile]:
        """Every agent, by name."""
        return [self.catalog.agents[name] for name in sorted(self.catalog.agents)]
