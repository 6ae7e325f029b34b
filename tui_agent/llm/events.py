"""Provides the typed events `ChatClient.stream_chat` yields while a reply streams in.

Frozen, slotted dataclasses: cheap to create (one per chunk) and safe to hand to other layers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class TextDelta:
    """A piece of reply text addressed to the user."""

    text: str


@dataclass(frozen=True, slots=True)
class PartDelta:
    """A piece of a reply part other than its text, of `kind` ("reasoning", ...; the delta fields that carry
    each kind are `tui_agent.llm.parts.PART_FIELDS`): shown and saved, never sent back to the model."""

    kind: str
    text: str


@dataclass(frozen=True, slots=True)
class ToUserDelta:
    """A piece of the `to_user` argument of tool call `index`, decoded (escapes resolved) as it streams."""

    text: str
    index: int
    id: str


@dataclass(frozen=True, slots=True)
class ToolCallStarted:
    """The model began tool call `index` (its id and function name are known)."""

    index: int
    id: str
    name: str


@dataclass(frozen=True, slots=True)
class ToolCallArgumentsDelta:
    """Raw argument text of tool call `index`, exactly as it streamed (partial JSON)."""

    index: int
    id: str
    text: str


@dataclass(frozen=True, slots=True)
class ToolCallReady:
    """A complete tool call: `arguments` is the parsed JSON object without `to_user`; `raw` is the full text."""

    index: int
    id: str
    name: str
    arguments: dict[str, Any]
    raw: str


@dataclass(frozen=True, slots=True)
class ToolCallInvalid:
    """A tool call that cannot run; `reason` is a sentence saying why (cut off, not JSON, ...)."""

    index: int
    id: str
    name: str
    raw: str
    reason: str


@dataclass(frozen=True, slots=True)
class Usage:
    """Token counts the server reported for the request; `cached_tokens` is the part of `prompt_tokens` the
    provider served from its prompt cache (`prompt_tokens_details.cached_tokens`; 0 when not reported), and
    `cache_write_tokens` the part it wrote to the cache (Anthropic's `cache_creation_input_tokens`, billed above
    the input price; OpenAI's caching writes for free and reports none)."""

    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int = 0
    cache_write_tokens: int = 0


@dataclass(frozen=True, slots=True)
class RetryScheduled:
    """The request was answered `status` (rate limited, server busy) before any reply; it is sent again at `at`
    (a `time.monotonic()` reading). `attempt` counts the retries, 1 to `retries`."""

    status: int
    attempt: int
    retries: int
    at: float


@dataclass(frozen=True, slots=True)
class StreamEnd:
    """The reply finished normally; `finish_reason` as the server sent it (stop, tool_calls, length, ...)."""

    finish_reason: str


StreamEvent = (
    TextDelta
    | PartDelta
    | ToUserDelta
    | ToolCallStarted
    | ToolCallArgumentsDelta
    | ToolCallReady
    | ToolCallInvalid
    | Usage
    | RetryScheduled
    | StreamEnd
)
"""Everything a stream can yield."""
