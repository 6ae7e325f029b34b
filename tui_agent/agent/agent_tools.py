"""Provides `AgentTools`: the tools one agent is offered — the run's registry seen through its profile, plus
its delegate tools (`ask_<name>`).

A view, not a copy: tools a live source (an MCP server) adds or drops later show through at once. The
profile's `tools` patterns choose which of the run's tools the agent sees; its `approval` entries override
the configured policy for them. (A minimal stand-in for applying a whole profile to a session, which the
profile work does; delegation needs only this much of it.)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tui_agent.agents.profiles import AgentProfile
from tui_agent.tools.registry import ToolRegistry
from tui_agent.tools.spec import Approval, ToolSpec


class AgentTools(ToolRegistry):
    """The registry `base` as agent `profile` sees it, with `extra` tools of its own (they win a name clash)."""

    def __init__(self, base: ToolRegistry, profile: AgentProfile, extra: Sequence[ToolSpec] = ()) -> None:
        super().__init__(base.settings)
        self.base, self.profile = base, profile
        self.extra = {spec.name: spec for spec in extra}
        self.problems = base.problems
        self.entries = base.entries

    def _sees(self, name: str) -> bool:
        return name not in self.extra and self.profile.allows_tool(name)

    def get(self, name: str) -> ToolSpec | None:
        if name in self.extra:
            return self.extra[name]
        return self.base.get(name) if self._sees(name) else None

    def names(self) -> list[str]:
        return [*(name for name in self.base.names() if self._sees(name)), *self.extra]

    def approval_for(self, name: str) -> Approval:
        if name in self.extra:
            return self.extra[name].approval
        if not self._sees(name):
            return "deny"
        if self.settings.off_because(name):
            return "deny"
        return self.profile.approval_for(name) or self.base.approval_for(name)

    def openai_tools(self) -> list[dict[str, Any]]:
        return [spec.openai_tool() for name in self.names() if (spec := self.get(name)) is not None]

    async def settled(self) -> None:
        await self.base.settled()
