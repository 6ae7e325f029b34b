"""Provides `Meter`, what the status line shows of a session's cost and context, and `SessionMeter`, the
agent's running account it is read from.

Cost comes from the price table for the model of each reply (`tui_agent.prices`): a reply of a model without
a price has no cost, and a session with any such reply has none either — tokens are shown instead, never a
made-up figure. Prompt tokens the provider served from its cache are billed at the cached price when the
usage reports them (`cached_tokens`; history keeps them with each reply, so a resumed session counts them too).

The context is the active path's size in tokens: after a reply, what the server counted (its prompt and
completion tokens: everything sent plus the answer); when there is no such count for the path as it now
stands (after a compaction, or a branch with no usage), an estimate from the text (`estimate_tokens`),
marked as one. The window comes from the config (`[context_windows]`), else the window the server serves
(`ModelClient.context_windows`, or a refusal for a request over it), else the shipped table; unknown, the
gauge shows tokens only. A compaction that failed pauses automatic compaction (`CompactionBackoff`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from tui_agent.agent.compaction_backoff import CompactionBackoff
from tui_agent.history.models import Message
from tui_agent.prices import PriceTable, TokenCounts, WindowTable
from tui_agent.status import Role

CHARS_PER_TOKEN = 4
"""A rough, model-independent estimate (English prose averages ~4 characters per token)."""


@dataclass(frozen=True)
class Meter:
    """Cost and context of a session at one moment (a value: the UI reads it, never changes it)."""

    tokens_in: int = 0
    tokens_out: int = 0
    cached_in: int = 0
    """Of `tokens_in`, those the provider served from its cache (as reported)."""
    last_cost: Decimal | None = None
    """The last reply's cost; None before any reply, or when its model has no price."""
    session_cost: Decimal | None = None
    """The session's cost; None when any reply's model has no price (or there was no reply)."""
    context_tokens: int = 0
    context_estimated: bool = False
    """`context_tokens` is an estimate from the text, not the server's count."""
    context_window: int | None = None
    """The model's window in tokens; None when unknown (the gauge shows tokens only)."""
    compact_at: float = 0.8
    """Share of the window at which the next turn compacts older turns first."""
    compaction_paused: bool = False
    """A compaction failed a moment ago: the next turn does not try again first (`CompactionBackoff`)."""

    @property
    def context_share(self) -> float | None:
        """How full the window is (0.0-1.0 and beyond); None when the window is unknown."""
        if not self.context_window:
            return None
        return self.context_tokens / self.context_window

    @property
    def needs_compaction(self) -> bool:
        """The context has reached `compact_at` of a known window."""
        share = self.context_share
        return share is not None and share >= self.compact_at

    @property
    def compacts_first(self) -> bool:
        """The next prompt compacts older turns before it is sent: the context is full and no failure waits."""
        return self.needs_compaction and not self.compaction_paused


def estimate_tokens(messages: Iterable[Mapping[str, Any]]) -> int:
    """A rough token count of chat messages (text and tool-call arguments), for when the server gave none."""
    chars = 0
    for message in messages:
        content = message.get("content")
        chars += len(content) if isinstance(content, str) else len(str(content or ""))
        for call in message.get("tool_calls") or []:
            chars += len(str((call.get("function") or {}).get("arguments", "")))
    return -(-chars // CHARS_PER_TOKEN)


@dataclass
class SessionMeter:
    """The running account of one session's tokens, cost and context (the agent and its turns update it)."""

    prices: PriceTable = field(default_factory=PriceTable.with_overrides)
    windows: WindowTable = field(default_factory=WindowTable.with_overrides)
    user_windows: WindowTable = field(default_factory=lambda: WindowTable({}))
    """The config's `[context_windows]`: they beat what the server says."""
    served_windows: dict[str, int] = field(default_factory=dict)
    """Model id -> window the server serves (`ModelClient.context_windows`, filled once the engine has asked;
    a refusal for a request over the window corrects it)."""
    backoff: CompactionBackoff = field(default_factory=CompactionBackoff)
    """Whether automatic compaction waits after a failure."""
    compact_at: float = 0.8
    tokens_in: int = 0
    tokens_out: int = 0
    cached_in: int = 0
    cost: Decimal = Decimal(0)
    priced: bool = True
    replies: int = 0
    last_cost: Decimal | None = None
    context_tokens: int = 0
    context_estimated: bool = False

    def reset(self) -> None:
        """A new, empty session."""
        self.tokens_in = self.tokens_out = self.cached_in = self.replies = self.context_tokens = 0
        self.cost, self.priced, self.last_cost, self.context_estimated = Decimal(0), True, None, False
        self.backoff.succeeded()  # another conversation: its own compaction is tried

    def add(self, model: str | None, usage: TokenCounts) -> None:
        """Count one response's usage: its cost (if its model has a price) and the context it measured."""
        self.add_aside(model, usage)
        self.context_tokens = usage.prompt_tokens + usage.completion_tokens
        self.context_estimated = False

    def add_aside(self, model: str | None, usage: TokenCounts) -> None:
        """Count the usage of a request beside the conversation (an MCP server's sampling): its tokens and cost,
        not the context (it measured another prompt)."""
        cached = int(getattr(usage, "cached_tokens", 0) or 0)
        self.tokens_in += usage.prompt_tokens
        self.tokens_out += usage.completion_tokens
        self.cached_in += cached
        self.replies += 1
        self.last_cost = self.prices.cost(model, usage)
        if self.last_cost is None:
            self.priced = False
        else:
            self.cost += self.last_cost

    def load(self, messages: Sequence[Message], default_model: str | None, estimate: int) -> None:
        """Start from a stored path (a resumed session): its replies' tokens and cost, and its context — the
        last reply's count, or `estimate` when a summary (compaction) came after it or none was counted."""
        self.reset()
        for message in messages:
            if message.usage is not None:
                self.add(message.model or default_model, message.usage)
        self.measure(messages, estimate)

    def measure(self, messages: Sequence[Message], estimate: int) -> None:
        """The context of the path `messages` (after a branch switch, a retry or a compaction)."""
        for message in reversed(messages):
            if message.role is Role.SYSTEM:  # a compaction summary: the server has not counted the new path
                break
            if message.usage is not None and message.usage.total_tokens:
                self.context_tokens, self.context_estimated = message.usage.total_tokens, False
                return
        self.context_tokens, self.context_estimated = estimate, True

    def overflowed(self, model: str | None, window: int | None, prompt_tokens: int | None) -> None:
        """The server refused a request over its window and said the window, the request's size, or both."""
        if model and window is not None:
            self.served_windows[model] = window
        if prompt_tokens is not None:  # the path as it stands, counted by the server
            self.context_tokens, self.context_estimated = prompt_tokens, False

    def window(self, model: str | None) -> int | None:
        """`model`'s context window: the config's, else the server's, else the shipped table's."""
        if (mine := self.user_windows.lookup(model)) is not None:
            return mine
        if model and model in self.served_windows:
            return self.served_windows[model]
        return self.windows.lookup(model)

    def snapshot(self, model: str | None) -> Meter:
        """The meter as it stands, for `model` (the one the next request asks)."""
        return Meter(
            tokens_in=self.tokens_in,
            tokens_out=self.tokens_out,
            cached_in=self.cached_in,
            last_cost=self.last_cost,
            session_cost=self.cost if self.priced and self.replies else None,
            context_tokens=self.context_tokens,
            context_estimated=self.context_estimated,
            context_window=(window := self.window(model)),
            compact_at=self.compact_at,
            compaction_paused=self.backoff.paused(self.context_tokens, window),
        )
