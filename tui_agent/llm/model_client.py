"""Provides `ModelClient`: what the agent needs of a model provider.

Two providers have this shape: `tui_agent.llm.client.ChatClient` (any OpenAI-compatible endpoint) and
`tui_agent.llm.anthropic_client.AnthropicClient` (Anthropic's Messages API). Another one (Gemini, say) is a new
module with a class of this shape, chosen where the engine is built (`tui_agent.agent.services`, by the
`provider` setting); the turn, the agent and the UI only see this protocol and the `StreamEvent`s it yields.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Mapping
from typing import Any, Protocol

from tui_agent.llm.events import StreamEvent


class ModelClient(Protocol):
    """A model endpoint: streams replies, names its models, and is closed when the engine stops."""

    model: str
    """The model asked from the next request on (switching models sets it)."""
    max_tokens: int | None
    """Tokens one reply may have (None: the server's own limit); a longer reply ends with `length`."""

    @property
    def host(self) -> str:
        """The endpoint as people name it (for errors and the status bar)."""
        ...

    def stream_chat(
        self, messages: Iterable[Mapping[str, Any]], tools: list[dict[str, Any]] | None = None, **options: Any
    ) -> AsyncIterator[StreamEvent]:
        """Stream one reply to `messages` (OpenAI-shaped chat messages and tool schemas); raises only
        `tui_agent.llm.errors.LLMError`s, each with a sentence a person understands."""
        ...

    async def list_models(self) -> list[str]:
        """Model ids the endpoint offers."""
        ...

    async def context_windows(self) -> dict[str, int]:
        """Model id -> context window in tokens, for the models the endpoint says it of (often none)."""
        ...

    async def aclose(self) -> None:
        """Release connections."""
        ...
