"""Provides `ModelSampler`: an MCP server's sampling request answered by the session's model, its tokens and cost
counted in the session.

The request is sent as it came — the server's system prompt, its messages (images as image parts), no tools,
its temperature and stop sequences — through the client the next turn would use, with the server's token limit
(never more than the run's own `max_tokens`). The reply's text goes back to the server; the conversation is not
touched (its context gauge neither). Approval is `tools/mcp/sampling.py`'s, before this is asked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from tui_agent.agent.content import attachment_parts
from tui_agent.llm.client import token_limit_parameter
from tui_agent.llm.errors import LLMError
from tui_agent.llm.events import StreamEnd, TextDelta, Usage
from tui_agent.prices import TokenCounts
from tui_agent.tools.mcp.sampling import SamplingDenied, SamplingReply, SamplingRequest

if TYPE_CHECKING:
    from tui_agent.llm.model_client import ModelClient

STOP_REASONS = {"length": "maxTokens", "max_tokens": "maxTokens", "stop_sequence": "stopSequence"}
"""The model's finish reasons as MCP names them (anything else ended the turn: `endTurn`)."""


class SessionModel(Protocol):
    """What answering needs of the agent: the client and model the next request uses, and the session's count."""

    @property
    def client(self) -> ModelClient: ...

    @property
    def model(self) -> str: ...

    def count_aside(self, usage: TokenCounts) -> None: ...


class ModelSampler:
    """Answers sampling requests with `agent`'s model (`tools.mcp.sampling.Answerer`)."""

    def __init__(self, agent: SessionModel) -> None:
        self._agent = agent

    async def __call__(self, request: SamplingRequest) -> SamplingReply:
        client = self._agent.client
        text: list[str] = []
        finish = "stop"
        try:
            async for event in client.stream_chat(chat_messages(request), None, **options_of(request, client)):
                if isinstance(event, TextDelta):
                    text.append(event.text)
                elif isinstance(event, Usage):
                    self._agent.count_aside(event)
                elif isinstance(event, StreamEnd):
                    finish = event.finish_reason
        except LLMError as error:
            raise SamplingDenied(f"the model could not answer: {error.user_message}") from error
        reply = "".join(text)
        if request.stop:  # a server that cannot pass stop sequences on still gets the text before the first
            cut = min((reply.find(stop) for stop in request.stop if stop in reply), default=-1)
            if cut >= 0:
                reply, finish = reply[:cut], "stop_sequence"
        return SamplingReply(reply, self._agent.model, STOP_REASONS.get(finish, "endTurn"))


def chat_messages(request: SamplingRequest) -> list[dict[str, Any]]:
    """The request as chat messages: its system prompt first, images of a message as image parts after its text."""
    messages: list[dict[str, Any]] = []
    if request.system_prompt:
        messages.append({"role": "system", "content": request.system_prompt})
    for message in request.messages:
        content: str | list[dict[str, Any]] = message.text
        if message.images:
            parts = [{"type": "text", "text": message.text}] if message.text else []
            content = parts + [part for image in message.images for part in attachment_parts(image)]
        messages.append({"role": "assistant" if message.role == "assistant" else "user", "content": content})
    return messages


def options_of(request: SamplingRequest, client: ModelClient) -> dict[str, Any]:
    """The request's own options: its token limit (within the run's), temperature and stop sequences."""
    limit = request.max_tokens
    configured = getattr(client, "max_tokens", None)
    if isinstance(configured, int) and configured > 0:
        limit = min(limit, configured)
    # The field the run's own limit goes in (`max_completion_tokens` at OpenAI); Anthropic's client keeps its own.
    options: dict[str, Any] = {token_limit_parameter(str(getattr(client, "base_url", ""))): limit}
    if request.temperature is not None:
        options["temperature"] = request.temperature
    if request.stop:
        options["stop"] = list(request.stop)
    return options
