"""Provides `WithDelegates` and `DelegatingPolicy`: an agent's tools with its delegate tools (`ask_<name>`) added.

The runner offers the tools its registry has and its policy allows (`ToolRunner.policy`, the agent's profile).
An agent that may ask others gets a registry that is the run's plus its `ask_<name>` specs (a view, not a
copy: tools a live source such as an MCP server adds or drops later show through at once), and a policy that
allows those too (they run unasked: the sub-agent's own tools ask for themselves) and is its profile's for
everything else.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tui_agent.agents.profiles import AgentProfile
from tui_agent.tools.registry import ToolRegistry
from tui_agent.tools.spec import Approval, ToolSpec


class WithDelegates(ToolRegistry):
    """The registry `base` plus `extra` tools of one agent's own (they win a name clash)."""

    def __init__(self, base: ToolRegistry, extra: Sequence[ToolSpec]) -> None:
        super().__init__(base.settings)
        # The run's public state (settings, entries, problems, plugins' hooks...) is shared, not a copy; what is
        # private (the active tools, the waiters) stays the base's, which every method here asks.
        self.__dict__.update({name: value for name, value in vars(base).items() if not name.startswith("_")})
        self.base = base
        self.extra = {spec.name: spec for spec in extra}

    def get(self, name: str) -> ToolSpec | None:
        return self.extra.get(name) or self.base.get(name)

    def names(self) -> list[str]:
        return [*(name for name in self.base.names() if name not in self.extra), *self.extra]

    def approval_for(self, name: str) -> Approval:
        return self.extra[name].approval if name in self.extra else self.base.approval_for(name)

    def openai_tools(self) -> list[dict[str, Any]]:
        return [spec.openai_tool() for name in self.names() if (spec := self.get(name)) is not None]

    async def settled(self) -> None:
        await self.base.settled()

    async def settled_for(self, prompt: str) -> None:
        await self.base.settled_for(prompt)


@dataclass(frozen=True)
class DelegatingPolicy:
    """Agent `profile`'s tool policy (`tui_agent.tools.runner.ToolPolicy`), its delegate tools (and a team's
    control tools) allowed too."""

    profile: AgentProfile
    delegates: frozenset[str]
    """The names of its delegate tools (and of a team member's control tools)."""

    def allows_tool(self, tool: str) -> bool:
        return tool in self.delegates or self.profile.allows_tool(tool)

    def approval_for(self, tool: str) -> Approval | None:
        return None if tool in self.delegates else self.profile.approval_for(tool)
