"""Provides the history records: sessions, messages (made of parts), tool calls, token usage and search hits.

Timestamps are timezone-aware `datetime`s in UTC (stored as float epoch seconds in SQLite); a tool call is
the one `tui_agent.tool_call.ToolCall` value, its times epoch seconds. Plain dataclasses: rows are
converted to and from them in `rows.py` only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import ClassVar

from tui_agent.history.attachments import AttachmentRef
from tui_agent.status import MessageStatus, Role
from tui_agent.tool_call import ToolCall as ToolCall  # a stored call is the same value as a live one


def utc_from_epoch(seconds: float) -> datetime:
    """Convert stored epoch seconds to an aware UTC datetime."""
    return datetime.fromtimestamp(seconds, UTC)


@dataclass(frozen=True)
class Usage:
    """Token usage reported by the endpoint for one reply."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    """Of `prompt_tokens`, those the provider served from its prompt cache (billed at the cached price)."""
    cache_write_tokens: int = 0
    """Of `prompt_tokens`, those the provider wrote to its prompt cache (billed at the cache-write price)."""

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


PART_BREAK = "\n\n— continued —\n\n"
"""Between a reply's part of one kind (its reasoning, ...) and the same kind's from its continuation (Ctrl+G):
both are kept, in one part."""


@dataclass(frozen=True)
class StreamedPart:
    """A part of a reply other than its text and calls, of `kind` ("reasoning": what the model thought before it
    answered; any kind a server streams, see `tui_agent.llm.parts`): shown and kept, never sent back to it."""

    kind: str
    text: str


@dataclass(frozen=True)
class TextPart:
    """What the model said to the person (the message's `content`)."""

    text: str
    kind: ClassVar[str] = "text"


@dataclass(frozen=True)
class ToolCallPart:
    """A tool call the message made."""

    call: ToolCall
    kind: ClassVar[str] = "tool_call"


MessagePart = StreamedPart | TextPart | ToolCallPart
"""One part of a message (image and file parts will join them)."""


@dataclass
class Message:
    """One message of a session; `position` is its creation order in the session (0, 1, 2...), so the messages
    of one branch are increasing in position."""

    id: str
    session_id: str
    position: int
    role: Role
    content: str
    status: MessageStatus
    error: str | None
    model: str | None
    usage: Usage | None
    created_at: datetime
    updated_at: datetime
    tool_calls: list[ToolCall] = field(default_factory=list)
    replaced_by: str | None = None
    """For a reply that was retried: the id of the reply that replaced it (this one is no longer sent to the
    model; it stays in history and on screen, dimmed)."""
    part_texts: dict[str, str] = field(default_factory=dict)
    """The reply's parts other than its text and calls, kind → text, in stored order (kinds this version has no
    view for included; empty when it has none)."""
    parent_id: str | None = None
    """The message this one follows in the session's tree (None for the first); siblings share a parent."""
    agent: str | None = None
    """The agent that wrote it (a team member's name); None: the session's own agent."""
    compacted_by: str | None = None
    """For a message compacted away: the id of the summary (a `system` message later on the branch) that
    stands for it in what the model is sent; it stays in history and on screen, collapsed."""
    attachments: list[AttachmentRef] = field(default_factory=list)
    """A prompt's files and images, in order (their `file`/`image` parts; the bytes are stored apart)."""

    @property
    def reasoning(self) -> str:
        """The model's reasoning before its text (its `reasoning` part; empty when it sent none)."""
        return self.part_texts.get("reasoning", "")

    @property
    def parts(self) -> list[MessagePart]:
        """The message in order: its other parts by kind (reasoning, ...), text, tool calls (empty ones left
        out)."""
        parts: list[MessagePart] = [StreamedPart(kind, text) for kind, text in self.part_texts.items() if text]
        if self.content:
            parts.append(TextPart(self.content))
        parts.extend(ToolCallPart(call) for call in self.tool_calls)
        return parts


TEAM_PREFIX = "team:"
"""`Session.agent` of a session run as a team: this, then the team's name."""


FORK_SUFFIX = " (fork)"


def fork_title(title: str) -> str:
    """A fork's title until its own first prompt names it: its source's, marked once (a fork of a fork too)."""
    return title.removesuffix(FORK_SUFFIX) + FORK_SUFFIX


@dataclass
class Session:
    """A conversation; forks remember the session and message they branched from."""

    id: str
    title: str
    created_at: datetime
    updated_at: datetime
    model: str | None = None
    endpoint: str | None = None
    system_prompt: str | None = None
    parent_session_id: str | None = None
    parent_message_id: str | None = None
    message_count: int = 0
    """Messages stored in the session, every branch included."""
    active_leaf_id: str | None = None
    """The last message of the branch the session is on (the model gets the path to it); None when empty."""
    agent: str | None = None
    """The agent profile (or "team:<name>") the session runs, restored on resume; None: the config's settings,
    or a database before step 7. With `parent_session_id`, a sub-agent's session, run by a tool call of its
    parent's message `parent_message_id`."""
    stop_reason: str | None = None
    """For a team session: why its team last stopped (shown, and stored, when it does)."""
    sub_agent: bool = False
    """A sub-agent's run (a call of its parent's ran it; a fork has a parent and an agent too), as listed."""

    @property
    def team_stop(self) -> tuple[str, str] | None:
        """(the team's name, why it stopped) of the session's last team run; None when no team stopped in it."""
        if not self.stop_reason:
            return None
        agent = self.agent or ""
        return agent.removeprefix(TEAM_PREFIX) if agent.startswith(TEAM_PREFIX) else "", self.stop_reason

    @property
    def unnamed_fork(self) -> bool:
        """A fork still titled after its source: its own first prompt names it, as a new session's does."""
        return self.parent_session_id is not None and not self.sub_agent and self.title.endswith(FORK_SUFFIX)


@dataclass(frozen=True)
class Siblings:
    """The messages sharing a parent, oldest first, and where the one asked about is among them (for `‹2/3›`)."""

    messages: list[Message]
    index: int


@dataclass(frozen=True)
class SearchHit:
    """A message matching a full-text search; `snippet` marks matches with [brackets]."""

    session_id: str
    session_title: str
    message_id: str
    snippet: str
    role: Role = Role.USER
    position: int = 0
