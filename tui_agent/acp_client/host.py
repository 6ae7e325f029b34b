"""Provides `AgentHost`, what an external agent's prompt reports to, and `ExternalAgentError`.

The agent layer implements the host over a `Turn` (`tui_agent.agent.external_turn`), so an external agent's
text, reasoning, tool calls and approval questions take the paths a model's and a local tool's take.
"""

from __future__ import annotations

from typing import Protocol

from tui_agent.errors import UserError
from tui_agent.tool_call import Decision, ToolCall


class ExternalAgentError(UserError, ValueError):
    """An external agent that could not be started, or that failed or went away: the sentence says which."""


class AgentHost(Protocol):
    """Where one prompt's updates go, in the order the agent sent them."""

    def text(self, text: str) -> None:
        """A piece of the agent's reply."""

    def thought(self, text: str) -> None:
        """A piece of the agent's reasoning (shown as the reply's reasoning part)."""

    def call(self, call: ToolCall) -> None:
        """A tool call the agent runs itself, as it stands now (its first sight records it)."""

    async def ask(self, call: ToolCall) -> Decision:
        """The agent asks to run `call`: the person's answer (the same approval a local tool's call gets)."""
        ...

    def usage(self, prompt_tokens: int, completion_tokens: int) -> None:
        """Tokens the agent reported for the prompt."""
