"""Provides `Sampling`, `SamplingRequest` and `SamplingReply`: a server's request that the session's model answer
a prompt of its own (MCP sampling), approved by the user first.

A server may ask the client's model for a completion (`sampling/createMessage`): its own system prompt, messages
and token limit. Nothing is sent to the model before the user has seen the request and said yes — once, or for
every request of that server for the rest of the run ("always for this server this session"). With nobody to ask
(`-p`), a request is denied unless `--allow-sampling SERVER` names its server; the denial is said on stderr. The
model's tokens and cost are counted in the session like a reply's (whoever answers does that: `agent/
mcp_sampling.py`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal

from tui_agent.payloads import Attachment

Verdict = Literal["once", "always", "deny"]
"""The user's answer to a sampling request: send it this time, send this server's requests unasked from now on
(this run), or refuse."""


@dataclass(frozen=True)
class SamplingMessage:
    """One message of the server's prompt: its role (user or assistant), its text and its images."""

    role: str
    text: str
    images: tuple[Attachment, ...] = ()


@dataclass(frozen=True)
class SamplingRequest:
    """What a server asks the model (everything the approval dialog shows)."""

    server: str
    messages: tuple[SamplingMessage, ...]
    max_tokens: int
    system_prompt: str | None = None
    temperature: float | None = None
    stop: tuple[str, ...] = ()
    model_hints: tuple[str, ...] = ()
    """Models the server would prefer, in its order (advisory: the session's model answers)."""


@dataclass(frozen=True)
class SamplingReply:
    """The model's answer, as the server is sent it."""

    text: str
    model: str
    stop_reason: str = "endTurn"
    """`endTurn`, `maxTokens` (cut at the request's limit) or `stopSequence`."""


class SamplingDenied(Exception):
    """The request was not sent to the model; the message says why (for the server, and the user)."""


Approver = Callable[[SamplingRequest], Awaitable[Verdict]]
Answerer = Callable[[SamplingRequest], Awaitable[SamplingReply]]


@dataclass
class Sampling:
    """The run's answer to sampling requests: who approves them (the app's dialog; None under `-p`), who answers
    them (the session's model), and the servers whose requests go without asking."""

    approver: Approver | None = None
    answerer: Answerer | None = None
    allowed: set[str] = field(default_factory=set)
    """Servers whose requests are sent unasked: `--allow-sampling`, or "always" said in the dialog this run."""
    on_denied: Callable[[str], None] = lambda sentence: None
    """Hears why a request was denied when nobody was asked (`-p`: said on stderr)."""

    async def answer(self, request: SamplingRequest) -> SamplingReply:
        """The model's reply to `request`, once the user agreed (`SamplingDenied` with the reason otherwise)."""
        if self.answerer is None:
            raise SamplingDenied(f"tui-agent has no model to answer {request.server}'s sampling request")
        if request.server not in self.allowed:
            if self.approver is None:
                why = (
                    f"MCP server {request.server} asked the model to answer a prompt of its own (sampling); denied "
                    f"(nobody to ask: run with --allow-sampling {request.server} to allow it)"
                )
                self.on_denied(why + ".")
                raise SamplingDenied(why)
            verdict = await self.approver(request)
            if verdict == "deny":
                raise SamplingDenied("the user declined the sampling request")
            if verdict == "always":
                self.allowed.add(request.server)
        return await self.answerer(request)


def shown_messages(request: SamplingRequest) -> str:
    """The request's prompt as the dialog shows it: the system prompt, then each message under its role."""
    parts = [f"system: {request.system_prompt}"] if request.system_prompt else []
    for message in request.messages:
        images = "".join(f" [image: {image.mime}, {len(image.data):,} bytes]" for image in message.images)
        parts.append(f"{message.role}: {message.text}{images}")
    return "\n\n".join(parts)
